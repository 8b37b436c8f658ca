// Package budget bounds an evaluation's time and memory, the same way in
// every tool that runs queries for someone else: the ACP commands, the MCP
// server, the language server and the playground. It has the one error of
// a limit reached (LimitError, which the language table's evaluators
// return too) and the one wording of how to raise it; each tool adds only
// the name of its flag or setting.
package budget

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrLimit is wrapped by every LimitError: an evaluation stopped because it
// reached one of its resource limits.
var ErrLimit = errors.New("resource limit exceeded")

// The flags that raise each limit. Every tool with a limit names it by
// the same flag (`ctxql acp`, `ctxql mcp`, `ctxql play`, `ctxql eval`).
const (
	FlagTimeout         = "--timeout"
	FlagMaxResults      = "--max-results"
	FlagMaxOutputBytes  = "--max-output-bytes"
	FlagMaxMemory       = "--max-memory"
	FlagMaxDataBytes    = "--max-data-bytes"
	FlagMaxMessageBytes = "--max-message-bytes"
	FlagMaxTuples       = "--max-tuples"
)

// Default budget of an evaluation.
const (
	DefaultMaxOutputBytes = 16 << 20
	DefaultMaxMemory      = 1 << 30
	DefaultMaxDataBytes   = 256 << 20
)

// The kinds of limit LimitError.What names; any other What is the name of
// something that grew larger than Limit bytes ("expanded text").
const (
	Time        = "time"
	ResultCount = "result count"
	Memory      = "memory"
	Tuples      = "tuples"
)

// LimitError reports a resource limit an evaluation reached: what was
// limited, the limit, and how to raise it. It is the one error of a limit:
// evaluators return it without Flag, and the tool that ran them names its
// flag or setting (WithFlag).
type LimitError struct {
	What  string // Time, ResultCount, Memory, Tuples, or what grew too large
	Limit string // the limit as the user would write it
	Unit  string // the unit of a size limit; "" means bytes
	Flag  string // the flag or setting that raises it; "" when not known yet
	Err   error  // the evaluator's own error, if any
}

// Error implements error: the limit reached, then how to raise it, in the
// one wording every tool uses.
func (e *LimitError) Error() string {
	if e.Flag == "" {
		return e.Reached() + " (raise the limit)"
	}
	return e.Reached() + " (raise with " + e.Flag + ")"
}

// Reached says which limit was reached, without how to raise it.
func (e *LimitError) Reached() string {
	switch e.What {
	case Time:
		return fmt.Sprintf("timed out after %s", e.Limit)
	case ResultCount:
		return fmt.Sprintf("more than %s results", e.Limit)
	case Memory:
		return fmt.Sprintf("used more than %s bytes of memory", e.Limit)
	case Tuples:
		return fmt.Sprintf("evaluation stopped: more than %s tuples, counting intermediate join results and derived tuples", e.Limit)
	}
	unit := e.Unit
	if unit == "" {
		unit = "bytes"
	}
	return fmt.Sprintf("%s larger than %s %s", e.What, e.Limit, unit)
}

// Is makes every LimitError match ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Unwrap returns the evaluator's error.
func (e *LimitError) Unwrap() error { return e.Err }

// WithFlag returns a copy of e naming the flag or setting that raises the
// limit.
func (e *LimitError) WithFlag(flag string) *LimitError {
	c := *e
	c.Flag = flag
	return &c
}

// TimeLimit is the LimitError of a deadline d.
func TimeLimit(d time.Duration) *LimitError {
	return &LimitError{What: Time, Limit: d.String(), Flag: FlagTimeout}
}

// OutputLimit is the LimitError of an output of more than n bytes.
func OutputLimit(what string, n int) *LimitError {
	return &LimitError{What: what, Limit: fmt.Sprint(n), Flag: FlagMaxOutputBytes}
}

// MemoryLimit is the LimitError of a heap growth of more than n bytes.
func MemoryLimit(n int64) *LimitError {
	return &LimitError{What: Memory, Limit: fmt.Sprint(n), Flag: FlagMaxMemory}
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
	heapBytes := newHeapMeter()
	base := heapBytes()
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
				if heapBytes()-base > max {
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
