package main

import "github.com/ctxql/ctxql/internal/gcstart"

// Starting heaps (see package gcstart) of the commands that run and exit.
const (
	// batchHeap is that of check and fmt, which keep their parse arenas
	// from file to file: a run over a large workspace allocates a few
	// hundred megabytes in all and frees little of it early.
	batchHeap = 256 << 20
	// evalHeap is that of eval, which keeps what it loads until it
	// exits: a collection while it loads frees next to nothing.
	evalHeap = 64 << 20
)

// startHeap returns the starting heap of the command args runs, 0 for the
// servers and the REPL, which keep the collector's usual pacing.
func startHeap(args []string) int64 {
	if len(args) == 0 {
		return 0
	}
	switch args[0] {
	case "check", "fmt":
		return batchHeap
	case "eval":
		return evalHeap
	}
	return 0
}

// setHeap sets the starting heap of the command args runs.
func setHeap(args []string) { gcstart.Start(startHeap(args)) }
