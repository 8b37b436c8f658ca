package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ExitInterrupted is the exit code of a run stopped by SIGINT (128 plus the
// signal number, as shells report it); SIGTERM gives 143. An interrupted
// run never exits 0 or 1: it did not finish, whatever it had found.
const ExitInterrupted = 130

// interruptGrace is how long an interrupted run may take to finish the
// file it is at before the process leaves anyway. Files are rewritten
// through a temporary and a rename, so they hold the old or the new
// content even then, and the next run removes the temporary.
const interruptGrace = 500 * time.Millisecond

// cleanups are what an interrupted run must undo before the process exits
// even if the run has not stopped yet, such as removing a temporary
// directory.
type cleanups struct {
	mu   sync.Mutex
	fns  []func()
	done bool
}

type cleanupsKey struct{}

// onInterrupt registers fn to run if a signal ends the process run by
// RunInterruptible with ctx before the run returns; after that, fn runs at
// once. Without RunInterruptible it does nothing.
func onInterrupt(ctx context.Context, fn func()) {
	cl, ok := ctx.Value(cleanupsKey{}).(*cleanups)
	if !ok {
		return
	}
	cl.mu.Lock()
	if cl.done {
		cl.mu.Unlock()
		fn()
		return
	}
	cl.fns = append(cl.fns, fn)
	cl.mu.Unlock()
}

// run calls the registered functions once.
func (c *cleanups) run() {
	c.mu.Lock()
	fns := c.fns
	c.fns, c.done = nil, true
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// RunInterruptible runs run with a context that SIGINT and SIGTERM cancel
// and returns its exit code, or, when a signal came, 128 plus the signal's
// number, after "ctxql: interrupted (SIGINT)" on stderr. The run gets
// interruptGrace to stop; a second signal ends the wait at once. Then the
// cleanups the run registered with onInterrupt are done.
func RunInterruptible(stderr io.Writer, run func(ctx context.Context) int) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl := &cleanups{}
	ctx = context.WithValue(ctx, cleanupsKey{}, cl)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan int, 1)
	go func() { done <- run(ctx) }()
	select {
	case code := <-done:
		return code
	case sig := <-sigs:
		cancel()
		code := ExitInterrupted
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		t := time.NewTimer(interruptGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		case <-sigs:
		}
		cl.run()
		name := "SIGINT"
		if sig == syscall.SIGTERM {
			name = "SIGTERM"
		}
		fmt.Fprintf(stderr, "ctxql: interrupted (%s)\n", name)
		return code
	}
}
