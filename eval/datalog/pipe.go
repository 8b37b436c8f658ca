package datalog

import (
	"runtime"
	"runtime/debug"

	"github.com/ctxql/ctxql/internal/files"
)

// pipeMin is the size of data, in bytes, from which a load interns its
// values on a goroutine of its own while the scanner goes on (with more
// than one processor): below it, starting the goroutine and handing it
// the values cost more than they save.
const pipeMin = 1 << 20

// pipeBatch is the number of scanned values handed to the interning
// goroutine at once (a multiple of internBatch).
const pipeBatch = 16 * internBatch

// internPipe is the interning goroutine of a load and what it is handed:
// batches of scanned values to intern, in the order scanned, and the
// changes to a relation's values the scanner would otherwise make. It
// interns exactly as the scanner does (the same values in the same
// order), so the DB is the same either way.
type internPipe struct {
	ops     chan internOp
	free    chan []pendingVal // handed-back batches for reuse
	done    chan struct{}     // closed when the goroutine has finished
	touched uint64            // what it read ahead, read after done
	err     error             // a fault reading the text, read after done
}

// internOp is one step of the interning goroutine: intern vals into
// sr.vals, or set the empty string's id at position empty (when not
// -1), or, with set, start sr.vals over (empty when keep is set, nil
// otherwise).
type internOp struct {
	sr        *scanRel
	vals      []pendingVal
	empty     int32
	hint      int32 // the scanner's estimate of sr's values (sizeHint)
	set, keep bool
}

// usePipe reports whether a load of size bytes interns on a goroutine of
// its own: min is the least size that does (negative: none).
func usePipe(size, min int) bool {
	return min >= 0 && size >= min && runtime.GOMAXPROCS(0) > 1
}

// startPipe starts the interning goroutine of sc's loads.
func (sc *scanner) startPipe() {
	p := &internPipe{ops: make(chan internOp, 8), free: make(chan []pendingVal, 10), done: make(chan struct{})}
	sc.pipe = p
	db := sc.db
	go func() {
		defer close(p.done)
		// A fault reading the text (a mapped file truncated under the
		// load) ends the interning; the operations still sent are
		// taken and dropped, and stopPipe reports the fault.
		old := debug.SetPanicOnFault(true)
		defer debug.SetPanicOnFault(old)
		defer func() {
			if v := recover(); v != nil {
				p.err = files.Fault(v)
				for range p.ops {
				}
			}
		}()
		db.ids.touch()
		for op := range p.ops {
			sr := op.sr
			switch {
			case op.set && op.keep:
				sr.vals = sr.vals[:0]
			case op.set:
				sr.vals = nil
			case op.empty >= 0:
				sr.vals = grown(sr.vals, op.empty+1, op.hint)
				sr.vals[op.empty] = db.intern("")
			default:
				sr.vals = grown(sr.vals, op.vals[len(op.vals)-1].at+1, op.hint)
				p.touched += db.resolveInto(sr.vals, op.vals)
				select {
				case p.free <- op.vals[:0]:
				default:
				}
			}
		}
	}()
}

// stopPipe waits for the interning goroutine to intern what it was
// handed, and ends it; then the relations' values are complete, unless it
// returns the error of a fault reading the text.
func (sc *scanner) stopPipe() error {
	if sc.pipe == nil {
		return nil
	}
	close(sc.pipe.ops)
	<-sc.pipe.done
	sc.touched += sc.pipe.touched
	err := sc.pipe.err
	sc.pipe = nil
	return err
}

// ship hands the first n pending values to the interning goroutine and
// keeps the others pending.
func (sc *scanner) ship(sr *scanRel, n int) {
	if n == 0 {
		return
	}
	var next []pendingVal
	select {
	case next = <-sc.pipe.free:
	default:
		next = make([]pendingVal, 0, pipeBatch)
	}
	next = append(next, sc.pend[n:]...)
	sc.pipe.ops <- internOp{sr: sr, vals: sc.pend[:n], empty: -1, hint: sc.sizeHint(sr)}
	sc.pend = next
}

// setVals starts sr's values over: empty when keep is set, nil
// otherwise.
func (sc *scanner) setVals(sr *scanRel, keep bool) {
	sr.n = 0
	if sc.pipe != nil {
		sc.pipe.ops <- internOp{sr: sr, empty: -1, set: true, keep: keep}
		return
	}
	if keep {
		sr.vals = sr.vals[:0]
	} else {
		sr.vals = nil
	}
}

// empty records the empty string (a null value) as the next value of sr,
// interned at once: before the pending values, which the scanner interns
// internBatch at a time.
func (sc *scanner) empty(sr *scanRel) {
	at := sr.n
	sr.n++
	if sc.pipe != nil {
		// The values of the full batches pending were interned already
		// by a scanner interning them itself.
		sc.ship(sr, len(sc.pend)-len(sc.pend)%internBatch)
		sc.pipe.ops <- internOp{sr: sr, empty: at, hint: sc.sizeHint(sr)}
		return
	}
	sr.vals = grown(sr.vals, sr.n, sc.sizeHint(sr))
	sr.vals[at] = sc.db.intern("")
}

// splitDedupMin is the number of rows from which a loaded relation is
// deduplicated by two goroutines (with more than one processor).
const splitDedupMin = 1 << 16

// dedupSplit is dedup of a loaded relation's rows by two goroutines: the
// rows are split by the parity of their first value, so that equal rows
// go to the same one, and each keeps the first of its equal rows in a
// set of its own; the rows kept are then moved to the front of vals in
// order. The result is dedup's. idSpace bounds the values (for the
// sets' bitmaps); stop is called every stopEvery rows of each part.
func dedupSplit(ar, idSpace int, vals []uint32, stop func() error) ([]uint32, error) {
	n := len(vals) / ar
	keep := make([]bool, n)
	errs := make([]error, 2)
	done := make(chan struct{}, 2)
	part := func(w uint32) {
		defer func() { done <- struct{}{} }()
		s := newLoadSet(ar, idSpace, n/2)
		seen := 0
		for i := range n {
			row := vals[i*ar : (i+1)*ar]
			if row[0]&1 != w {
				continue
			}
			if seen++; seen%stopEvery == 0 && stop != nil {
				if err := stop(); err != nil {
					errs[w] = err
					return
				}
			}
			keep[i] = s.add(row)
		}
	}
	go part(1)
	part(0)
	<-done
	<-done
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	w := 0
	for i := range n {
		if keep[i] {
			copy(vals[w*ar:], vals[i*ar:(i+1)*ar])
			w++
		}
	}
	return vals[:w*ar], nil
}
