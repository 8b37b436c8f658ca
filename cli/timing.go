package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
)

// timing measures the phases of one `ctxql eval` for --timing: loading the
// data (and reading the query), evaluating the query, and encoding and
// writing the result. It travels in the command's context so that the
// code of each language marks the end of its phases with one call each.
type timing struct {
	w         io.Writer
	start     time.Time
	loaded    time.Time
	evaluated time.Time
}

type timingKey struct{}

// addTimingFlag registers --timing on an eval command.
func addTimingFlag(cmd *cobra.Command, on *bool) {
	cmd.Flags().BoolVar(on, "timing", false, `print the load, evaluation and output times on stderr as one JSON object {"loadMs", "evalMs", "outputMs", "totalMs"}`)
}

// startTiming starts the clock of an evaluation when on is set; the
// returned stop writes the report to w (a no-op when off).
func startTiming(ctx context.Context, on bool, w io.Writer) (context.Context, func()) {
	if !on {
		return ctx, func() {}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	t := &timing{w: w, start: time.Now()}
	return context.WithValue(ctx, timingKey{}, t), t.report
}

// markLoaded notes the end of the load phase (nothing without --timing).
func markLoaded(ctx context.Context) {
	if t, ok := timingOf(ctx); ok {
		t.loaded = time.Now()
	}
}

// markEvaluated notes the end of the evaluation phase.
func markEvaluated(ctx context.Context) {
	if t, ok := timingOf(ctx); ok {
		if t.loaded.IsZero() {
			t.loaded = t.start
		}
		t.evaluated = time.Now()
	}
}

func timingOf(ctx context.Context) (*timing, bool) {
	if ctx == nil {
		return nil, false
	}
	t, ok := ctx.Value(timingKey{}).(*timing)
	return t, ok
}

// report writes {"loadMs":…, "evalMs":…, "outputMs":…, "totalMs":…} on one
// line. A phase the command did not reach (it failed before) counts zero,
// and the time after the last phase reached goes to totalMs only.
func (t *timing) report() {
	end := time.Now()
	ms := func(a, b time.Time) float64 {
		if a.IsZero() || b.IsZero() {
			return 0
		}
		return float64(b.Sub(a).Microseconds()) / 1000
	}
	var load, eval, output float64
	load = ms(t.start, t.loaded)
	if !t.evaluated.IsZero() {
		eval = ms(t.loaded, t.evaluated)
		output = ms(t.evaluated, end)
	}
	fmt.Fprintf(t.w, "{\"loadMs\":%.3f,\"evalMs\":%.3f,\"outputMs\":%.3f,\"totalMs\":%.3f}\n", load, eval, output, ms(t.start, end))
}
