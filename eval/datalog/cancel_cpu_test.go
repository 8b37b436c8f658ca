package datalog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// heavyProgram goes through the phases of a long evaluation: a closure
// of n²/2 tuples over a chain of n edges (the fixpoint's rounds, the
// growing indexes), a self-join of the closure (an index over all of it
// built as the join starts, then a semi-join), an aggregate per node over
// the closure, a negation, and a lattice.
const heavyProgram = `
tc(x, y) <-- e(x, y);
tc(x, z) <-- tc(x, y), e(y, z);
back(x, y) <-- tc(x, y), tc(y, x);
reach(x, c) <-- e(x, _), agg c = count() in tc(x, _);
leaf(x) <-- tc(_, x), !e(x, _);
lattice most(N, i64);
most(x, c) <-- reach(x, c);
`

// chainJSON is Datalog data in JSON: a chain e(n0, n1), …, e(n(n-1), nn).
func chainJSON(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"relations": {"e": {"param_types": ["N", "N"], "tuples": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["n%d", "n%d"]`, i, i+1)
	}
	b.WriteString(`]}}}`)
	return []byte(b.String())
}

// heavyRun loads src, evaluates heavyProgram over it and converts every
// relation it derives to sorted strings, all under ctx.
func heavyRun(ctx context.Context, src []byte) error {
	db, err := LoadJSONContext(ctx, src)
	if err != nil {
		return err
	}
	res, rels, err := EvalProgramRows(ctx, db, "p", heavyProgram, Options{MaxTuples: -1})
	if err != nil {
		return err
	}
	if len(res.Diagnostics) > 0 {
		return fmt.Errorf("%v", res.Diagnostics)
	}
	for _, r := range rels {
		if _, err := r.TuplesContext(ctx); err != nil {
			return err
		}
	}
	return nil
}

// loadRun loads src under ctx.
func loadRun(ctx context.Context, src []byte) error {
	_, err := LoadJSONContext(ctx, src)
	return err
}

// cancelBound is the CPU time a cancelled run may use after its
// cancellation (canceltest.StopsCPU).
const cancelBound = 100 * time.Millisecond

// TestCancelCPU pins that the CPU stops soon after a cancellation
// wherever in a run it lands: runs of a whole evaluation (load, a
// closure of 600,000 tuples, a self-join, an aggregate, a negation, a
// lattice, sorting the output) and of the load of a 10 MB data file
// (scanning, interning, deduplicating) are cancelled at 20 points spread
// through the run's CPU time, and each must return the context's error,
// the process using at most 100 ms of CPU time from the cancellation to
// 200 ms after the return (goroutines left running would be counted).
// BenchmarkCancelCPU prints the figures for a closure of three million
// tuples.
func TestCancelCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 40 cancelled evaluations")
	}
	t.Run("program", func(t *testing.T) {
		src := chainJSON(1100)
		canceltest.StopsCPU(t, func(ctx context.Context) error { return heavyRun(ctx, src) }, 20, cancelBound)
	})
	t.Run("load", func(t *testing.T) {
		src := []byte(canceltest.DatalogJSON(300000))
		canceltest.StopsCPU(t, func(ctx context.Context) error { return loadRun(ctx, src) }, 20, cancelBound)
	})
}

// BenchmarkCancelCPU prints, for runs cancelled at 20 points spread
// through a whole run, the largest and the median CPU time the process
// used after the cancellation (the goal: at most 100 ms at every point):
// for the evaluation of heavyProgram over a chain of 2,450 edges (a
// closure of three million tuples, then its self-join) and its output,
// and for the load of a 70 MB data file of two million tuples.
func BenchmarkCancelCPU(b *testing.B) {
	runs := []struct {
		name string
		src  []byte
		run  func(context.Context, []byte) error
	}{
		{"program-3M", chainJSON(2450), heavyRun},
		{"load-70MB", []byte(canceltest.DatalogJSON(2000000)), loadRun},
	}
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) {
			for range b.N {
				whole, pts, err := canceltest.CPUAfterCancel(func(ctx context.Context) error { return r.run(ctx, r.src) }, 20)
				if err != nil {
					b.Fatal(err)
				}
				mx, p50, n := canceltest.Summary(pts)
				b.Logf("%s\n%s", r.name, canceltest.Table(whole, pts))
				b.ReportMetric(float64(mx)/1e6, "max-cpu-ms-after-cancel")
				b.ReportMetric(float64(p50)/1e6, "p50-cpu-ms-after-cancel")
				b.ReportMetric(float64(n), "cancelled-runs")
				b.ReportMetric(float64(whole)/1e6, "whole-run-cpu-ms")
			}
		})
	}
}
