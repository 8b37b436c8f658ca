// Package gcstart lets a short batch command, such as "ctxql check" over a
// workspace, start with a larger heap before the garbage collector paces it
// as usual, as the Go compiler does for its own runs.
//
// A check or format run keeps its parse memory (arenas, token buffers) from
// file to file, so its live heap is a few tens of megabytes of pointers
// from the start. With the collector's usual pacing (GOGC=100) the heap
// goal then doubles from 4 MB in small steps, and each step marks that live
// heap again: a few hundred milliseconds of CPU in a run of a few seconds.
// Start lets the heap grow to a given size first, so a run whose whole
// allocation fits in it collects rarely or never; once the live heap
// reaches half that size the usual pacing takes over, so a large run's
// memory stays what it would be otherwise.
package gcstart

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Starting heaps of the commands that run and exit.
const (
	// Batch is that of commands that check or format a workspace ("ctxql
	// check", "ctxql fmt", the lint command): they keep their parse
	// arenas from file to file, and a run over a large workspace
	// allocates a few hundred megabytes in all and frees little of it
	// early.
	Batch = 256 << 20
	// OneShot is that of a command that evaluates once ("ctxql eval"):
	// it keeps what it loads until it exits, so a collection while it
	// loads frees next to nothing.
	OneShot = 64 << 20
)

// liveMetric is the runtime metric of the heap the last collection found
// live.
const liveMetric = "/gc/heap/live:bytes"

// Start lets the heap grow to about size bytes before the first
// collection, and hands it back to the collector's usual pacing (the GOGC
// in effect) after the first collection that finds more than size/2 bytes
// live. It does nothing when the GOGC or GOMEMLIMIT environment variable
// is set, since the user chose the pacing then, or when size is not
// positive. It is for a process's main function: it changes the whole
// process's collector settings.
func Start(size int64) {
	if size <= 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(size)
	w := &watch{percent: percent, limit: limit, half: uint64(size / 2), sample: []metrics.Sample{{Name: liveMetric}}}
	w.arm()
}

// watch restores the collector's pacing once a collection finds the live
// heap above half the starting size.
type watch struct {
	percent int
	limit   int64
	half    uint64
	sample  []metrics.Sample
}

// arm registers a check that runs after the next collection: a cleanup of
// an object nothing refers to, which runs once a collection has found it
// unreachable.
func (w *watch) arm() {
	sentinel := new([32]byte) // too large for the tiny allocator, which shares blocks
	runtime.AddCleanup(sentinel, func(w *watch) { w.collected() }, w)
}

// collected runs after a collection: it restores the usual pacing if the
// live heap has grown past half the starting size, and waits for the next
// collection otherwise.
func (w *watch) collected() {
	metrics.Read(w.sample)
	if v := w.sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() <= w.half {
		w.arm()
		return
	}
	debug.SetGCPercent(w.percent)
	debug.SetMemoryLimit(w.limit)
}
