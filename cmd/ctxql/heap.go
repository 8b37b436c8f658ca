package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// startHeap is the heap a one-shot evaluation grows to before its first
// collection.
const startHeap = 64 << 20

// oneShotHeap lets the heap of a command that evaluates and exits (eval)
// grow to startHeap bytes before the first collection, after which the
// collector runs as GOGC=100 has it: such a process keeps what it loads
// until it exits, so a collection while it loads frees next to nothing,
// and the exit frees all. It sets nothing for other commands (the
// servers, the REPL), nor when GOGC or GOMEMLIMIT is set. It reports
// whether it set the starting heap.
func oneShotHeap(args []string) bool {
	if len(args) == 0 || args[0] != "eval" || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	// No collection until the heap nears the limit; the first one runs
	// the finalizer, which sets back the default percentage and lifts
	// the limit.
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(startHeap)
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	return true
}

// sentinel is the object whose finalizer ends the starting heap: large
// enough not to share a tiny allocation, whose finalizer might not run.
type sentinel struct{ _ [16]byte }
