//go:build !wasm

// The SQL engines (modernc.org/sqlite, pgx) do not build for WebAssembly.

package datalog

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/internal/pgtest"
	"github.com/ctxql/ctxql/sqlgen"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// TestSQLDifferential compiles generated programs (the generator of
// TestDatalogDifferential: joins, constants, wildcards, negation over
// lower strata, recursion, data extended by rules) to SQL and runs them
// in SQLite and a temporary PostgreSQL cluster: every derived relation
// must hold the tuples the evaluator derives. A program the compiler
// refuses must be refused for a construct it names (a condition,
// non-linear recursion); the counts of both are reported.
func TestSQLDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts databases")
	}
	ctx := context.Background()
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "dl.db"), "postgres": pgtest.Start(t)}
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			db, err := engine.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			compiled, tuples, scripts := 0, 0, 0
			refused, seen := map[string]int{}, map[string]int{}
			for seed := range uint64(100) {
				src, g := sqlProgram(seed)
				n, why, script := sqlCase(t, ctx, db, seed, src, g)
				if why != "" {
					refused[why]++
					continue
				}
				if script {
					scripts++
				}
				compiled++
				tuples += n
				for _, f := range features(src) {
					seen[f]++
				}
			}
			if compiled < 70 || tuples < 300 || scripts < 10 || seen["if"] < 40 || seen["count"] < 10 || seen["not"] < 10 || seen["||"] < 5 || seen["for"] < 4 || seen["let"] < 5 ||
				seen["min"] < 5 || seen["max"] < 5 || seen["sum"] < 5 || seen["mean"] < 3 || seen["arith"] < 10 {
				t.Fatalf("only %d programs compiled, %d tuples compared, constructs %v (refused: %v)", compiled, tuples, seen, refused)
			}
			t.Logf("%s: %d generated programs answered (%d of them by a semi-naive script; programs with each construct: %v), %d derived tuples identical, 0 disagreements; refused by construct (at compile time, or on the data): %v", name, compiled, scripts, seen, tuples, refused)
		})
	}
}

// sqlProgram generates a program and its data as diffProgramCase does,
// conditions left out of half the programs so that more compile.
func sqlProgram(seed uint64) (string, *gen) {
	g := &gen{rng: rand.New(rand.NewPCG(seed, 14)), rels: map[string]*gRel{}, numHeads: true}
	g.relation("e", []string{"Int", "Int"}, 10)
	g.relation("f", []string{"Int"}, 6)
	g.relation("h", []string{"Int", "Int", "Int"}, 8)
	derived := []string{"d1", "d2", "d3"}
	arity := map[string]int{"d1": 2, "d2": 1 + g.rng.IntN(2), "d3": 1 + g.rng.IntN(3)}
	if g.rng.IntN(3) == 0 {
		g.relation("d1", []string{"Int", "Int"}, 4)
	}
	typesOf := func(n string) []string {
		if r, ok := g.rels[n]; ok {
			return r.types
		}
		ts := make([]string, arity[n])
		for i := range ts {
			ts[i] = "Int"
		}
		return ts
	}
	var rules []gRule
	add := func(r gRule) { rules = append(rules, r) }
	for i, d := range derived {
		pos := append([]string{"e", "f", "h"}, derived[:i+1]...)
		neg := append([]string{"e", "f", "h"}, derived[:i]...)
		add(g.rule(d, arity[d], append([]string{"e", "f", "h"}, derived[:i]...), neg, typesOf))
		for range g.rng.IntN(3) {
			add(g.rule(d, arity[d], pos, neg, typesOf))
		}
	}
	if g.rng.IntN(3) == 0 {
		x, y, z := gTerm{kind: 'v', name: "x"}, gTerm{kind: 'v', name: "y"}, gTerm{kind: 'v', name: "z"}
		rules = append(rules, gRule{head: gAtom{rel: "d1", args: []gTerm{x, z}},
			pos: []gAtom{{rel: "d1", args: []gTerm{x, y}}, {rel: "d1", args: []gTerm{y, z}}}, order: []byte{'p', 'p'}})
	}
	g.rng.Shuffle(len(rules), func(i, j int) { rules[i], rules[j] = rules[j], rules[i] })
	var src strings.Builder
	for _, r := range rules {
		src.WriteString(r.String() + "\n")
	}
	for range g.rng.IntN(3) {
		src.WriteString(aggRule(g, func(n string) int { return len(typesOf(n)) }) + "\n")
	}
	if g.rng.IntN(4) > 0 {
		src.WriteString(arithRules(g, func(n string) int { return len(typesOf(n)) }))
	}
	return src.String(), g
}

// sqlNums are the values of the relation m: integers mostly, at the
// edges of 18 digits and of 64 bits, and now and then a decimal, another
// spelling of a number or a string (which the database refuses to sum,
// or to order among numbers, as it cannot give the evaluator's answer).
var sqlNums = []string{"0", "1", "2", "3", "-1", "-7", "10", "12", "100", "999999999999999999", "-999999999999999999", "4611686018427387904",
	"0.5", "-0", "007", "1e2", "a", "2.50"}

// arithRules adds the data relation m (two integer columns) and rules
// of relations a1… above the others: min, max, sum and mean aggregates
// over m or a lower relation, lets of integer arithmetic, each result
// compared in a rule reading it back.
func arithRules(g *gen, arity func(string) int) string {
	m := &gRel{name: "m", types: []string{"Int", "Int"}}
	keys := []string{"0", "1", "2", "-1"}
	width := 4 + g.rng.IntN(len(sqlNums)-3)
	for range 2 + g.rng.IntN(10) {
		v := sqlNums[g.rng.IntN(width)]
		if g.rng.IntN(8) > 0 {
			v = sqlNums[g.rng.IntN(9)]
		}
		m.tuples = append(m.tuples, []string{keys[g.rng.IntN(len(keys))], v})
	}
	g.rels["m"] = m
	var src strings.Builder
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	lower := []string{"m", "m", "m", "m", "m", "m", "e", "h", "d1", "d3"}
	for i := range 1 + g.rng.IntN(3) {
		head := fmt.Sprintf("a%d", i+1)
		switch k := g.rng.IntN(10); {
		case k < 6:
			fn := []string{"min", "max", "sum", "mean"}[g.rng.IntN(4)]
			in := lower[g.rng.IntN(len(lower))]
			if arity(in) < 2 && in != "m" {
				in = "m"
			}
			args := make([]string, 2)
			if in != "m" {
				args = make([]string, arity(in))
			}
			for j := range args {
				args[j] = []string{"x", "_"}[g.rng.IntN(2)]
			}
			args[len(args)-1] = "v"
			if g.rng.IntN(4) == 0 {
				args[0] = "_" // one group: the whole relation
			}
			fmt.Fprintf(&src, "%s(x, n) <-- m(x, _), agg n = %s(v) in %s(%s);\n", head, fn, in, strings.Join(args, ", "))
		default:
			opnd := func() string {
				if g.rng.IntN(2) == 0 {
					return []string{"x", "y"}[g.rng.IntN(2)]
				}
				return []string{"0", "1", "2", "7", "-3", "999999999999999999", "3037000500"}[g.rng.IntN(7)]
			}
			op := []string{"+", "-", "*", "/", "%"}
			x := opnd() + " " + op[g.rng.IntN(5)] + " " + opnd()
			if g.rng.IntN(3) == 0 {
				x = "(" + x + ") " + op[g.rng.IntN(5)] + " " + opnd()
			}
			if g.rng.IntN(5) == 0 {
				x = "-" + opnd() + " * " + opnd()
			}
			fmt.Fprintf(&src, "%s(x, q) <-- m(x, y), let q = %s;\n", head, x)
		}
		lit := []string{"0", "1", "2", "5", "-1", "10", "1.5", "100"}[g.rng.IntN(8)]
		fmt.Fprintf(&src, "b%d(x, n) <-- %s(x, n), if n %s %s;\n", i+1, head, ops[g.rng.IntN(len(ops))], lit)
	}
	return src.String()
}

// features names the constructs of a generated program beyond atoms and
// negation.
func features(src string) []string {
	var out []string
	for _, f := range []string{"if", "count", "not", "||", "for", "let", "min", "max", "sum", "mean", "arith"} {
		if strings.Contains(src, map[string]string{"if": "if ", "count": "count()", "not": "not()", "||": "||", "for": "for ", "let": "let ",
			"min": "min(", "max": "max(", "sum": "sum(", "mean": "mean(", "arith": "let q = "}[f]) {
			out = append(out, f)
		}
	}
	return out
}

// aggRule generates a rule of d4, a relation above the others: an
// aggregate (count, not, and now and then one the compiler refuses) over
// a relation of a lower stratum, grouped by a variable of a body atom,
// its count compared, or a disjunction of conditions.
func aggRule(g *gen, arity func(string) int) string {
	lower := []string{"e", "f", "h", "d1", "d2", "d3"}
	pick := func() string { return lower[g.rng.IntN(len(lower))] }
	// The body atom binds x (its first column) and perhaps y.
	body := pick()
	args := []string{"x"}
	for i := 1; i < arity(body); i++ {
		args = append(args, []string{"_", "y"}[g.rng.IntN(2)])
	}
	hasY := slices.Contains(args, "y")
	items := []string{body + "(" + strings.Join(args, ", ") + ")"}
	lit := func() string { return diffLits[g.rng.IntN(len(diffLits))].text }
	// The aggregate's atom: the group variable x somewhere, locals, constants.
	in := pick()
	var aargs []string
	for i := range arity(in) {
		switch k := g.rng.IntN(6); {
		case i == 0 && k < 4, k == 0:
			aargs = append(aargs, "x")
		case k < 3:
			aargs = append(aargs, "_")
		case k < 5:
			aargs = append(aargs, "v")
		default:
			aargs = append(aargs, lit())
		}
	}
	atom := in + "(" + strings.Join(aargs, ", ") + ")"
	head := "d4(x, x)"
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	switch k := g.rng.IntN(15); {
	case k >= 12:
		// A generator over constant bounds, or a let of a variable or a
		// constant, compared with the data.
		lo := g.rng.IntN(4) - 1
		rng := fmt.Sprintf("%d..%d", lo, lo+g.rng.IntN(5))
		if g.rng.IntN(2) == 0 {
			rng = fmt.Sprintf("%d..=%d", lo, lo+g.rng.IntN(4))
		}
		switch k {
		case 12:
			items = append(items, "for i in "+rng, fmt.Sprintf("if i %s x", ops[g.rng.IntN(len(ops))]))
			head = "d4(x, i)"
		case 13:
			items = append(items, "let n = x", fmt.Sprintf("if n %s %s", ops[g.rng.IntN(len(ops))], lit()))
			head = "d4(n, x)"
		default:
			num := func() string { return []string{"0", "1", "2", "9", "10", "-2", "100"}[g.rng.IntN(7)] }
			items = append(items, "let n = "+num(), "let m = "+num(), fmt.Sprintf("if m %s x", ops[g.rng.IntN(len(ops))]))
			head = "d4(x, n)"
		}
	case k < 6:
		items = append(items, "agg n = count() in "+atom)
		head = "d4(x, n)"
		if g.rng.IntN(2) == 0 {
			items = append(items, fmt.Sprintf("if n %s %d", ops[g.rng.IntN(len(ops))], g.rng.IntN(4)))
		}
	case k < 9:
		items = append(items, "agg () = not() in "+atom)
	case k < 10 && slices.Contains(aargs, "v"):
		fn := []string{"min", "max", "sum", "mean"}[g.rng.IntN(4)]
		items = append(items, "agg n = "+fn+"(v) in "+atom)
		head = "d4(x, n)"
	default:
		// A disjunction of conditions, compiled as the union of its
		// alternatives.
		other := lit()
		if hasY {
			other = "y"
		}
		items = append(items, fmt.Sprintf("(if x %s %s || if x %s %s, if !(x == %s))", ops[g.rng.IntN(6)], lit(), ops[g.rng.IntN(6)], other, lit()))
	}
	return head + " <-- " + strings.Join(items, ", ") + ";"
}

// compileCase evaluates the generated program src over g's data in
// process and compiles it for dialect d: the data, the in-process result,
// the relations' schema, and the compiler's answer (a script when the
// recursion needs the driven loop).
//
// A program whose evaluation fails (an aggregate or a let computing on a
// value that is not a number, a division by zero, an overflow) has a
// result holding the error as its diagnostic: the database must refuse
// it too.
//
// opts, when given, bound the evaluation: a program exceeding them (a
// lattice improving forever) fails as one whose evaluation fails.
func compileCase(t *testing.T, ctx context.Context, seed uint64, src string, g *gen, d sqlgen.Dialect, opts ...Options) (*Data, *ProgramResult, map[string][]string, *sqlgen.Script, []sqlgen.DatalogRelation, error) {
	t.Helper()
	data := g.data()
	mem, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	res, err := EvalProgramWith(ctx, mem, "p", src, o)
	var le *LimitError
	if errors.As(err, &le) {
		res.Relations, err = nil, nil
		res.Diagnostics = append(res.Diagnostics, syntax.Diagnostic{Severity: syntax.SeverityError, Message: le.Error()})
	}
	if err != nil || len(res.Diagnostics) > 0 && (len(res.Info.Diagnostics) > 0 || len(res.Program.Diagnostics) > 0 || res.Relations != nil) {
		t.Fatalf("seed %d: %s: %v %v", seed, src, err, res.Diagnostics)
	}
	schema := map[string][]string{}
	for n, r := range data.Relations {
		schema[n] = r.ParamTypes
	}
	prog := syn.ParseProgram("p", src)
	info := syn.Check(prog, schema)
	var outputs []string
	for _, st := range info.Strata {
		outputs = append(outputs, st...)
	}
	var rels []sqlgen.DatalogRelation
	var script *sqlgen.Script
	if sqlgen.NeedsScript(prog, info) {
		script, rels, err = sqlgen.CompileDatalogScript(prog, info, schema, d, outputs)
	} else {
		rels, err = sqlgen.CompileDatalog(prog, info, schema, d, outputs)
	}
	return data, res, schema, script, rels, err
}

// sqlCase evaluates src in process and in the database; it returns the
// tuples compared, or the construct the compiler refused.
func sqlCase(t *testing.T, ctx context.Context, db *engine.DB, seed uint64, src string, g *gen, opts ...Options) (n int, refused string, scripted bool) {
	t.Helper()
	data, res, schema, script, rels, err := compileCase(t, ctx, seed, src, g, db.Dialect(), opts...)
	var ue *sqlgen.UnsupportedError
	if errors.As(err, &ue) {
		return 0, refusedName(ue), false
	}
	if err != nil {
		t.Fatalf("seed %d: %s: %v", seed, src, err)
	}
	_, err = db.Load(ctx, sqlgen.DatalogTables(schema), func(emit func(string, []any) error) error {
		return sqlgen.DatalogRows(schema, func(rel string) [][]string { return data.Relations[rel].Tuples }, emit)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][][]string{}
	var results [][][]any
	if script != nil {
		var qs []string
		for _, r := range rels {
			qs = append(qs, r.SQL)
		}
		results, err = db.RunScript(ctx, script, qs)
	} else {
		for _, r := range rels {
			var rows [][]any
			if rows, err = db.Rows(ctx, r.SQL); err != nil {
				break
			}
			results = append(results, rows)
		}
	}
	// A construct the database cannot compute as the evaluator does on
	// this data is refused by the statement: the evaluator may fail on
	// it too, or answer.
	if errors.As(err, &ue) {
		if strings.Contains(ue.Why, "does not terminate") && len(res.Diagnostics) == 0 {
			t.Fatalf("seed %d: %s\nthe database refuses (%v), the evaluator answers", seed, src, ue)
		}
		return 0, "on the data: " + refusedName(ue), false
	}
	if err != nil {
		t.Fatalf("seed %d: %s\n%v", seed, src, err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatalf("seed %d: %s\nthe evaluator fails (%v), the database answers", seed, src, res.Diagnostics)
	}
	for i, r := range rels {
		rows := results[i]
		ts := [][]string{}
		for _, row := range rows {
			tup := make([]string, len(row))
			for k, v := range row {
				tup[k] = fmt.Sprint(textValue(v))
			}
			ts = append(ts, tup)
		}
		sqlgen.SortTuples(ts)
		got[r.Name] = ts
		n += len(ts)
	}
	want := map[string][][]string{}
	for k, v := range res.Relations {
		want[k] = nonEmpty(v)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("seed %d:\n%s\ndata: %s\n(-in process +%s):\n%s", seed, src, dumpRels(g.rels), db.Dialect(), d)
	}
	return n, "", script != nil
}

// refusedName is the construct a refusal names, without its arguments:
// "agg sum", "let q = x / y" → "let q".
func refusedName(ue *sqlgen.UnsupportedError) string {
	construct := ue.Construct
	if strings.HasPrefix(construct, "agg ") {
		// agg n = sum(v) in r(x, v): agg sum
		if _, fn, ok := strings.Cut(construct, "= "); ok {
			construct = "agg " + fn
		}
	}
	if i := strings.IndexAny(construct, "(="); i > 0 {
		construct = strings.TrimSpace(construct[:i])
	}
	if strings.HasPrefix(construct, "the lattice ") && strings.Count(construct, " ") == 2 {
		// Why a lattice is refused on the data: "its values mix numbers
		// and other text …" → "values mix numbers".
		w := strings.Fields(ue.Why)
		construct += ": " + strings.Join(w[:min(4, len(w))], " ")
	}
	return construct
}

func textValue(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

// TestSQLDifferentialDuckDB runs TestSQLDifferential's generated programs
// compiled to DuckDB's SQL in DuckDB (through @duckdb/node-api, all in one
// process, each program in a schema of its own), recursive CTEs and
// semi-naive scripts alike.
func TestSQLDifferentialDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	duckdbtest.Available(t)
	r := duckDBDiff(t, 100, sqlProgram)
	seen, refused := r.seen, r.refused
	if r.answered < 70 || r.scripts < 10 || r.tuples < 300 || seen["if"] < 40 || seen["count"] < 10 || seen["not"] < 10 || seen["||"] < 5 || seen["for"] < 4 || seen["let"] < 5 ||
		seen["min"] < 5 || seen["max"] < 5 || seen["sum"] < 5 || seen["mean"] < 3 || seen["arith"] < 10 {
		t.Fatalf("only %d programs compiled (%d scripts), %d tuples compared, constructs %v (refused: %v)", r.compiled, r.scripts, r.tuples, seen, refused)
	}
	t.Logf("duckdb: %d generated programs compiled, %d of them answered (%d to a semi-naive script; answered programs with each construct: %v), %d derived tuples identical, 0 disagreements; refused by construct (at compile time, or on the data): %v", r.compiled, r.answered, r.scripts, seen, r.tuples, refused)
}

// duckDBResult counts what duckDBDiff compared.
type duckDBResult struct {
	compiled, answered, scripts, tuples int
	seen, refused                       map[string]int
}

// duckDBDiff compiles the programs generate gives for seeds 0…n-1 to
// DuckDB's SQL and runs them in DuckDB (through @duckdb/node-api, all in
// one process, each program in a schema of its own): every derived
// relation must hold the evaluator's tuples, and a program whose
// evaluation fails (or exceeds opts) must be refused.
func duckDBDiff(t *testing.T, n uint64, generate func(uint64) (string, *gen), opts ...Options) duckDBResult {
	t.Helper()
	ctx := context.Background()
	type program struct {
		seed    uint64
		src     string
		want    map[string][][]string
		rels    []sqlgen.DatalogRelation
		evalErr bool
	}
	var progs []program
	var items []duckdbtest.Item
	refused, seen, scripts := map[string]int{}, map[string]int{}, 0
	for seed := range n {
		src, g := generate(seed)
		data, res, schema, script, rels, err := compileCase(t, ctx, seed, src, g, sqlgen.DuckDB, opts...)
		var ue *sqlgen.UnsupportedError
		if errors.As(err, &ue) {
			refused[strings.TrimSpace(strings.SplitN(ue.Construct, "(", 2)[0])]++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		schemaName := fmt.Sprintf("p%d", seed)
		items = append(items, duckdbtest.Item{Exec: "CREATE SCHEMA " + schemaName}, duckdbtest.Item{Exec: "SET schema = '" + schemaName + "'"})
		tables := map[string]sqlgen.Table{}
		for _, tb := range sqlgen.DatalogTables(schema) {
			for _, s := range tb.Create(sqlgen.DuckDB)[1:] {
				items = append(items, duckdbtest.Item{Exec: s})
			}
			tables[tb.Name] = tb
		}
		err = sqlgen.DatalogRows(schema, func(rel string) [][]string { return data.Relations[rel].Tuples }, func(table string, row []any) error {
			s, err := tables[table].InsertLiteral(sqlgen.DuckDB, row)
			items = append(items, duckdbtest.Item{Exec: s})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		first := len(items)
		if script != nil {
			scripts++
			for _, st := range script.Steps {
				if st.Loop {
					items = append(items, duckdbtest.Item{Loop: st.Stmts, Count: st.Count})
					continue
				}
				for _, s := range st.Stmts {
					// Temporary tables live in DuckDB's temp schema, one for all
					// programs: the script drops and creates them afresh.
					items = append(items, duckdbtest.Item{Exec: s})
				}
			}
		}
		for _, r := range rels {
			items = append(items, duckdbtest.Item{Read: r.SQL})
		}
		// The statements of a program after its tables are filled fail
		// as a group: a refusal on the data ends the program only.
		for i := first; i < len(items); i++ {
			items[i].Group = schemaName
		}
		want := map[string][][]string{}
		for k, v := range res.Relations {
			want[k] = nonEmpty(v)
		}
		progs = append(progs, program{seed, src, want, rels, len(res.Diagnostics) > 0})
	}
	results, failed, err := duckdbtest.RunGroups(t, items)
	if err != nil {
		t.Fatal(err)
	}
	tuples, onData := 0, 0
	for _, p := range progs {
		if msg, ok := failed[fmt.Sprintf("p%d", p.seed)]; ok {
			ue := sqlgen.Refused(errors.New(msg), sqlgen.DuckDB)
			if ue == nil {
				t.Fatalf("seed %d:\n%s\nduckdb: %s", p.seed, p.src, msg)
			}
			if strings.Contains(ue.Why, "does not terminate") && !p.evalErr {
				t.Fatalf("seed %d:\n%s\nDuckDB refuses (%v), the evaluator answers", p.seed, p.src, ue)
			}
			refused["on the data: "+refusedName(ue)]++
			onData++
			results = results[len(p.rels):]
			continue
		}
		if p.evalErr {
			t.Fatalf("seed %d:\n%s\nthe evaluator fails, DuckDB answers", p.seed, p.src)
		}
		got := map[string][][]string{}
		for _, r := range p.rels {
			ts := [][]string{}
			for _, row := range results[0] {
				tup := make([]string, len(row))
				for k, v := range row {
					tup[k] = *v
				}
				ts = append(ts, tup)
			}
			results = results[1:]
			sqlgen.SortTuples(ts)
			got[r.Name] = ts
			tuples += len(ts)
		}
		if d := cmp.Diff(p.want, got); d != "" {
			t.Fatalf("seed %d:\n%s\n(-in process +duckdb):\n%s", p.seed, p.src, d)
		}
		for _, f := range features(p.src) {
			seen[f]++
		}
	}
	return duckDBResult{compiled: len(progs), answered: len(progs) - onData, scripts: scripts, tuples: tuples, seen: seen, refused: refused}
}
