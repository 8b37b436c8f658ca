//go:build !js

package budget

import "runtime/metrics"

// heapMetrics are the memory classes the watchdog adds up: heap objects
// (live or not yet swept) and goroutine stacks.
var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/stacks:bytes"}

// heapBytes reads the current heap and stack size.
func heapBytes(s []metrics.Sample) int64 {
	metrics.Read(s)
	var n int64
	for _, m := range s {
		if m.Value.Kind() == metrics.KindUint64 {
			n += int64(m.Value.Uint64())
		}
	}
	return n
}

// heapSamples are the samples heapBytes reads.
func heapSamples() []metrics.Sample {
	samples := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		samples[i].Name = n
	}
	return samples
}

// HeapBytes returns the bytes of heap objects (live or not yet swept) and
// goroutine stacks, the measure the memory budget bounds.
func HeapBytes() int64 { return heapBytes(heapSamples()) }

// newHeapMeter returns a function that reads the current heap and stack
// size, as HeapBytes does.
func newHeapMeter() func() int64 {
	samples := heapSamples()
	return func() int64 { return heapBytes(samples) }
}
