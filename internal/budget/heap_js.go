//go:build js

package budget

import "runtime"

// The WebAssembly build reads the heap's size from runtime.ReadMemStats,
// whose HeapAlloc and StackInuse are the two memory classes the native
// build reads from runtime/metrics (/memory/classes/heap/objects:bytes and
// /memory/classes/heap/stacks:bytes): runtime/metrics costs the module
// about 10 ms of its start, building its table of descriptions.

// HeapBytes returns the bytes of heap objects (live or not yet swept) and
// goroutine stacks, the measure the memory budget bounds.
func HeapBytes() int64 { return newHeapMeter()() }

// newHeapMeter returns a function that reads the current heap and stack
// size, as HeapBytes does.
func newHeapMeter() func() int64 {
	var m runtime.MemStats
	return func() int64 {
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc + m.StackInuse)
	}
}
