package datalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// chainRule returns "q(x0) <-- path(x0, x1), …, path(xn-1, xn)."
func chainRule(n int) string {
	var b strings.Builder
	b.WriteString("q(x0) <-- ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "path(x%d, x%d)", i, i+1)
	}
	b.WriteString(".")
	return b.String()
}

// TestChainJoinStaysSmall pins that a 50-atom chain over a cyclic
// 11-tuple relation is planned: the variables no later atom reads are
// projected away, so the intermediate results stay within the budget of
// a few hundred rows instead of growing with the number of walks.
func TestChainJoinStaysSmall(t *testing.T) {
	path := &RelationData{ParamTypes: []string{"Proc", "Proc"}}
	for _, e := range [][2]string{{"a", "b"}, {"b", "a"}, {"a", "a"}, {"b", "b"}, {"b", "c"}, {"c", "a"}, {"c", "c"}, {"c", "d"}, {"d", "a"}, {"d", "b"}, {"e", "a"}} {
		path.Tuples = append(path.Tuples, []string{e[0], e[1]})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"path": path}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A budget of 200 tuples: 11 tuples over 5 values allow at most 25
	// distinct (x0, xi) pairs per step.
	res, err := EvalRuleWith(ctx, db, chainRule(50), Options{MaxTuples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatal(res.Diagnostics)
	}
	got := fmt.Sprint(res.Tuples)
	if want := "[[a] [b] [c] [d] [e]]"; got != want {
		t.Errorf("q = %s, want %s", got, want)
	}
}

// TestBudgetCrossProduct pins that an unbounded cross product stops at
// the tuple budget with an error that names the limit and its flag.
func TestBudgetCrossProduct(t *testing.T) {
	r := &RelationData{ParamTypes: []string{"A"}}
	for i := range 2000 {
		r.Tuples = append(r.Tuples, []string{fmt.Sprint(i)})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"r": r}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if (Options{}).maxTuples() != DefaultMaxTuples || (Options{MaxTuples: -1}).maxTuples() != 0 {
		t.Fatal("the zero Options must mean the default budget, a negative one no budget")
	}
	for _, max := range []int{100_000, 3_000_000} {
		_, err := EvalRuleWith(ctx, db, "q(a, b, c) <-- r(a), r(b), r(c).", Options{MaxTuples: max})
		var le *LimitError
		if !errors.As(err, &le) || !errors.Is(err, ErrBudget) {
			t.Fatalf("max %d: err = %v, want a *LimitError", max, err)
		}
		want := max
		if le.Max != want || !strings.Contains(err.Error(), "--max-tuples") || !strings.Contains(err.Error(), fmt.Sprint(want)) {
			t.Errorf("max %d: error %q should name the budget %d and --max-tuples", max, err, want)
		}
		_, err = EvalProgramWith(ctx, db, "p", "q(a, b, c) <-- r(a), r(b), r(c).", Options{MaxTuples: max})
		if !errors.Is(err, ErrBudget) {
			t.Fatalf("program, max %d: err = %v, want the budget error", max, err)
		}
	}
	// A negative budget is no bound: a smaller product completes.
	res, err := EvalRuleWith(ctx, db, `q(a, b) <-- r(a), r(b), if a < 7.`, Options{MaxTuples: -1})
	if err != nil || len(res.Tuples) != 7*2000 {
		t.Fatalf("unbounded: err %v, %d tuples, want %d", err, len(res.Tuples), 7*2000)
	}
}

// TestDeadline pins that a cross product stops at the context's deadline.
func TestDeadline(t *testing.T) {
	r := &RelationData{ParamTypes: []string{"A"}}
	for i := range 2000 {
		r.Tuples = append(r.Tuples, []string{fmt.Sprint(i)})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"r": r}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = EvalRuleWith(ctx, db, "q(a) <-- r(a), r(b), r(c), r(d), if b == c, if c == d.", Options{MaxTuples: -1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("stopped after %v", el)
	}
}

// TestDefaultBoundAdmitsLargeJoin pins that the default bounds admit a
// legitimate join of 9M pairs (the divisors of Soufflé's amicable-numbers
// test, numbers up to 3,000), while a memory bound still stops a join of
// as many rows when it is set lower.
func TestDefaultBoundAdmitsLargeJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("a 9M-row join")
	}
	db, err := Load(&Data{})
	if err != nil {
		t.Fatal(err)
	}
	src := `relation num(i64);
num(n) <-- for n in 1..3001;
relation divisor(i64, i64);
divisor(n, d) <-- num(n), num(d), if d < n, if n % d == 0;
relation dsum(i64, i64);
dsum(n, s) <-- num(n), agg s = sum(d) in divisor(n, d);
relation amicable(i64, i64);
amicable(a, b) <-- dsum(a, b), dsum(b, a), if a < b;
`
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := EvalProgramWith(ctx, db, "p", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatal(res.Diagnostics)
	}
	if got, want := fmt.Sprint(res.Relations["amicable"]), "[[1184 1210] [220 284] [2620 2924]]"; got != want {
		t.Errorf("amicable = %s, want %s", got, want)
	}
	_, err = EvalProgramWith(ctx, db, "p", src, Options{MaxBytes: 64 << 20})
	var le *LimitError
	if !errors.As(err, &le) || le.Bytes != 64<<20 || !strings.Contains(err.Error(), "64 MiB") {
		t.Fatalf("err = %v, want the memory bound of 64 MiB", err)
	}
}
