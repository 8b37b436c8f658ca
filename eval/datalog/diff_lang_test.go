//go:build !wasm

// Differential tests against SQLite, which does not build for WebAssembly
// (see diff_test.go).

package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Differential tests of the language beyond plain joins: arithmetic in
// heads and conditions and disjunction (against SQLite's integer
// arithmetic, boolean operators and UNION), aggregates (against SQLite's
// GROUP BY) and lattices (against shortest paths and maxima computed by a
// plain loop below). The generators build each rule as a structure and
// print it twice, as Datalog and as SQL, so that no reference reads the
// text the engine parses.

// lgen draws the random parts of a case.
type lgen struct{ rng *rand.Rand }

// intRel makes a relation of small integers, without duplicate tuples
// (SQLite tables are bags, relations sets).
func (g *lgen) intRel(name string, ar, max, lo, hi int) *gRel {
	r := &gRel{name: name, types: slices.Repeat([]string{"i64"}, ar)}
	seen := map[string]bool{}
	for range g.rng.IntN(max + 1) {
		t := make([]string, ar)
		for i := range t {
			t[i] = strconv.Itoa(lo + g.rng.IntN(hi-lo+1))
		}
		if k := tupleKey(t); !seen[k] {
			seen[k] = true
			r.tuples = append(r.tuples, t)
		}
	}
	return r
}

func relsData(rels ...*gRel) (*Data, map[string]*gRel) {
	d := &Data{Relations: map[string]*RelationData{}}
	m := map[string]*gRel{}
	for _, r := range rels {
		d.Relations[r.name] = &RelationData{ParamTypes: r.types, Tuples: r.tuples}
		m[r.name] = r
	}
	return d, m
}

// expr is a generated expression: its Datalog text and its SQL text over
// the columns the variables name.
type expr struct{ dl, sql string }

// arith generates an integer expression over vars (variable -> SQL
// column) of the given depth. Divisors are non-zero literals, so that
// both sides compute (SQLite gives NULL where ctxql reports an error).
func (g *lgen) arith(vars map[string]string, names []string, depth int) expr {
	if depth == 0 || g.rng.IntN(3) == 0 {
		if g.rng.IntN(3) == 0 {
			n := strconv.Itoa(g.rng.IntN(7) - 2)
			return expr{n, n}
		}
		v := names[g.rng.IntN(len(names))]
		return expr{v, "CAST(" + vars[v] + " AS INTEGER)"}
	}
	switch g.rng.IntN(6) {
	case 0:
		x := g.arith(vars, names, depth-1)
		return expr{"-(" + x.dl + ")", "(-(" + x.sql + "))"}
	case 1:
		x := g.arith(vars, names, depth-1)
		d := strconv.Itoa([]int{1, 2, 3, -3, 7}[g.rng.IntN(5)])
		op := []string{"/", "%"}[g.rng.IntN(2)]
		return expr{"((" + x.dl + ") " + op + " " + d + ")", "((" + x.sql + ") " + op + " " + d + ")"}
	}
	op := []string{"+", "-", "*"}[g.rng.IntN(3)]
	x, y := g.arith(vars, names, depth-1), g.arith(vars, names, depth-1)
	return expr{"(" + x.dl + " " + op + " " + y.dl + ")", "(" + x.sql + " " + op + " " + y.sql + ")"}
}

// cond generates a boolean condition: comparisons of arithmetic joined
// by &&, || and !.
func (g *lgen) cond(vars map[string]string, names []string, depth int) expr {
	if depth == 0 || g.rng.IntN(2) == 0 {
		x, y := g.arith(vars, names, 2), g.arith(vars, names, 2)
		op := []string{"==", "!=", "<", "<=", ">", ">="}[g.rng.IntN(6)]
		return expr{x.dl + " " + op + " " + y.dl, "(" + x.sql + " " + strings.ReplaceAll(op, "==", "=") + " " + y.sql + ")"}
	}
	switch g.rng.IntN(3) {
	case 0:
		x := g.cond(vars, names, depth-1)
		return expr{"!(" + x.dl + ")", "(NOT " + x.sql + ")"}
	case 1:
		x, y := g.cond(vars, names, depth-1), g.cond(vars, names, depth-1)
		return expr{"(" + x.dl + ") && (" + y.dl + ")", "(" + x.sql + " AND " + y.sql + ")"}
	}
	x, y := g.cond(vars, names, depth-1), g.cond(vars, names, depth-1)
	return expr{"(" + x.dl + ") || (" + y.dl + ")", "(" + x.sql + " OR " + y.sql + ")"}
}

// diffArithCase compares a rule with computed head arguments, a let and
// a boolean condition against the same SELECT in SQLite.
func diffArithCase(t *testing.T, seed uint64) int {
	g := &lgen{rng: rand.New(rand.NewPCG(seed, 21))}
	r := g.intRel("r", 2, 15, -9, 9)
	d, rels := relsData(r)
	vars := map[string]string{"x": "t.c0", "y": "t.c1"}
	names := []string{"x", "y"}
	h1, h2 := g.arith(vars, names, 3), g.arith(vars, names, 2)
	c := g.cond(vars, names, 2)
	l := g.arith(vars, names, 2)
	src := fmt.Sprintf("q(x, %s, %s, z) <-- r(x, y), let z = %s, if %s", h1.dl, h2.dl, l.dl, c.dl)
	q := fmt.Sprintf("SELECT DISTINCT t.c0, %s, %s, %s FROM r AS t WHERE %s", h1.sql, h2.sql, l.sql, c.sql)
	return diffAgainstSQL(t, seed, d, rels, src, q)
}

// diffAgainstSQL evaluates the rule src and the query q and compares
// their results as sets of tuples.
func diffAgainstSQL(t *testing.T, seed uint64, d *Data, rels map[string]*gRel, src, q string) int {
	t.Helper()
	db, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	res, err := EvalRule(context.Background(), db, src)
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("seed %d: %s: %v %v", seed, src, err, res.Diagnostics)
	}
	sq := openSQLite(t, rels)
	defer sq.Close()
	want := querySQL(t, sq, q)
	got := nonEmpty(res.Tuples)
	sortTuples(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("seed %d: %s\ndata: %v\nSQL: %s\n(-sqlite +ctxql):\n%s", seed, src, dumpRels(rels), q, diff)
	}
	return len(want)
}

// diffDisjCase compares a rule whose body is a disjunction of atoms and
// conditions against a UNION of SELECTs.
func diffDisjCase(t *testing.T, seed uint64) int {
	g := &lgen{rng: rand.New(rand.NewPCG(seed, 22))}
	r, s := g.intRel("r", 2, 10, 0, 5), g.intRel("s", 1, 5, 0, 5)
	d, rels := relsData(r, s)
	var alts, sels []string
	for range 2 + g.rng.IntN(2) {
		switch g.rng.IntN(3) {
		case 0:
			c := g.cond(map[string]string{"x": "t.c0", "y": "t.c1"}, []string{"x", "y"}, 1)
			alts = append(alts, "r(x, y), if ("+c.dl+")")
			sels = append(sels, "SELECT t.c0 FROM r AS t WHERE "+c.sql)
		case 1:
			alts = append(alts, "r(y, x)")
			sels = append(sels, "SELECT t.c1 FROM r AS t")
		default:
			alts = append(alts, "s(x)")
			sels = append(sels, "SELECT t.c0 FROM s AS t")
		}
	}
	sep := []string{" || ", " | "}[g.rng.IntN(2)]
	src := "q(x) <-- (" + strings.Join(alts, sep) + ")"
	return diffAgainstSQL(t, seed, d, rels, src, strings.Join(sels, " UNION "))
}

// diffAggCase compares an aggregate grouped by a key relation against a
// LEFT JOIN … GROUP BY: count and sum of an empty group are 0, min and
// max yield nothing for it.
func diffAggCase(t *testing.T, seed uint64) int {
	g := &lgen{rng: rand.New(rand.NewPCG(seed, 23))}
	r, k := g.intRel("r", 2, 15, -5, 5), g.intRel("k", 1, 6, -5, 5)
	d, rels := relsData(r, k)
	fn := []string{"count", "sum", "min", "max"}[g.rng.IntN(4)]
	arg, sqlAgg := "v", ""
	switch fn {
	case "count":
		arg, sqlAgg = "", "COUNT(r.c0)"
	case "sum":
		sqlAgg = "COALESCE(SUM(CAST(r.c1 AS INTEGER)), 0)"
	default:
		sqlAgg = strings.ToUpper(fn) + "(CAST(r.c1 AS INTEGER))"
	}
	having := ""
	if fn == "min" || fn == "max" {
		having = " HAVING COUNT(r.c0) > 0"
	}
	var src, q string
	if g.rng.IntN(4) == 0 {
		// Ungrouped: one value over the whole relation.
		src = fmt.Sprintf("q(a) <-- agg a = %s(%s) in r(_, v)", fn, arg)
		q = "SELECT " + sqlAgg + " FROM r" + having
	} else {
		src = fmt.Sprintf("q(x, a) <-- k(x), agg a = %s(%s) in r(x, v)", fn, arg)
		q = "SELECT k.c0, " + sqlAgg + " FROM k LEFT JOIN r ON r.c0 = k.c0 GROUP BY k.c0" + having
	}
	return diffAgainstSQL(t, seed, d, rels, src, q)
}

// diffLatticeCase compares shortest distances (a Dual lattice) and best
// values (a lattice) with a Bellman-Ford loop and a maximum per key.
func diffLatticeCase(t *testing.T, seed uint64) int {
	g := &lgen{rng: rand.New(rand.NewPCG(seed, 24))}
	e := g.intRel("e", 3, 14, 0, 6)
	for _, tup := range e.tuples {
		tup[2] = strconv.Itoa(1 + g.rng.IntN(9)) // positive weights
	}
	// Distinct (from, to) pairs may now repeat with two weights; keep both.
	d, _ := relsData(e)
	db, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	src := `lattice dist(i64, i64, Dual<i64>);
dist(x, y, Dual(w)) <-- e(x, y, w);
dist(x, z, Dual(d + w)) <-- dist(x, y, ?Dual(d)), e(y, z, w);
lattice top(i64, i64);
top(x, w) <-- e(x, _, w);`
	res, err := evalWorkers(t, context.Background(), db, src)
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("seed %d: %v %v", seed, err, res.Diagnostics)
	}
	// Reference: relax every edge until nothing changes.
	dist := map[[2]int]int{}
	top := map[int]int{}
	type edge struct{ a, b, w int }
	var es []edge
	for _, tup := range e.tuples {
		a, _ := strconv.Atoi(tup[0])
		b, _ := strconv.Atoi(tup[1])
		w, _ := strconv.Atoi(tup[2])
		es = append(es, edge{a, b, w})
		if old, ok := top[a]; !ok || w > old {
			top[a] = w
		}
		if old, ok := dist[[2]int{a, b}]; !ok || w < old {
			dist[[2]int{a, b}] = w
		}
	}
	for changed := true; changed; {
		changed = false
		for k, dv := range dist {
			for _, ed := range es {
				if ed.a != k[1] {
					continue
				}
				nk := [2]int{k[0], ed.b}
				if old, ok := dist[nk]; !ok || dv+ed.w < old {
					dist[nk] = dv + ed.w
					changed = true
				}
			}
		}
	}
	var wantDist, wantTop [][]string
	for k, v := range dist {
		wantDist = append(wantDist, []string{strconv.Itoa(k[0]), strconv.Itoa(k[1]), strconv.Itoa(v)})
	}
	for k, v := range top {
		wantTop = append(wantTop, []string{strconv.Itoa(k), strconv.Itoa(v)})
	}
	for _, c := range []struct {
		name string
		want [][]string
	}{{"dist", wantDist}, {"top", wantTop}} {
		got := slices.Clone(nonEmpty(res.Relations[c.name]))
		sortTuples(got)
		want := nonEmpty(c.want)
		sortTuples(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: %s\ndata: %q\n(-reference +ctxql):\n%s", seed, c.name, e.tuples, diff)
		}
	}
	return len(wantDist)
}

// diffLangCases runs every language check for one seed and reports how
// many of them had a non-empty result.
func diffLangCases(t *testing.T, seed uint64) int {
	n := 0
	for _, f := range []func(*testing.T, uint64) int{diffArithCase, diffDisjCase, diffAggCase, diffLatticeCase} {
		if f(t, seed) > 0 {
			n++
		}
	}
	return n
}

// TestDatalogLanguageDifferential runs the language checks over a fixed
// set of seeds (DATALOG_DIFF_TIME runs them with the other differential
// checks, on fresh seeds).
func TestDatalogLanguageDifferential(t *testing.T) {
	nonEmpty := 0
	seeds := 200
	if s := os.Getenv("DATALOG_LANG_SEEDS"); s != "" {
		seeds, _ = strconv.Atoi(s)
	}
	for seed := range uint64(seeds) {
		nonEmpty += diffLangCases(t, seed)
	}
	// The generators must exercise the engine: most cases have results.
	if nonEmpty < 4*seeds/2 {
		t.Errorf("only %d of %d cases had results", nonEmpty, 4*seeds)
	}
	t.Logf("%d of %d cases with results", nonEmpty, 4*seeds)
}
