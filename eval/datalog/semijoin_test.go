package datalog

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestWildcardsDoNotMultiplyRows pins that an atom whose variables are
// all bound or "_" (or named once and read by nothing) is an existence
// check: seven such atoms over ten tuples keep ten rows, well inside a
// budget of 100 tuples (the derived tuples included), instead of 10^8 rows.
func TestWildcardsDoNotMultiplyRows(t *testing.T) {
	db, err := Load(&Data{})
	if err != nil {
		t.Fatal(err)
	}
	src := `relation r(i32);  r(0); r(1); r(2); r(3); r(4); r(5); r(6); r(7); r(8); r(9);
relation q(i32);
q(x) <-- r(x), r(_), r(_), r(_), r(_), r(_), r(_), r(_);
relation p(i32);
p(x) <-- r(x), r(a), r(b), r(c), r(d), r(e), r(f), r(g);
relation s(i32, i32);
s(x, y) <-- r(x), r(y), if y < 2, r(_), r(_), r(_), r(_), r(_);
relation none(i32);
none(x) <-- r(x), r(_), t(_);
relation t(i32);
`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := EvalProgramWith(ctx, db, "p", src, Options{MaxTuples: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatal(res.Diagnostics)
	}
	var ten [][]string
	var pairs [][]string
	for i := range 10 {
		ten = append(ten, []string{fmt.Sprint(i)})
	}
	for i := range 10 {
		for j := range 2 {
			pairs = append(pairs, []string{fmt.Sprint(i), fmt.Sprint(j)})
		}
	}
	want := map[string][][]string{"q": ten, "p": ten, "s": pairs, "none": {}}
	for rel, w := range want {
		got := res.Relations[rel]
		if got == nil {
			got = [][]string{}
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %v, want %v", rel, got, w)
		}
	}
}

// existentialProgram is a program in the style of Soufflé's existential
// test: each rule checks for the existence of matching tuples with "_"
// over an n-tuple relation.
func existentialProgram(n int) (string, string) {
	var b strings.Builder
	b.WriteString("relation e(i32, i32);\n")
	for i := range n {
		fmt.Fprintf(&b, "e(%d, %d);\n", i, (i*7+3)%n)
	}
	head := b.String()
	return head + `relation has_out(i32);
has_out(x) <-- e(x, _), e(_, x), e(_, _), e(_, _);
relation two(i32);
two(x) <-- e(x, y), e(y, _), e(_, x), e(_, _);
`, head + `relation has_out(i32);
has_out(x) <-- e(x, _);
relation two(i32);
two(x) <-- e(x, y);
`
}

// BenchmarkExistential runs existential checks over 2,000 tuples and,
// in the same run, the anchor: the same program without the checks (one
// scan per rule). It reports the ratio, which stays near 1 when "_"
// atoms cost a probe per row rather than a pass over the relation per
// row.
func BenchmarkExistential(b *testing.B) {
	prog, anchor := existentialProgram(2000)
	db, err := Load(&Data{})
	if err != nil {
		b.Fatal(err)
	}
	run := func(src string) time.Duration {
		t0 := time.Now()
		res, err := EvalProgram(context.Background(), db, "p", src)
		if err != nil || len(res.Diagnostics) > 0 || len(res.Relations["has_out"]) != 2000 {
			b.Fatalf("err %v, diagnostics %v, %d tuples", err, res.Diagnostics, len(res.Relations["has_out"]))
		}
		return time.Since(t0)
	}
	var tp, ta time.Duration
	for b.Loop() {
		tp += run(prog)
		ta += run(anchor)
	}
	b.ReportMetric(float64(tp)/float64(ta), "x-anchor")
}
