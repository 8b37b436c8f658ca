//go:build !wasm

// Differential tests against SQLite, which does not build for WebAssembly
// (see diff_test.go).

package datalog

import (
	"errors"
	"strings"

	"context"
	"github.com/ctxql/ctxql/sqlgen"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// TestDSDifferential compares the relations "#[ds(eqrel)]" and
// "#[ds(trrel)]" declare, and rules reading them, with recursive CTEs of
// SQLite over random graphs: an eqrel is the closure of the symmetric
// and reflexive edges, a trrel the transitive closure of the edges. An
// eqrel built in a union-find (nothing in its stratum reads it) and one
// that its own rules read (kept as rows while they run) must agree.
func TestDSDifferential(t *testing.T) {
	for seed := range uint64(60) {
		g := &gen{rng: rand.New(rand.NewPCG(seed, 32)), rels: map[string]*gRel{}}
		n := 2 + g.rng.IntN(20)
		node := func() string { return strconv.Itoa(g.rng.IntN(n)) }
		e := &gRel{name: "e", types: []string{"N", "N"}}
		e3 := &gRel{name: "e3", types: []string{"N", "N", "N"}}
		for range g.rng.IntN(2 * n) {
			e.tuples = append(e.tuples, []string{node(), node()})
			e3.tuples = append(e3.tuples, []string{strconv.Itoa(g.rng.IntN(3)), node(), node()})
		}
		g.rels["e"], g.rels["e3"] = e, e3
		db, err := Load(g.data())
		if err != nil {
			t.Fatal(err)
		}
		sq := openSQLite(t, g.rels)
		sym := "WITH RECURSIVE s(a, b) AS (SELECT c0, c1 FROM e UNION SELECT c1, c0 FROM e UNION SELECT c0, c0 FROM e UNION SELECT c1, c1 FROM e), " +
			"c(a, b) AS (SELECT a, b FROM s UNION SELECT c.a, s.b FROM c JOIN s ON s.a = c.b) "
		eq := querySQL(t, sq, sym+"SELECT a, b FROM c")
		// q: the class of each source of an edge; nq: the pairs of an
		// edge's source and another edge's target in different classes.
		q := querySQL(t, sq, sym+"SELECT DISTINCT e.c0, c.b FROM e JOIN c ON c.a = e.c0")
		nq := querySQL(t, sq, sym+"SELECT DISTINCT x.c0, y.c1 FROM e AS x, e AS y WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.a = x.c0 AND c.b = y.c1)")
		size := querySQL(t, sq, sym+"SELECT a, COUNT(*) FROM c GROUP BY a")
		tr := querySQL(t, sq, "WITH RECURSIVE c(a, b) AS (SELECT c0, c1 FROM e UNION SELECT c.a, e.c1 FROM c JOIN e ON e.c0 = c.b) SELECT a, b FROM c")
		eq3 := querySQL(t, sq, "WITH RECURSIVE s(k, a, b) AS (SELECT c0, c1, c2 FROM e3 UNION SELECT c0, c2, c1 FROM e3 UNION SELECT c0, c1, c1 FROM e3 UNION SELECT c0, c2, c2 FROM e3), "+
			"c(k, a, b) AS (SELECT k, a, b FROM s UNION SELECT c.k, c.a, s.b FROM c JOIN s ON s.k = c.k AND s.a = c.b) SELECT k, a, b FROM c")
		sq.Close()
		for _, rules := range []string{
			"eq(x, y) <-- e(x, y);",
			"eq(x, y) <-- e(x, y);\neq(x, y) <-- eq(x, z), e(z, y);",
			"eq(y, x) <-- e(x, y);\neq(x, x) <-- eq(x, x);",
		} {
			prog := "#[ds(ascent_byods_rels::eqrel)]\nrelation eq(N, N);\n" + rules + `
relation q(N, N);
q(x, y) <-- e(x, _), eq(x, y);
relation nq(N, N);
nq(x, y) <-- e(x, _), e(_, y), !eq(x, y);
relation size(N, usize);
size(x, c) <-- eq(x, _), agg c = count() in eq(x, _);
#[ds(trrel)]
relation tr(N, N);
tr(x, y) <-- e(x, y);
#[ds(eqrel)]
relation eq3(N, N, N);
eq3(k, x, y) <-- e3(k, x, y);
`
			res, err := EvalProgram(context.Background(), db, "p", prog)
			if err != nil || len(res.Diagnostics) > 0 {
				t.Fatalf("seed %d: %s: %v %v", seed, prog, err, res.Diagnostics)
			}
			for name, want := range map[string][][]string{"eq": eq, "q": q, "nq": nq, "size": size, "tr": tr, "eq3": eq3} {
				if d := cmp.Diff(want, nonEmpty(res.Relations[name])); d != "" {
					t.Fatalf("seed %d: %s: %s\ndata: %s\n(-sqlite +ctxql):\n%s", seed, rules, name, dumpRels(g.rels), d)
				}
			}
		}
	}
}

// TestEqrelCompact pins the storage of an equivalence relation: one
// class of n elements is n entries of its union-find, and a join with a
// bound first column reads the class, never the n² pairs.
func TestEqrelCompact(t *testing.T) {
	const n = 3000
	d := &Data{Relations: map[string]*RelationData{"e": {ParamTypes: []string{"u32", "u32"}}}}
	for i := range n - 1 {
		d.Relations["e"].Tuples = append(d.Relations["e"].Tuples, []string{strconv.Itoa(i), strconv.Itoa(i + 1)})
	}
	db, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	// n² pairs exceed the budget: only a compact eqrel evaluates.
	prog := "#[ds(eqrel)]\nrelation eq(u32, u32);\neq(x, y) <-- e(x, y);\nrelation q(u32);\nq(y) <-- eq(0, y), if y < 5;\n"
	_, rows, err := EvalProgramRows(context.Background(), db, "p", prog, Options{MaxTuples: 100_000})
	if err == nil {
		t.Fatalf("the printed eqrel of %d pairs fits a budget of 100000: %v", n*n, rows["eq"].Len())
	}
	st, err := fixpointOf(t, db, prog, Options{MaxTuples: 100_000, skipFlatten: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := st.eq["eq"]; s == nil || s.size() != n || s.pairs() != n*n {
		t.Fatalf("eq store: %+v", s)
	}
	if got := db.strings(st.full["q"]); len(got) != 5 {
		t.Fatalf("q = %v", got)
	}
}

// TestTupleDifferential compares tuple values and destructuring with
// SQLite over random relations of integer pairs: building a tuple is
// SQLite's text concatenation in the form the engine prints, taking it
// apart in an atom, a let or a for is a plain projection, and a
// comparison of tuples is the comparison of their elements.
func TestTupleDifferential(t *testing.T) {
	for seed := range uint64(60) {
		g := &lgen{rng: rand.New(rand.NewPCG(seed, 33))}
		r := g.intRel("r", 2, 15, -5, 5)
		s := g.intRel("s", 2, 15, -5, 5)
		d, rels := relsData(r, s)
		db, err := Load(d)
		if err != nil {
			t.Fatal(err)
		}
		sq := openSQLite(t, rels)
		tup := "'(' || c0 || ', ' || c1 || ')'"
		want := map[string][][]string{
			"p":    querySQL(t, sq, "SELECT DISTINCT "+tup+" FROM r"),
			"sw":   querySQL(t, sq, "SELECT DISTINCT c1, c0 FROM r WHERE CAST(c0 AS INTEGER) < CAST(c1 AS INTEGER)"),
			"sum":  querySQL(t, sq, "SELECT DISTINCT c0, CAST(c0 AS INTEGER) + CAST(c1 AS INTEGER) FROM r"),
			"both": querySQL(t, sq, "SELECT DISTINCT r.c0, r.c1 FROM r JOIN s ON r.c0 = s.c0 AND r.c1 = s.c1"),
			"diag": querySQL(t, sq, "SELECT DISTINCT c0 FROM r WHERE c0 = c1"),
			"only": querySQL(t, sq, "SELECT DISTINCT c0, c1 FROM r EXCEPT SELECT c0, c1 FROM s"),
			"lst":  querySQL(t, sq, "SELECT DISTINCT c0, c1 FROM r UNION SELECT c1, c0 FROM r"),
		}
		sq.Close()
		prog := `relation p((i64, i64));
p((x, y)) <-- r(x, y);
relation ps((i64, i64));
ps((x, y)) <-- s(x, y);
relation sw(i64, i64);
sw(y, x) <-- p((x, y)), if x < y;
relation sum(i64, i64);
sum(x, z) <-- p(t), let (x, y) = t, let z = x + y;
relation both(i64, i64);
both(x, y) <-- p(t), ps(u), if t == u, let (x, y) = u;
relation diag(i64);
diag(x) <-- p((x, x));
relation only(i64, i64);
only(x, y) <-- r(x, y), !ps((x, y));
relation lst(i64, i64);
lst(a, b) <-- r(x, y), for (a, b) in [(x, y), (y, x)];
`
		res, err := EvalProgram(context.Background(), db, "p", prog)
		if err != nil || len(res.Diagnostics) > 0 {
			t.Fatalf("seed %d: %v %v", seed, err, res.Diagnostics)
		}
		for name, w := range want {
			if diff := cmp.Diff(w, nonEmpty(res.Relations[name])); diff != "" {
				t.Fatalf("seed %d: %s\ndata: %s\n(-sqlite +ctxql):\n%s", seed, name, dumpRels(rels), diff)
			}
		}
	}
}

// TestSQLRefusesDSAndTuples: the SQL compiler refuses an eqrel or trrel
// relation and a tuple term by name rather than compiling them as plain
// relations and text.
func TestSQLRefusesDSAndTuples(t *testing.T) {
	for src, want := range map[string]string{
		"relation e(u32, u32);\n#[ds(eqrel)]\nrelation eq(u32, u32);\neq(x, y) <-- e(x, y);\n": "the eqrel relation eq",
		"relation e(u32, u32);\n#[ds(trrel)]\nrelation tr(u32, u32);\ntr(x, y) <-- e(x, y);\n": "the trrel relation tr",
		"relation e(u32, u32);\nrelation p((u32, u32));\np((x, y)) <-- e(x, y);\n":             "(x, y)",
	} {
		prog := syn.ParseProgram("p", src)
		info := syn.Check(prog, nil)
		if syntax.HasErrors(prog.Diagnostics) || syntax.HasErrors(info.Diagnostics) {
			t.Fatalf("%s: %v %v", src, prog.Diagnostics, info.Diagnostics)
		}
		_, err := sqlgen.CompileDatalog(prog, info, nil, sqlgen.SQLite, nil)
		var ue *sqlgen.UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(ue.Construct, want) {
			t.Errorf("%s: %v, want a refusal of %s", src, err, want)
		}
	}
}

// TestEqrelElements: "eq(x, x)" lists each element of an equivalence
// relation once (the join reads the elements, not the classes' pairs).
func TestEqrelElements(t *testing.T) {
	const n = 2000
	d := &Data{Relations: map[string]*RelationData{"e": {ParamTypes: []string{"u32", "u32"}}}}
	for i := range n - 1 {
		d.Relations["e"].Tuples = append(d.Relations["e"].Tuples, []string{strconv.Itoa(i), strconv.Itoa(i + 1)})
	}
	db, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	prog := "#[ds(eqrel)]\nrelation eq(u32, u32);\neq(x, y) <-- e(x, y);\nrelation el(u32);\nel(y) <-- eq(x, x), let y = x;\n"
	st, err := fixpointOf(t, db, prog, Options{MaxTuples: 10 * n, skipFlatten: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := st.full["el"].len(); got != n {
		t.Fatalf("el has %d elements, want %d", got, n)
	}
}
