//go:build !wasm

package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/internal/pgtest"
)

// latticeOpts bound the evaluation of generated lattice programs: one
// whose values improve forever (a cycle of negative weights under Dual,
// of positive ones under max) exceeds them, and the database must refuse
// it.
var latticeOpts = Options{MaxTuples: 20_000}

// latticeProgram generates a lattice program over random weighted
// graphs: shortest paths (Dual, from every node or from sources), longest
// paths and max (or min) propagation of node values, now and then in a
// stratum with a relation that is not a lattice, read by a higher
// stratum with a condition, an aggregate or arithmetic in a head; and, in about one program of
// four, a rule that is not monotone (the value doubled, subtracted from
// a weight, compared, negated, put in a key column, read by a relation
// of its stratum that is not a lattice, or by a lattice of the opposite
// order), which the compiler must refuse. mono reports which.
func latticeProgram(seed uint64) (src string, g *gen, mono bool) {
	g = &gen{rng: rand.New(rand.NewPCG(seed, 34)), rels: map[string]*gRel{}}
	rng := g.rng
	nodes := 3 + rng.IntN(5)
	node := func() string { return fmt.Sprint(1 + rng.IntN(nodes)) }
	// Weights: small non-negative integers; now and then negative ones
	// (a negative cycle makes shortest paths improve forever).
	neg := rng.IntN(6) == 0
	dag := rng.IntN(2) == 0
	e := &gRel{name: "e", types: []string{"Int", "Int", "Int"}}
	for range 2 + rng.IntN(3*nodes) {
		x, y := node(), node()
		if dag && x >= y {
			if x == y {
				continue
			}
			x, y = y, x
		}
		w := rng.IntN(10)
		if neg {
			w -= 4
		}
		e.tuples = append(e.tuples, []string{x, y, fmt.Sprint(w)})
	}
	g.rels["e"] = e
	s := &gRel{name: "s", types: []string{"Int"}}
	for range 1 + rng.IntN(2) {
		s.tuples = append(s.tuples, []string{node()})
	}
	g.rels["s"] = s
	// Node values: integers, now and then a decimal, another spelling of
	// a number or text (which the database refuses to order as the
	// evaluator does when mixed with numbers or spelled two ways).
	vals := []string{"0", "1", "5", "12", "-3", "100", "7"}
	if rng.IntN(2) == 0 {
		x := []string{"2.5", "05", "a", "b", "1.0"}[rng.IntN(5)]
		vals = append(vals, x, x, x)
	}
	if rng.IntN(8) == 0 {
		vals = []string{"a", "b", "ab", "z", "B"}
	}
	v := &gRel{name: "v", types: []string{"Int", "Int"}}
	for range 1 + rng.IntN(nodes) {
		v.tuples = append(v.tuples, []string{node(), vals[rng.IntN(len(vals))]})
	}
	g.rels["v"] = v

	var b strings.Builder
	mono = rng.IntN(4) > 0
	dual := "Dual<Int>"
	wrap := func(x string) string { return "Dual(" + x + ")" }
	kind := rng.IntN(5)
	if kind == 2 || kind == 3 && rng.IntN(2) == 0 {
		dual = "Int"
		wrap = func(x string) string { return x }
	}
	// step is the monotone value of a rule reading d along an edge of
	// weight w.
	step := []string{"d + w", "w + d", "d"}[rng.IntN(3)]
	if !dag && dual == "Int" && step != "d" {
		step = "d" // a positive cycle: longest paths improve forever
		if rng.IntN(4) == 0 {
			step = "d + w"
		}
	}
	switch kind {
	case 0, 1, 2:
		// Shortest (Dual) or longest paths, from every node or from the
		// sources.
		fmt.Fprintf(&b, "lattice p(Int, Int, %s);\n", dual)
		fmt.Fprintf(&b, "p(x, y, %s) <-- e(x, y, w);\n", wrap("w"))
		form := rng.IntN(4)
		if form == 3 && dual == "Int" && !dag {
			// Non-linear rules over cycles that improve values double
			// them each round: the evaluator takes long to stop.
			form = 0
		}
		if form == 3 && neg {
			form = 0
		}
		switch form {
		case 3:
			// Non-linear: two paths joined, their values summed.
			fmt.Fprintf(&b, "p(x, z, %s) <-- p(x, y, d), p(y, z, l);\n", wrap("d + l"))
		case 0:
			fmt.Fprintf(&b, "p(x, z, %s) <-- p(x, y, ?Dual(d)), e(y, z, w);\n", wrap(step))
		case 1:
			fmt.Fprintf(&b, "p(x, z, %s) <-- e(x, y, w), p(y, z, d);\n", wrap(step))
		default:
			// From the sources: a second lattice of the same stratum.
			fmt.Fprintf(&b, "lattice q(Int, %s);\n", dual)
			fmt.Fprintf(&b, "q(y, %s) <-- s(x), e(x, y, w);\n", wrap("w"))
			fmt.Fprintf(&b, "q(z, %s) <-- q(y, d), e(y, z, w);\n", wrap(step))
			fmt.Fprintf(&b, "p(x, z, %s) <-- s(x), q(z, d), p(x, _, _);\n", wrap("d"))
		}
	default:
		// Propagation of node values along the edges: max, or min with
		// Dual.
		fmt.Fprintf(&b, "lattice p(Int, %s);\n", dual)
		fmt.Fprintf(&b, "p(x, %s) <-- v(x, m);\n", wrap("m"))
		fmt.Fprintf(&b, "p(y, %s) <-- p(x, m), e(x, y, _);\n", wrap("m"))
		if rng.IntN(2) == 0 {
			// With a relation of the stratum that is not a lattice,
			// reading its keys only.
			b.WriteString("r(x, y) <-- e(x, y, _), p(x, _);\n")
			fmt.Fprintf(&b, "p(y, %s) <-- r(x, y), p(x, m);\n", wrap("m"))
		}
	}
	if !mono {
		// Inside the stratum, a rule that is not monotone.
		arity := strings.Count(b.String()[:strings.Index(b.String(), ")")], ",") + 1
		key := "x, "
		if arity == 3 {
			key = "x, z, "
		}
		body := "p(" + key + "d), e(z, x, w)"
		if arity == 2 {
			body = "p(x, d), e(x, z, w)"
			key = "z, "
		}
		switch rng.IntN(7) {
		case 0:
			fmt.Fprintf(&b, "p(%s%s) <-- %s;\n", key, wrap("d * 2"), body)
		case 1:
			fmt.Fprintf(&b, "p(%s%s) <-- %s;\n", key, wrap("w - d"), body)
		case 2:
			fmt.Fprintf(&b, "p(%s%s) <-- %s, if d < 5;\n", key, wrap("d"), body)
		case 3:
			fmt.Fprintf(&b, "p(%s%s) <-- %s;\n", key, wrap("-d"), body)
		case 4:
			if arity == 3 {
				fmt.Fprintf(&b, "p(x, d, %s) <-- %s;\n", wrap("w"), body)
			} else {
				fmt.Fprintf(&b, "p(d, %s) <-- %s;\n", wrap("w"), body)
			}
		case 5:
			fmt.Fprintf(&b, "t(z, d) <-- %s;\np(%s%s) <-- t(z, w), e(z, x, _);\n", body, key, wrap("w"))
		default:
			other := "Int"
			if dual == "Int" {
				other = "Dual<Int>"
			}
			ow := func(x string) string { return x }
			if other != "Int" {
				ow = func(x string) string { return "Dual(" + x + ")" }
			}
			fmt.Fprintf(&b, "lattice o(Int, %s);\no(z, %s) <-- %s;\np(%s%s) <-- o(z, d), e(z, x, w);\n", other, ow("d"), body, key, wrap("d"))
		}
	}
	// Higher strata read the final values: a condition, an aggregate, a
	// lattice of one column (the best value of all).
	arity3 := strings.HasPrefix(b.String(), "lattice p(Int, Int,")
	if rng.IntN(3) == 0 {
		fmt.Fprintf(&b, "lattice top(%s);\n", dual)
		if arity3 {
			b.WriteString("top(d) <-- p(_, _, d);\n")
		} else {
			b.WriteString("top(d) <-- p(_, d);\n")
		}
	}
	if rng.IntN(2) == 0 {
		// Arithmetic in the head of a set relation.
		if arity3 {
			b.WriteString("less(x, y, d - 1) <-- p(x, y, d);\n")
		} else {
			b.WriteString("less(x, m - 1) <-- p(x, m);\n")
		}
	}
	if arity3 {
		fmt.Fprintf(&b, "far(x, y) <-- p(x, y, d), if d > %d;\n", rng.IntN(8))
		if rng.IntN(2) == 0 {
			b.WriteString("reach(x, n) <-- s(x), agg n = count() in p(x, _, _);\n")
		}
	} else {
		fmt.Fprintf(&b, "big(x) <-- p(x, m), if m >= %d;\n", rng.IntN(10))
	}
	return b.String(), g, mono
}

// TestSQLLattice compiles generated lattice programs (latticeProgram) to
// SQLite's and PostgreSQL's SQL and runs their semi-naive scripts: every
// derived relation must hold the evaluator's tuples; a program that is
// not monotone must be refused by the compiler, naming the construct; a
// program whose values improve forever, or whose values the database
// cannot order as the evaluator does, must be refused on the data.
func TestSQLLattice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts databases")
	}
	ctx := context.Background()
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "lat.db"), "postgres": pgtest.Start(t)}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			db, err := engine.Open(ctx, urls[name])
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			answered, tuples, nonMono := 0, 0, 0
			refused, seen := map[string]int{}, map[string]int{}
			for seed := range uint64(latticeSeeds) {
				src, g, mono := latticeProgram(seed)
				if !mono {
					nonMono++
				}
				n, why, _ := sqlCase(t, ctx, db, seed, src, g, latticeOpts)
				checkLatticeRefusal(t, seed, src, mono, why)
				if why != "" {
					refused[why]++
					continue
				}
				answered++
				tuples += n
				for _, f := range latticeFeatures(src) {
					seen[f]++
				}
			}
			checkLatticeCounts(t, answered, tuples, nonMono, refused)
			if seen["Dual"] < 30 || seen["max"] < 25 || seen["paths"] < 30 || seen["propagation"] < 20 || seen["two lattices"] < 10 || seen["with a set relation"] < 5 || seen["one column"] < 20 || seen["non-linear"] < 10 || seen["head arithmetic"] < 30 {
				t.Fatalf("answered programs with each construct: %v", seen)
			}
			t.Logf("%s: %d generated lattice programs, %d answered (programs with each construct: %v; %d derived tuples identical), 0 disagreements; refused (at compile time, or on the data): %v", name, latticeSeeds, answered, seen, tuples, refused)
		})
	}
}

// latticeSeeds is the number of generated lattice programs.
const latticeSeeds = 200

// latticeFeatures names the kinds of a generated lattice program.
func latticeFeatures(src string) []string {
	var out []string
	for _, f := range []struct{ name, text string }{{"Dual", "Dual<"}, {"max", ", Int);"}, {"paths", "lattice p(Int, Int,"}, {"propagation", "v(x, m)"},
		{"two lattices", "lattice q"}, {"with a set relation", "\nr(x, y) <--"}, {"one column", "lattice top"}, {"non-linear", "d + l"}, {"head arithmetic", "less("}} {
		if strings.Contains(src, f.text) {
			out = append(out, f.name)
		}
	}
	return out
}

// checkLatticeCounts fails unless enough programs were answered and
// refused, on the data for each reason.
func checkLatticeCounts(t *testing.T, answered, tuples, nonMono int, refused map[string]int) {
	t.Helper()
	onData := func(why string) int {
		n := 0
		for k, v := range refused {
			if strings.HasPrefix(k, "on the data: ") && strings.Contains(k, why) {
				n += v
			}
		}
		return n
	}
	if answered < 120 || tuples < 1200 || nonMono < 30 || onData("values mix numbers") < 1 || onData("a number among") < 1 || onData("keep improving") < 1 {
		t.Fatalf("only %d lattice programs answered, %d tuples compared, %d not monotone (refused: %v)", answered, tuples, nonMono, refused)
	}
}

// checkLatticeRefusal fails when a program that is not monotone compiled,
// or a monotone one was refused at compile time.
func checkLatticeRefusal(t *testing.T, seed uint64, src string, mono bool, why string) {
	t.Helper()
	compileRefused := why != "" && !strings.HasPrefix(why, "on the data: ")
	if mono == compileRefused {
		t.Fatalf("seed %d: monotone %v, refused %q:\n%s", seed, mono, why, src)
	}
}

// TestSQLLatticeDuckDB runs TestSQLLattice's programs in DuckDB.
func TestSQLLatticeDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	duckdbtest.Available(t)
	monos := map[uint64]bool{}
	r := duckDBDiff(t, latticeSeeds, func(seed uint64) (string, *gen) {
		src, g, mono := latticeProgram(seed)
		monos[seed] = mono
		return src, g
	}, latticeOpts)
	nonMono := 0
	for _, m := range monos {
		if !m {
			nonMono++
		}
	}
	compileRefused := 0
	for why, n := range r.refused {
		if !strings.HasPrefix(why, "on the data: ") {
			compileRefused += n
		}
	}
	if compileRefused != nonMono {
		t.Fatalf("%d programs not monotone, %d refused at compile time (refused: %v)", nonMono, compileRefused, r.refused)
	}
	checkLatticeCounts(t, r.answered, r.tuples, nonMono, r.refused)
	t.Logf("duckdb: %d generated lattice programs, %d answered (%d derived tuples identical), 0 disagreements; refused (at compile time, or on the data): %v", latticeSeeds, r.answered, r.tuples, r.refused)
}
