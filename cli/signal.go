package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
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

// RunInterruptible runs run with a context that SIGINT and SIGTERM cancel
// and returns its exit code, or, when a signal came, 128 plus the signal's
// number, after "ctxql: interrupted (SIGINT)" on stderr. The run gets
// interruptGrace to stop; a second signal ends the wait at once.
func RunInterruptible(stderr io.Writer, run func(ctx context.Context) int) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
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
		name := "SIGINT"
		if sig == syscall.SIGTERM {
			name = "SIGTERM"
		}
		fmt.Fprintf(stderr, "ctxql: interrupted (%s)\n", name)
		return code
	}
}
