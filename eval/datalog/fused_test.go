package datalog

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fusedPrograms exercise the fused tail of the last join (joinFused):
// conditions between the row it reads, the binding and constants, of
// every operator, and heads of variables and constants.
var fusedPrograms = []string{
	// Recursion with an inequality between the two join sides.
	"tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), tc(y, z), if x != z;",
	// Against a constant of the data, on either side, and one no row holds.
	`q(x, z) <-- e(x, y), e(y, z), if z != "3";`,
	`q(y) <-- e(x, y), e(y, z), if "1" != z;`,
	`q(x, z) <-- e(x, y), e(y, z), if z == "2";`,
	`q(x, z) <-- e(x, y), e(y, z), if z != "absent";`,
	// Orderings, against the binding, a constant and the row itself.
	"q(x, z) <-- e(x, y), e(y, z), if x < z;",
	"q(x, z) <-- e(x, y), e(y, z), if z <= x;",
	`q(x, z) <-- e(x, y), e(y, z), if z > "2";`,
	`q(x, z) <-- e(x, y), e(y, z), if "2" >= z;`,
	`q(x, z) <-- e(x, y), e(y, z), if z < "10";`,
	"q(a, b) <-- e(x, y), t(y, a, b), if a >= b;",
	// A head of three columns with a constant, and an equality.
	`q(x, "k", z) <-- e(x, y), e(y, z), if x == z;`,
	// Both sides from the row the last join reads.
	"q(a, b) <-- e(x, y), t(y, a, b), if a != b;",
	"q(x, a) <-- e(x, y), t(y, a, b), if a == b, if x != a;",
	// A head whose columns all come from the earlier binding.
	"q(x) <-- e(x, y), e(y, z), if x != z;",
	// Recursion through two relations.
	"p(x, y) <-- e(x, y);\nr(x, z) <-- p(x, y), e(y, z), if x != z;\np(x, z) <-- r(x, y), p(y, z), if y < z;",
	// Streamed plans: three atoms (variables dying on the way), a
	// repeated variable, a negation and a condition decided before the
	// last atom, constants in the first atom, existence checks, and
	// same-generation.
	"q(x, w) <-- e(x, y), e(y, z), e(z, w);",
	"q(x, z) <-- e(x, y), e(y, y), e(y, z);",
	"q(x, z) <-- e(x, y), !e(y, x), e(y, z), if x < y;",
	`q(x, z) <-- e(x, "1"), e(x, z);`,
	"q(x) <-- e(x, y), e(y, _), t(x, _, _);",
	"q(a, b) <-- t(x, a, b), e(x, y), e(y, a);",
	"sg(x, y) <-- e(x, a), e(y, a), if x != y;\nsg(x, y) <-- e(x, a), e(y, b), sg(a, b);",
}

// TestFusedTailAgrees pins that rules whose conditions and head run in
// the last join's loop derive what the general path derives. The data
// are random over a small pool of values, as text or as numbers (with
// non-canonical forms such as "01", "1.0" and "-0" and some text among
// them), or over more values than a set's bitmap holds.
func TestFusedTailAgrees(t *testing.T) {
	runs, derived := 0, 0
	for _, typ := range []string{"A", "i64"} {
		for _, wide := range []bool{false, true} {
			seeds := uint64(12)
			if wide {
				seeds = 3
			}
			for seed := range seeds {
				db := fusedData(t, seed, typ, wide)
				for _, src := range fusedPrograms {
					want := evalRelations(t, db, src, Options{MaxTuples: -1, general: true})
					got := evalRelations(t, db, src, Options{MaxTuples: -1})
					if d := cmp.Diff(want, got); d != "" {
						t.Fatalf("seed %d (%s, wide %v):\n%s\n(-general +fused):\n%s", seed, typ, wide, src, d)
					}
					runs++
					for _, ts := range want {
						if len(ts) > 0 {
							derived++
							break
						}
					}
				}
			}
		}
	}
	// The data must meet the rules: most runs derive something.
	if derived < runs*3/4 {
		t.Errorf("only %d of %d runs derived tuples", derived, runs)
	}
}

// fusedValues are the pool's values: integers, other numbers that equal
// some of them, and text.
var fusedValues = []string{"0", "1", "2", "3", "10", "-1", "01", "1.0", "-0", "2e0", "x", "9223372036854775807", "99999999999999999999"}

// fusedData returns relations e(T, T) and t(T, T, T) over a few of
// fusedValues or (wide) also over 9,000 values more, too many for a
// set's bitmap.
func fusedData(t *testing.T, seed uint64, typ string, wide bool) *DB {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	pool := 6 + rng.IntN(6)
	val := func() string { return fusedValues[rng.IntN(len(fusedValues))%pool] }
	e := &RelationData{ParamTypes: []string{typ, typ}}
	tt := &RelationData{ParamTypes: []string{typ, typ, typ}}
	if wide {
		// Values the rules never meet fill the id space.
		for i := range 9000 {
			e.Tuples = append(e.Tuples, []string{fmt.Sprint(100000 + i), fmt.Sprint(100000 + i)})
		}
	}
	for range 3 * pool {
		e.Tuples = append(e.Tuples, []string{val(), val()})
		tt.Tuples = append(tt.Tuples, []string{val(), val(), val()})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"e": e, "t": tt}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func evalRelations(t *testing.T, db *DB, src string, opts Options) map[string][][]string {
	t.Helper()
	res, err := EvalProgramWith(context.Background(), db, "p", src, opts)
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("%s: %v %v", src, err, res.Diagnostics)
	}
	out := map[string][][]string{}
	for k, v := range res.Relations {
		out[k] = nonEmpty(v)
	}
	return out
}

// TestFusedTailBudget pins that the tuple budget holds on the fused path.
func TestFusedTailBudget(t *testing.T) {
	db := chainDB(t, 200)
	_, err := EvalProgramWith(context.Background(), db, "p", generalTC, Options{MaxTuples: 1000})
	var le *LimitError
	if !errors.As(err, &le) || le.Max != 1000 {
		t.Fatalf("err = %v, want the budget of 1000 tuples", err)
	}
}

// nonEmpty returns ts, or an empty list for nil, so that results compare
// alike.
func nonEmpty(ts [][]string) [][]string {
	if ts == nil {
		return [][]string{}
	}
	return ts
}
