package main

import "github.com/ctxql/ctxql/internal/gcstart"

// startHeap returns the starting heap (see package gcstart) of the command
// args runs, 0 for the servers and the REPL, which keep the collector's
// usual pacing.
func startHeap(args []string) int64 {
	if len(args) == 0 {
		return 0
	}
	switch args[0] {
	case "check", "fmt":
		return gcstart.Batch
	case "eval":
		return gcstart.OneShot
	}
	return 0
}

// setHeap sets the starting heap of the command args runs.
func setHeap(args []string) { gcstart.Start(startHeap(args)) }
