package budget

import (
	"runtime"
	"testing"
)

// TestHeapBytesMemStats checks that runtime.ReadMemStats's HeapAlloc and
// StackInuse, which the WebAssembly build reads, measure what HeapBytes
// reads from runtime/metrics natively: after a collection, with a large
// live allocation, the two agree within a few allocations.
func TestHeapBytesMemStats(t *testing.T) {
	keep := make([]byte, 8<<20)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	viaMetrics := HeapBytes()
	viaStats := int64(m.HeapAlloc + m.StackInuse)
	if d := viaMetrics - viaStats; d < -64<<10 || d > 64<<10 || viaMetrics < int64(len(keep)) {
		t.Errorf("HeapBytes = %d, ReadMemStats HeapAlloc+StackInuse = %d (differ by %d)", viaMetrics, viaStats, d)
	}
	runtime.KeepAlive(keep)
}
