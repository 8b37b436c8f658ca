package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcSettings reads the collector's percentage and memory limit.
func gcSettings() (int, int64) {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p, debug.SetMemoryLimit(-1)
}

// TestOneShotHeap checks that an eval command starts with no collection
// up to startHeap bytes, and that the first collection sets back the
// percentage and the limit it found; other commands, and a process whose
// GOGC or GOMEMLIMIT is set, keep theirs.
func TestOneShotHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p0, l0 := gcSettings()
	defer debug.SetGCPercent(p0)
	defer debug.SetMemoryLimit(l0)
	for _, args := range [][]string{nil, {"check", "."}, {"lsp"}, {"repl", "datalog"}} {
		if oneShotHeap(args) {
			t.Errorf("%q: the starting heap is set", args)
		}
		if p, l := gcSettings(); p != p0 || l != l0 {
			t.Errorf("%q: GOGC %d and limit %d, want %d and %d", args, p, l, p0, l0)
		}
	}
	if !oneShotHeap([]string{"eval", "datalog"}) {
		t.Fatal("eval: the starting heap is not set")
	}
	if p, l := gcSettings(); p != -1 || l != startHeap {
		t.Errorf("eval: GOGC %d and limit %d, want -1 and %d", p, l, startHeap)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, l := gcSettings(); p == p0 && l == l0 {
			break
		}
		if time.Now().After(deadline) {
			p, l := gcSettings()
			t.Fatalf("after collections: GOGC %d and limit %d, want %d and %d back", p, l, p0, l0)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Setenv("GOGC", "200")
	if oneShotHeap([]string{"eval", "datalog"}) {
		t.Error("GOGC set: the starting heap is set")
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "1GiB")
	if oneShotHeap([]string{"eval", "datalog"}) {
		t.Error("GOMEMLIMIT set: the starting heap is set")
	}
}
