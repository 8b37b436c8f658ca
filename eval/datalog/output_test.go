package datalog

import (
	"bytes"
	"context"
	"fmt"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// outputValues are values whose JSON encodings take every path of the
// writer: plain text, characters JSON escapes (quotes,
// backslashes, HTML, control bytes, U+2028), invalid UTF-8 and other
// Unicode.
var outputValues = []string{"a", "b", "", "10", "9", `"q"`, `back\slash`, "<tag>", "a&b", "tab\there",
	"nl\n", "\x00\x01\x1f\x7f", "\u2028\u2029", "bad\xffutf8", "é", "日本", "{ p1 | q }", "zz"}

// TestRowsWriteJSON checks that Rows.WriteJSON, WriteJSONContext and
// WriteRelationsJSON write exactly what jsonenc.Marshal writes for Tuples
// and for the map of relations, and that Tuples are sorted, distinct and complete, for
// relations of arity 0 to 3, with few and with many rows per interned
// string (the sort's two strategies).
func TestRowsWriteJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ar := range []int{0, 1, 2, 3} {
		for _, n := range []int{0, 1, 3, 40, 400} {
			t.Run(fmt.Sprintf("arity%d-n%d", ar, n), func(t *testing.T) {
				rel := &RelationData{ParamTypes: make([]string, ar)}
				want := map[string]bool{}
				for range n {
					tup := make([]string, ar)
					for k := range tup {
						tup[k] = outputValues[rng.IntN(len(outputValues))]
					}
					rel.Tuples = append(rel.Tuples, tup)
					want[strings.Join(tup, "\x00")] = true
				}
				// Unrelated strings make the id space larger than the
				// rows for the small cases.
				other := &RelationData{ParamTypes: []string{"T"}}
				for i := range 50 {
					other.Tuples = append(other.Tuples, []string{fmt.Sprint("other", i)})
				}
				db, err := Load(&Data{Relations: map[string]*RelationData{"r": rel, "other": other}})
				if err != nil {
					t.Fatal(err)
				}
				vars := []string{"a", "b", "c"}[:ar]
				head := "q(" + strings.Join(vars, ", ") + ")"
				src := head + " <-- r(" + strings.Join(vars, ", ") + ")"
				if ar == 0 {
					src = "q() <-- r()"
				}
				res, rows, err := EvalRuleRows(context.Background(), db, src, Options{})
				if err != nil || len(res.Diagnostics) > 0 {
					t.Fatalf("%v %v", err, res.Diagnostics)
				}
				tuples := checkRows(t, rows, want)
				var one, oneCtx bytes.Buffer
				if err := rows.WriteJSON(&one); err != nil {
					t.Fatal(err)
				}
				if err := rows.WriteJSONContext(context.Background(), &oneCtx); err != nil {
					t.Fatal(err)
				}
				if wantOne, _ := jsonenc.Marshal(tuples); !bytes.Equal(one.Bytes(), wantOne) || !bytes.Equal(oneCtx.Bytes(), wantOne) {
					t.Fatalf("WriteJSON:\n%s\nWriteJSONContext:\n%s\njsonenc.Marshal:\n%s", one.Bytes(), oneCtx.Bytes(), wantOne)
				}
				var got bytes.Buffer
				rels := map[string]*Rows{"q": rows, "a<b": rows, "z": rows}
				if err := WriteRelationsJSON(&got, rels); err != nil {
					t.Fatal(err)
				}
				wantJSON, _ := jsonenc.Marshal(map[string][][]string{"q": tuples, "a<b": tuples, "z": tuples})
				if !bytes.Equal(got.Bytes(), wantJSON) {
					t.Fatalf("WriteRelationsJSON:\n%s\njsonenc.Marshal:\n%s", got.Bytes(), wantJSON)
				}
			})
		}
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, fmt.Errorf("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestRowsWriteJSONError checks that a failing writer's error is
// returned and stops the output.
func TestRowsWriteJSONError(t *testing.T) {
	db := chainDB(t, 300)
	res, rels, err := EvalProgramRows(context.Background(), db, "p", linearTC, Options{MaxTuples: -1})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("%v %v", err, res.Diagnostics)
	}
	if err := WriteRelationsJSON(&failWriter{n: 100_000}, rels); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v, want the writer's", err)
	}
}

// TestLoadJSONNullary checks that a relation without parameters loaded
// from JSON holds its one tuple when it has any, and that rules read it.
func TestLoadJSONNullary(t *testing.T) {
	for _, tc := range []struct {
		tuples string
		want   int
	}{{`[[], []]`, 1}, {`[]`, 0}} {
		db, err := LoadJSON([]byte(`{"relations": {"e": {"param_types": [], "tuples": ` + tc.tuples + `}, "p": {"param_types": ["A"], "tuples": [["a"]]}}}`))
		if err != nil {
			t.Fatal(err)
		}
		res, rows, err := EvalRuleRows(context.Background(), db, "q(x) <-- p(x), e()", Options{})
		if err != nil || len(res.Diagnostics) > 0 {
			t.Fatalf("%v %v", err, res.Diagnostics)
		}
		if rows.Len() != tc.want {
			t.Errorf("e = %s: %d tuples, want %d", tc.tuples, rows.Len(), tc.want)
		}
	}
}

// TestRowsSortedManyStrings checks the order and the JSON of two-column
// rows over more strings than the pair bitmap covers: buckets by first
// value, large ones ordered by a bitmap, small ones sorted.
func TestRowsSortedManyStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rel := &RelationData{ParamTypes: []string{"A", "B"}}
	want := map[[2]string]bool{}
	for range 4000 {
		a := fmt.Sprint("hub", rng.IntN(3))
		if rng.IntN(10) == 0 {
			a = fmt.Sprint("a", rng.IntN(5000))
		}
		b := fmt.Sprint("b", rng.IntN(3000))
		if rng.IntN(50) == 0 {
			b = outputValues[rng.IntN(len(outputValues))]
		}
		rel.Tuples = append(rel.Tuples, []string{a, b})
		want[[2]string{a, b}] = true
	}
	other := &RelationData{ParamTypes: []string{"T"}}
	for i := range 9000 {
		other.Tuples = append(other.Tuples, []string{fmt.Sprint("other", i)})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"r": rel, "other": other}})
	if err != nil {
		t.Fatal(err)
	}
	res, rows, err := EvalRuleRows(context.Background(), db, "q(a, b) <-- r(a, b)", Options{})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("%v %v", err, res.Diagnostics)
	}
	set := map[string]bool{}
	for k := range want {
		set[k[0]+"\x00"+k[1]] = true
	}
	checkRows(t, rows, set)
}

// checkRows checks that rows holds the tuples of want (joined by NUL
// bytes), sorted, that WriteJSON writes what jsonenc.Marshal writes for
// them, and returns them.
func checkRows(t *testing.T, rows *Rows, want map[string]bool) [][]string {
	t.Helper()
	tuples := rows.Tuples()
	if len(tuples) != len(want) || rows.Len() != len(want) {
		t.Fatalf("%d tuples (Len %d), want %d", len(tuples), rows.Len(), len(want))
	}
	for i, tup := range tuples {
		if !want[strings.Join(tup, "\x00")] {
			t.Fatalf("tuple %q not in the data", tup)
		}
		if i > 0 && slices.Compare(tuples[i-1], tup) >= 0 {
			t.Fatalf("tuples %q and %q out of order", tuples[i-1], tup)
		}
	}
	var got bytes.Buffer
	if err := rows.WriteJSON(&got); err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := jsonenc.Marshal(tuples)
	if !bytes.Equal(got.Bytes(), wantJSON) {
		t.Fatalf("WriteJSON:\n%s\njsonenc.Marshal:\n%s", got.Bytes(), wantJSON)
	}
	return tuples
}

// TestU64Set checks the set against a map over keys that collide in
// their low and high bits, the key 0 included, through several growths.
func TestU64Set(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s, ref := newU64Set(0), map[uint64]bool{}
	for i := range 20000 {
		var k uint64
		switch i % 4 {
		case 0:
			k = uint64(rng.IntN(3000))
		case 1:
			k = uint64(rng.IntN(3000)) << 32
		case 2:
			k = rng.Uint64()
		}
		if got, want := s.add(k), !ref[k]; got != want {
			t.Fatalf("add(%#x) = %v, want %v", k, got, want)
		}
		ref[k] = true
		if q := rng.Uint64() % 4000; s.has(q) != ref[q] {
			t.Fatalf("has(%#x) = %v, want %v", q, s.has(q), ref[q])
		}
	}
	for k := range ref {
		if !s.has(k) {
			t.Fatalf("has(%#x) = false after add", k)
		}
	}
}
