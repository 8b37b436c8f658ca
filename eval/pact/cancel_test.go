package pact

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// countingCtx counts Err calls. On call number pauseAt it signals started
// and waits until the wrapped context is done, so the cancellation from
// another goroutine always lands while the evaluation is running.
type countingCtx struct {
	context.Context
	calls   atomic.Int64
	pauseAt int64
	started chan struct{}
}

func (c *countingCtx) Err() error {
	n := c.calls.Add(1)
	if n == c.pauseAt {
		close(c.started)
		<-c.Context.Done()
	}
	return c.Context.Err()
}

// TestEvalCancelledMidway cancels from another goroutine after the
// evaluation has started and checks that it returns the context's error at
// the next check instead of running to completion.
func TestEvalCancelledMidway(t *testing.T) {
	d := chainData(t, 3000)
	src := strings.TrimSpace(strings.Repeat(".cb ", 40))

	// Count the checks of a full run first.
	full := &countingCtx{Context: context.Background(), pauseAt: -1}
	res, err := Select(full, d, src, syn.V1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.IDs) != 3000-39 {
		t.Fatalf("full run: got %d ids, want %d", len(res.IDs), 3000-39)
	}
	total := full.calls.Load()
	if total < 10 {
		t.Fatalf("full run made only %d context checks", total)
	}

	inner, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx := &countingCtx{Context: inner, pauseAt: total / 2, started: make(chan struct{})}
	go func() {
		<-ctx.started
		cancel()
	}()
	_, err = Select(ctx, d, src, syn.V1, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := ctx.calls.Load(); got != total/2 {
		t.Fatalf("evaluation made %d context checks after cancellation at check %d of %d", got-total/2, total/2, total)
	}
}
