package datalog

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFusedTailAgrees pins that a rule whose conditions and head run in
// the last join's loop (see joinFused) derives what the same rule derives
// through the general path. Each program's twin adds to its last rule a
// condition that is always true but keeps the rule off the fused path
// ("v <= v" does not compare ids). The data are random over a small pool,
// or over more values than a set's bitmap holds.
func TestFusedTailAgrees(t *testing.T) {
	programs := []string{
		// Recursion with an inequality between the two join sides.
		"tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), tc(y, z), if x != z",
		// Against a constant of the data, on either side.
		`q(x, z) <-- e(x, y), e(y, z), if z != "v3"`,
		`q(y) <-- e(x, y), e(y, z), if "v1" != z`,
		`q(x, z) <-- e(x, y), e(y, z), if z == "v2"`,
		// A constant no row holds.
		`q(x, z) <-- e(x, y), e(y, z), if z != "absent"`,
		// A head of three columns with a constant, and an equality.
		`q(x, "k", z) <-- e(x, y), e(y, z), if x == z`,
		// Both sides from the row the last join reads.
		"q(a, b) <-- e(x, y), t(y, a, b), if a != b",
		"q(x, a) <-- e(x, y), t(y, a, b), if a == b, if x != a",
		// A head whose columns all come from the earlier binding.
		"q(x) <-- e(x, y), e(y, z), if x != z",
		// Recursion through two relations.
		"p(x, y) <-- e(x, y);\nr(x, z) <-- p(x, y), e(y, z), if x != z;\np(x, z) <-- r(x, y), p(y, z), if y != z",
	}
	for _, wide := range []bool{false, true} {
		seeds := uint64(12)
		if wide {
			seeds = 3
		}
		for seed := range seeds {
			db := fusedData(t, seed, wide)
			for _, src := range programs {
				twin := twinOf(src)
				want := evalRelations(t, db, twin)
				got := evalRelations(t, db, src)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("seed %d (wide %v):\n%s\n(-general +fused):\n%s", seed, wide, src, d)
				}
			}
		}
	}
}

// twinOf adds to the last rule of src a condition that always holds and
// is decided on the values, not on ids.
func twinOf(src string) string {
	body := src[strings.LastIndex(src, "<--"):]
	v := body[strings.Index(body, "(")+1:]
	v = v[:strings.IndexAny(v, ",)")]
	return fmt.Sprintf("%s, if %s <= %s;", src, v, v)
}

// fusedData returns relations e(A, A) and t(A, A, A) over a pool of a
// few values, or (wide) over 9,000 values, too many for a set's bitmap.
func fusedData(t *testing.T, seed uint64, wide bool) *DB {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	pool := 6 + rng.IntN(6)
	val := func() string { return fmt.Sprint("v", rng.IntN(pool)) }
	e := &RelationData{ParamTypes: []string{"A", "A"}}
	tt := &RelationData{ParamTypes: []string{"A", "A", "A"}}
	if wide {
		// Values the rules never meet fill the id space.
		for i := range 9000 {
			e.Tuples = append(e.Tuples, []string{fmt.Sprint("w", i), fmt.Sprint("w", i)})
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

func evalRelations(t *testing.T, db *DB, src string) map[string][][]string {
	t.Helper()
	if !strings.HasSuffix(src, ";") {
		src += ";"
	}
	res, err := EvalProgramWith(context.Background(), db, "p", src, Options{MaxTuples: -1})
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
