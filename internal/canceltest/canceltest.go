// Package canceltest checks that work stops soon after its context is
// cancelled, measured against the work's own length in the same test
// rather than against a fixed wall-clock bound, so that a slow or loaded
// machine slows both alike; and it generates inputs long to load.
package canceltest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// Stops runs work to its end twice, taking the shorter time as the whole
// run's, then runs it again under contexts cancelled after a quarter and
// after half of that time, and checks that each run still going at its
// cancellation returns an error matching context.Canceled within a third
// of the whole run's time. A run that returns later is run again once
// before the test fails, so that a pause of the whole machine is not
// taken for work that does not stop (which is late every time). At least
// one run must have been cancelled while it ran, so that the check means
// something: work must be long enough for that.
func Stops(t *testing.T, work func(context.Context) error) {
	t.Helper()
	whole := time.Duration(math.MaxInt64)
	for range 2 {
		start := time.Now()
		if err := work(context.Background()); err != nil {
			t.Fatalf("uncancelled run: %v", err)
		}
		whole = min(whole, time.Since(start))
	}
	cancelled := 0
	for _, after := range []time.Duration{whole / 4, whole / 2} {
		for try := 1; ; try++ {
			took, err := cancelAfter(work, after)
			if err == nil {
				t.Logf("cancelled after %v: the run had ended (whole run %v)", after, whole)
				break
			}
			t.Logf("cancelled after %v: returned %v later (whole run %v)", after, took, whole)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled after %v: err = %v, want context.Canceled", after, err)
			}
			if took <= whole/3 || try == 2 {
				if took > whole/3 {
					t.Errorf("cancelled after %v: returned %v after the cancellation (twice), the whole run takes %v", after, took, whole)
				}
				cancelled++
				break
			}
		}
	}
	if cancelled == 0 {
		t.Errorf("no run was still going when cancelled (whole run %v)", whole)
	}
}

// cancelAfter runs work under a context cancelled after the given time
// and returns how long after the cancellation it returned, and its error.
func cancelAfter(work func(context.Context) error, after time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- work(ctx) }()
	time.Sleep(after)
	cancel()
	at := time.Now()
	err := <-done
	return time.Since(at), err
}

// DatalogJSON returns Datalog data in JSON: one relation e(A, B) of n
// distinct tuples, about 36 bytes each.
func DatalogJSON(n int) string {
	var b strings.Builder
	b.WriteString(`{"relations": {"e": {"param_types": ["A", "B"], "tuples": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["node-%d", "node-%d"]`, i, i*13%n)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// ChainJSON returns Datalog data in JSON: one relation e(N, N) holding a
// chain of n edges, e("n0", "n1"), …, e("n<n-1>", "n<n>"), whose
// transitive closure has n(n+1)/2 tuples.
func ChainJSON(n int) string {
	var b strings.Builder
	b.WriteString(`{"relations": {"e": {"param_types": ["N", "N"], "tuples": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["n%d", "n%d"]`, i, i+1)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// HeavyProgram is a Datalog program (over ChainJSON data) that goes
// through the phases of a long evaluation: the closure of the chain (the
// fixpoint's rounds, growing indexes), a self-join of the closure (an
// index over all of it built as the join starts, then a semi-join), an
// aggregate per node over the closure, a negation, and a lattice.
const HeavyProgram = `tc(x, y) <-- e(x, y);
tc(x, z) <-- tc(x, y), e(y, z);
back(x, y) <-- tc(x, y), tc(y, x);
reach(x, c) <-- e(x, _), agg c = count() in tc(x, _);
leaf(x) <-- tc(_, x), !e(x, _);
lattice most(N, i64);
most(x, c) <-- reach(x, c);
`
