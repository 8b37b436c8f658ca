package gcstart

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// cycles returns the number of completed collections.
func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sink keeps the test's allocations from being optimized away.
var sink [][]byte

func TestStart(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent := debug.SetGCPercent(100)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
	runtime.GC()
	const size = 256 << 20
	Start(size)
	if got := debug.SetMemoryLimit(-1); got != size {
		t.Fatalf("memory limit after Start = %d, want %d", got, size)
	}

	// 64 MB of garbage, in 1 MB pieces, fits in the starting heap: with the
	// usual pacing it would take several collections.
	before := cycles()
	for range 64 {
		sink = append(sink[:0], make([]byte, 1<<20))
	}
	if n := cycles() - before; n != 0 {
		t.Errorf("%d collections while allocating 64 MB of garbage in a 256 MB starting heap, want none", n)
	}

	// A live heap past half the starting size hands the heap back to the
	// usual pacing after the next collection.
	sink = sink[:0]
	for range 160 {
		sink = append(sink, make([]byte, 1<<20))
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC() // the check runs after a collection, on its own goroutine
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d with %d MB live, want the usual 100", p, len(sink))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after the heap grew = %d, want none (%d)", got, int64(math.MaxInt64))
	}
	sink = nil
}

func TestStartLeavesUsersChoice(t *testing.T) {
	t.Setenv("GOGC", "50")
	percent := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(percent) })
	Start(256 << 20)
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC = %d after Start with GOGC set in the environment, want it untouched (100)", p)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit = %d after Start with GOGC set, want none", got)
	}
}
