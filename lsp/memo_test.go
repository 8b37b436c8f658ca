package lsp

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxql/ctxql/syntax"
)

// TestSnapshotDerivedOnce checks that what a snapshot derives is computed
// once however many requests ask for it at the same time: they wait for
// the computation in flight and share its result. A computation whose
// requester was cancelled is not kept: the next request computes it, and
// a request waiting for it then computes it itself.
func TestSnapshotDerivedOnce(t *testing.T) {
	s := &Snapshot{URI: "file:///w/q.pact", File: syntax.NewFile("file:///w/q.pact", ".cb\n")}
	var calls atomic.Int32
	find := func() []syntax.Diagnostic {
		calls.Add(1)
		time.Sleep(50 * time.Millisecond)
		return []syntax.Diagnostic{{Span: syntax.Sp(0, 3), Code: "X"}}
	}
	var wg sync.WaitGroup
	got := make([][]syntax.Diagnostic, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = s.findingsOf(context.Background(), find)
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("the findings were computed %d times for 8 requests, want once", n)
	}
	for i, ds := range got {
		if len(ds) != 1 || ds[0].Code != "X" {
			t.Errorf("request %d got %v", i, ds)
		}
	}

	// A computation cut short is not kept.
	var m memo[int, string]
	ctx, cancel := context.WithCancel(context.Background())
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan bool, 1)
	go func() {
		_, ok := m.get(ctx, 1, func() (string, bool) {
			close(started)
			<-release
			return "cut short", true
		})
		done <- ok
	}()
	<-started
	waiter := make(chan string, 1)
	go func() {
		v, _ := m.get(context.Background(), 1, func() (string, bool) { return "whole", true })
		waiter <- v
	}()
	cancel()
	close(release)
	if <-done {
		t.Error("a cancelled request reports a whole value")
	}
	select {
	case v := <-waiter:
		if v != "whole" {
			t.Errorf("the waiting request got %q, want its own computation", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request waits for an abandoned computation")
	}
	if v, ok := m.peek(1); !ok || v != "whole" {
		t.Errorf("kept %q, %v; want the whole value", v, ok)
	}
}
