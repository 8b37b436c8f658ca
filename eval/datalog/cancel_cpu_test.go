package datalog

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// heavyRun loads src, evaluates canceltest.HeavyProgram over it and
// converts every relation it derives to sorted strings, all under ctx.
func heavyRun(ctx context.Context, src []byte) error {
	db, err := LoadJSONContext(ctx, src)
	if err != nil {
		return err
	}
	res, rels, err := EvalProgramRows(ctx, db, "p", canceltest.HeavyProgram, Options{MaxTuples: -1})
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
		src := []byte(canceltest.ChainJSON(1100))
		canceltest.StopsCPU(t, func(ctx context.Context) error { return heavyRun(ctx, src) }, 20, cancelBound)
	})
	t.Run("output", func(t *testing.T) {
		// The streamed output of a closure of 600,000 tuples, evaluated
		// beforehand: sorting and writing it stops too.
		db, err := LoadJSONContext(context.Background(), []byte(canceltest.ChainJSON(1100)))
		if err != nil {
			t.Fatal(err)
		}
		_, rels, err := EvalProgramRows(context.Background(), db, "p", canceltest.HeavyProgram, Options{MaxTuples: -1})
		if err != nil {
			t.Fatal(err)
		}
		canceltest.StopsCPU(t, func(ctx context.Context) error {
			for _, r := range rels {
				if err := r.WriteJSONContext(ctx, io.Discard); err != nil {
					return err
				}
			}
			return nil
		}, 20, cancelBound)
	})
	t.Run("load", func(t *testing.T) {
		src := []byte(canceltest.DatalogJSON(300000))
		canceltest.StopsCPU(t, func(ctx context.Context) error { return loadRun(ctx, src) }, 20, cancelBound)
	})
}

// BenchmarkCancelCPU prints, for runs cancelled at 20 points spread
// through a whole run, the largest and the median CPU time the process
// used after the cancellation (the goal: at most 100 ms at every point):
// for the evaluation of canceltest.HeavyProgram over a chain of 2,450
// edges (a closure of three million tuples, then its self-join) and its
// output,
// and for the load of a 70 MB data file of two million tuples.
func BenchmarkCancelCPU(b *testing.B) {
	runs := []struct {
		name string
		src  []byte
		run  func(context.Context, []byte) error
	}{
		{"program-3M", []byte(canceltest.ChainJSON(2450)), heavyRun},
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
				// The table of every point, on standard output: a
				// benchmark's log keeps only its first lines.
				fmt.Printf("%s\n%s\n", r.name, canceltest.Table(whole, pts))
				b.ReportMetric(float64(mx)/1e6, "max-cpu-ms-after-cancel")
				b.ReportMetric(float64(p50)/1e6, "p50-cpu-ms-after-cancel")
				b.ReportMetric(float64(n), "cancelled-runs")
				b.ReportMetric(float64(whole)/1e6, "whole-run-cpu-ms")
			}
		})
	}
}
