package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/files"
)

// TestDataLoadStopsWithoutWaiters checks that a sample-data load runs as
// long as some request waits for it, and stops once none does: two
// requests wait for one load (it starts once); when the first gives up,
// the load goes on; when the second gives up too, the load's context is
// cancelled. A request that comes after starts a load of its own, whose
// result it gets.
func TestDataLoadStopsWithoutWaiters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.json")
	if err := os.WriteFile(path, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(func() Config { return Config{} })
	var starts atomic.Int32
	stopped := make(chan struct{})
	block := func(ctx context.Context, _ *files.Reader, _ string) (any, error) {
		starts.Add(1)
		<-ctx.Done()
		close(stopped)
		return nil, ctx.Err()
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, err := w.Load(ctx1, "slow", path, block); errs <- err }()
	for starts.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	go func() { _, err := w.Load(ctx2, "slow", path, block); errs <- err }()
	// The second request waits for the load in flight.
	waiting := func() int {
		w.data.mu.Lock()
		set := w.data.sets[path]
		w.data.mu.Unlock()
		set.mu.Lock()
		defer set.mu.Unlock()
		if l := set.forms["slow"]; l != nil {
			return l.waiters
		}
		return 0
	}
	for deadline := time.Now().Add(5 * time.Second); waiting() != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait for the load, want 2", waiting())
		}
	}
	cancel1()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled request got %v", err)
	}
	select {
	case <-stopped:
		t.Fatal("the load stopped while a request still waits for it")
	case <-time.After(100 * time.Millisecond):
	}
	cancel2()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the second cancelled request got %v", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the load goes on with no request waiting for it")
	}
	if n := starts.Load(); n != 1 {
		t.Errorf("%d loads started for two requests, want 1", n)
	}
	// The next request loads afresh and gets its result, kept for the
	// one after.
	v, err := w.Load(context.Background(), "slow", path, func(context.Context, *files.Reader, string) (any, error) { return "loaded", nil })
	if err != nil || v != "loaded" {
		t.Fatalf("a later load gave %v, %v", v, err)
	}
	v, err = w.Load(context.Background(), "slow", path, func(context.Context, *files.Reader, string) (any, error) { return "again", nil })
	if err != nil || v != "loaded" {
		t.Errorf("the loaded form was not kept: %v, %v", v, err)
	}
}
