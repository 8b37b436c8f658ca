package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/ctxql/ctxql/internal/gcstart"
)

// TestStartHeap checks which commands start with a larger heap: those that
// run and exit, not the servers or the REPL. Package gcstart tests how the
// heap is handed back to the collector's usual pacing.
func TestStartHeap(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int64
	}{
		{nil, 0},
		{[]string{"check", "."}, gcstart.Batch},
		{[]string{"fmt", "--check", "."}, gcstart.Batch},
		{[]string{"eval", "datalog"}, gcstart.OneShot},
		{[]string{"lsp"}, 0},
		{[]string{"mcp"}, 0},
		{[]string{"repl", "datalog"}, 0},
	} {
		if got := startHeap(c.args); got != c.want {
			t.Errorf("startHeap(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}

// TestSetHeapEval checks that setHeap sets eval's starting heap as the
// collector's memory limit, with no collection before it.
func TestSetHeapEval(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p0 := debug.SetGCPercent(100)
	defer debug.SetGCPercent(p0)
	defer debug.SetMemoryLimit(math.MaxInt64)
	setHeap([]string{"eval", "datalog"})
	p := debug.SetGCPercent(-1)
	if l := debug.SetMemoryLimit(-1); p != -1 || l != gcstart.OneShot {
		t.Errorf("after setHeap(eval): GOGC %d and limit %d, want -1 and %d", p, l, gcstart.OneShot)
	}
}
