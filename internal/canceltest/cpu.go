package canceltest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Point is one cancelled run of CPUAfterCancel.
type Point struct {
	// At is the CPU time the process had used in the run when it was
	// cancelled.
	At time.Duration
	// After is the CPU time the process used from the cancellation until
	// Settle after the run returned: the work the cancellation did not
	// stop at once, in the run or in goroutines it left behind.
	After time.Duration
	// Wait is the wall-clock time from the cancellation to the return.
	Wait time.Duration
	// Ended is set when the run had ended before it was to be cancelled.
	Ended bool
	// Err is what the run returned.
	Err error
}

// Settle is how long CPUAfterCancel goes on measuring the process's CPU
// time after a cancelled run has returned.
const Settle = 200 * time.Millisecond

// CPUAfterCancel runs work to its end twice to learn the CPU time a whole
// run takes (the shorter), then n times more, the k-th run cancelled once the process has
// used k/(n+1) of that time in it, and returns the whole run's CPU time
// and, for each cancelled run, the CPU time the process used after the
// cancellation (see Point). Points are placed in CPU time rather than
// wall-clock time, and CPU time is what they measure, so that a loaded
// machine, which slows the run, moves neither. A collection runs before
// each run, so that each starts from the same heap.
func CPUAfterCancel(work func(context.Context) error, n int) (time.Duration, []Point, error) {
	whole := time.Duration(math.MaxInt64)
	for range 2 {
		runtime.GC()
		c0 := CPU()
		if err := work(context.Background()); err != nil {
			return 0, nil, fmt.Errorf("uncancelled run: %w", err)
		}
		whole = min(whole, CPU()-c0)
	}
	pts := make([]Point, 0, n)
	for k := 1; k <= n; k++ {
		pts = append(pts, cancelAtCPU(work, whole*time.Duration(k)/time.Duration(n+1)))
	}
	return whole, pts, nil
}

// cancelAtCPU runs work under a context cancelled once the process has
// used at of CPU time since the start.
func cancelAtCPU(work func(context.Context) error, at time.Duration) Point {
	runtime.GC()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	start := CPU()
	go func() { done <- work(ctx) }()
	for {
		select {
		case err := <-done:
			return Point{At: CPU() - start, Ended: true, Err: err}
		default:
		}
		if CPU()-start >= at {
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	c0 := CPU()
	cancel()
	t0 := time.Now()
	err := <-done
	wait := time.Since(t0)
	time.Sleep(Settle)
	return Point{At: c0 - start, After: CPU() - c0, Wait: wait, Err: err}
}

// Summary returns the largest and the median CPU time after the
// cancellation of the points that were cancelled, and their number.
func Summary(pts []Point) (maxAfter, p50 time.Duration, cancelled int) {
	var afters []time.Duration
	for _, p := range pts {
		if !p.Ended {
			afters = append(afters, p.After)
		}
	}
	if len(afters) == 0 {
		return 0, 0, 0
	}
	slices.Sort(afters)
	return afters[len(afters)-1], afters[(len(afters)-1)/2], len(afters)
}

// Table formats points one a line, for a test's or a benchmark's log.
func Table(whole time.Duration, pts []Point) string {
	var b strings.Builder
	fmt.Fprintf(&b, "whole run: %v CPU\n", whole.Round(time.Millisecond))
	for i, p := range pts {
		if p.Ended {
			fmt.Fprintf(&b, "%2d  at %8v CPU: the run had ended (%v)\n", i+1, p.At.Round(time.Millisecond), p.Err)
			continue
		}
		fmt.Fprintf(&b, "%2d  at %8v CPU: %6.1f ms CPU after the cancellation, returned after %v\n",
			i+1, p.At.Round(time.Millisecond), ms(p.After), p.Wait.Round(100*time.Microsecond))
	}
	mx, p50, n := Summary(pts)
	fmt.Fprintf(&b, "%d cancelled: max %.1f ms, p50 %.1f ms CPU after the cancellation", n, ms(mx), ms(p50))
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// StopsCPU checks that work stops using CPU soon after its context is
// cancelled wherever in its run the cancellation lands: it cancels runs
// at n points spread through a whole run (CPUAfterCancel) and requires
// each cancelled run to return an error matching context.Canceled and the
// process to use at most bound of CPU time from the cancellation until
// Settle after the return. A point over the bound is measured again once
// before the test fails, so that a collection the cancellation happened
// to land in is not taken for work that does not stop. At least half the
// points must land while the run goes on.
func StopsCPU(t *testing.T, work func(context.Context) error, n int, bound time.Duration) {
	t.Helper()
	if !cpuKnown {
		t.Skip("the process's CPU time cannot be read on this platform")
	}
	whole, pts, err := CPUAfterCancel(work, n)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		if !p.Ended && p.After > bound {
			again := cancelAtCPU(work, p.At)
			t.Logf("point %d: %.1f ms CPU after the cancellation, again %.1f ms", i+1, ms(p.After), ms(again.After))
			if again.Ended || again.After < p.After {
				pts[i] = again
			}
		}
	}
	t.Log(Table(whole, pts))
	for i, p := range pts {
		if p.Ended {
			continue
		}
		if !errors.Is(p.Err, context.Canceled) {
			t.Errorf("point %d (at %v CPU): err = %v, want context.Canceled", i+1, p.At, p.Err)
		}
		if p.After > bound {
			t.Errorf("point %d (at %v CPU of a %v run): %.1f ms CPU after the cancellation, want at most %v",
				i+1, p.At.Round(time.Millisecond), whole.Round(time.Millisecond), ms(p.After), bound)
		}
	}
	if _, _, c := Summary(pts); c < n/2 {
		t.Errorf("only %d of %d runs were still going when cancelled (whole run %v CPU)", c, n, whole)
	}
}
