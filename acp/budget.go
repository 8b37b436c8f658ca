package acp

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"
)

// ErrLimit is wrapped by every LimitError: an evaluation stopped because it
// reached one of its resource limits.
var ErrLimit = errors.New("resource limit exceeded")

// The settings that raise each limit. The command line (`ctxql acp query`)
// and the MCP server (`ctxql mcp`) use the same flag names, so an error
// names the flag to raise in both.
const (
	FlagTimeout         = "--timeout"
	FlagMaxResults      = "--max-results"
	FlagMaxOutputBytes  = "--max-output-bytes"
	FlagMaxMemory       = "--max-memory"
	FlagMaxDataBytes    = "--max-data-bytes"
	FlagMaxMessageBytes = "--max-message-bytes"
)

// Default budget of an evaluation.
const (
	DefaultMaxOutputBytes = 16 << 20
	DefaultMaxMemory      = 1 << 30
	DefaultMaxDataBytes   = 256 << 20
)

// LimitError reports a resource limit an evaluation reached: what was
// limited, the limit, and the flag that raises it.
type LimitError struct {
	What  string // "time", "results", "output bytes", "memory", ...
	Limit string // the limit as the user would write it
	Flag  string // the setting that raises it, e.g. --max-output-bytes
}

func (e *LimitError) Error() string {
	switch e.What {
	case "time":
		return fmt.Sprintf("timed out after %s (raise with %s)", e.Limit, e.Flag)
	case "result count":
		return fmt.Sprintf("more than %s results (raise with %s)", e.Limit, e.Flag)
	case "memory":
		return fmt.Sprintf("used more than %s bytes of memory (raise with %s)", e.Limit, e.Flag)
	}
	return fmt.Sprintf("%s larger than %s bytes (raise with %s)", e.What, e.Limit, e.Flag)
}

// Is makes every LimitError match ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// WithFlag returns a copy of e naming another flag.
func (e *LimitError) WithFlag(flag string) *LimitError {
	c := *e
	c.Flag = flag
	return &c
}

// TimeLimit is the LimitError of a deadline d.
func TimeLimit(d time.Duration) *LimitError {
	return &LimitError{What: "time", Limit: d.String(), Flag: FlagTimeout}
}

// OutputLimit is the LimitError of an output of more than n bytes.
func OutputLimit(what string, n int) *LimitError {
	return &LimitError{What: what, Limit: fmt.Sprint(n), Flag: FlagMaxOutputBytes}
}

// MemoryLimit is the LimitError of a heap growth of more than n bytes.
func MemoryLimit(n int64) *LimitError {
	return &LimitError{What: "memory", Limit: fmt.Sprint(n), Flag: FlagMaxMemory}
}

// heapMetrics are the memory classes the watchdog adds up: heap objects
// (live or not yet swept) and goroutine stacks.
var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/stacks:bytes"}

// heapBytes reads the current heap and stack size.
func heapBytes(s []metrics.Sample) int64 {
	metrics.Read(s)
	var n int64
	for _, m := range s {
		if m.Value.Kind() == metrics.KindUint64 {
			n += int64(m.Value.Uint64())
		}
	}
	return n
}

// HeapBytes returns the bytes of heap objects (live or not yet swept) and
// goroutine stacks, the measure the memory budget bounds.
func HeapBytes() int64 {
	samples := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		samples[i].Name = n
	}
	return heapBytes(samples)
}

// watchInterval is how often the memory watchdog samples the heap.
const watchInterval = 2 * time.Millisecond

// WatchMemory returns a context cancelled, with a MemoryLimit cause, when
// the process's heap grows more than max bytes above its size at the call
// (max <= 0: never). The memory is the whole process's, so concurrent
// evaluations share the budget. Call stop when the evaluation is over.
func WatchMemory(ctx context.Context, max int64) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if max <= 0 {
		return ctx, func() { cancel(nil) }
	}
	samples := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		samples[i].Name = n
	}
	base := heapBytes(samples)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if heapBytes(samples)-base > max {
					cancel(MemoryLimit(max))
					return
				}
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}

// LimitCause returns the LimitError that cancelled ctx, or nil.
func LimitCause(ctx context.Context) *LimitError {
	var le *LimitError
	if errors.As(context.Cause(ctx), &le) {
		return le
	}
	return nil
}
