package datalog

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestCancel pins that evaluation stops with the context's error, for a
// single rule and for a recursive program.
func TestCancel(t *testing.T) {
	rel := &RelationData{ParamTypes: []string{"A", "A"}}
	for i := range 300 {
		rel.Tuples = append(rel.Tuples, []string{fmt.Sprint(i), fmt.Sprint(i + 1)})
	}
	db, err := Load(&Data{Relations: map[string]*RelationData{"e": rel}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EvalRule(ctx, db, `q(a, b, c, d) <-- e(a, _), e(b, _), e(c, _), e(d, _)`); !errors.Is(err, context.Canceled) {
		t.Errorf("EvalRule: err = %v, want context.Canceled", err)
	}
	if _, err := EvalProgram(ctx, db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);"); !errors.Is(err, context.Canceled) {
		t.Errorf("EvalProgram: err = %v, want context.Canceled", err)
	}
	// Not cancelled: the closure of a 301-node chain.
	res, err := EvalProgram(context.Background(), db, "p", "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);")
	if err != nil || len(res.Relations["tc"]) != 300*301/2 {
		t.Fatalf("closure: err %v, %d tuples, want %d", err, len(res.Relations["tc"]), 300*301/2)
	}
}

// TestCancelLatency pins that a cancelled evaluation stops soon after
// the cancellation, whichever phase it is in (the fixpoint's joins, the
// aggregates, the sorting and printing of millions of tuples): each run
// is cancelled at a different moment and must return within a bound far
// below the run's own length.
func TestCancelLatency(t *testing.T) {
	const n = 1500
	rel := &RelationData{ParamTypes: []string{"i64", "i64"}}
	for i := range n {
		rel.Tuples = append(rel.Tuples, []string{fmt.Sprint(i), fmt.Sprint(i + 1)})
	}
	programs := map[string]string{
		// The closure of a 1,500-edge chain: about 1.1M tuples.
		"closure": "tc(x, y) <-- e(x, y); tc(x, z) <-- tc(x, y), e(y, z);",
		// A cross product of 2.25M tuples, then a computed column.
		"product": "p(x, y) <-- e(x, _), e(y, _); s(x, y + 1) <-- p(x, y);",
		// The non-linear closure with a condition (the general path,
		// conditions and head fused into the last join): about 560M
		// derivations.
		"general": "tc(x, y) <-- s(x, y); tc(x, z) <-- tc(x, y), tc(y, z), if x != z;",
		// An aggregate per binding over the whole relation.
		"aggregate": "c(x, k) <-- e(x, _), e(y, _), agg k = count() in e(_, _);",
	}
	for name, src := range programs {
		t.Run(name, func(t *testing.T) {
			cancelled := 0
			for _, after := range []time.Duration{20 * time.Millisecond, 80 * time.Millisecond, 200 * time.Millisecond} {
				db, err := Load(&Data{Relations: map[string]*RelationData{"e": rel, "s": {ParamTypes: []string{"A", "A"}, Tuples: rel.Tuples}}})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					_, err := EvalProgramWith(ctx, db, "p", src, Options{MaxTuples: -1})
					done <- err
				}()
				time.Sleep(after)
				cancel()
				start := time.Now()
				err = <-done
				took := time.Since(start)
				if err != nil {
					cancelled++
					t.Logf("cancelled after %v: returned %v later", after, took)
				}
				if err != nil && took > 250*time.Millisecond {
					t.Errorf("cancelled after %v: returned %v after the cancellation", after, took)
				}
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("cancelled after %v: err = %v, want context.Canceled", after, err)
				}
			}
			// The program must run long enough for the test to mean
			// something: at least the early cancellations hit it.
			if cancelled < 2 {
				t.Errorf("only %d of 3 runs were still running when cancelled", cancelled)
			}
		})
	}
}
