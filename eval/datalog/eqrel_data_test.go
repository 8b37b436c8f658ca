package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDataDS pins that an eqrel or a trrel whose tuples all come from the
// data is what its attribute promises, as if a rule had copied the data
// into it: for random pair sets (with and without a key column), a
// program reading the relation straight from the data and one deriving it
// from a plain relation of the same tuples give the same rows, for a rule
// reading the relation, one joining it, one negating it and for the
// relation itself.
func TestDataDS(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	for _, ds := range []string{"eqrel", "trrel"} {
		for _, keyed := range []bool{false, true} {
			for seed := range 12 {
				var tuples [][]string
				n := 2 + rng.IntN(9)
				for range rng.IntN(14) {
					row := []string{fmt.Sprint(rng.IntN(n)), fmt.Sprint(rng.IntN(n))}
					if keyed {
						row = append([]string{fmt.Sprint(rng.IntN(2))}, row...)
					}
					tuples = append(tuples, row)
				}
				types := []string{"i64", "i64"}
				k, kt := "", ""
				if keyed {
					types, k, kt = append([]string{"i64"}, types...), "k, ", "i64, "
				}
				rules := fmt.Sprintf(`relation node(i64);
node(x) <-- for x in 0..%d;
relation out(%si64, i64);
out(%sx, y) <-- r(%sx, y);
relation via(%si64, i64);
via(%sx, z) <-- r(%sx, y), r(%sy, z), if x != z;
relation apart(i64, i64);
apart(x, y) <-- node(x), node(y), !r(%sx, y);
`, n, kt, k, k, kt, k, k, k, strings0(keyed))
				decl := fmt.Sprintf("#[ds(ascent_byods_rels::%s)]\nrelation r(%si64, i64);\n", ds, kt)
				direct := decl + rules
				copied := fmt.Sprintf("relation e(%si64, i64);\n", kt) + decl + fmt.Sprintf("r(%sx, y) <-- e(%sx, y);\n", k, k) + rules
				got := evalDS(t, "r", tuples, types, direct)
				want := evalDS(t, "e", tuples, types, copied)
				delete(want, "e")
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s keyed=%v seed %d, data %v: from the data (+) and copied by a rule (-) differ:\n%s", ds, keyed, seed, tuples, diff)
				}
			}
		}
	}
}

// strings0 is the key argument of the negated atom: the key 0.
func strings0(keyed bool) string {
	if keyed {
		return "0, "
	}
	return ""
}

func evalDS(t *testing.T, rel string, tuples [][]string, types []string, src string) map[string][]string {
	t.Helper()
	db, err := Load(&Data{Relations: map[string]*RelationData{rel: {ParamTypes: types, Tuples: tuples}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := EvalProgram(context.Background(), db, "p", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatalf("%v\n%s", res.Diagnostics, src)
	}
	out := map[string][]string{}
	for name, rows := range res.Relations {
		if name == "node" {
			continue
		}
		var s []string
		for _, r := range rows {
			s = append(s, fmt.Sprint(r))
		}
		slices.Sort(s)
		out[name] = s
	}
	return out
}
