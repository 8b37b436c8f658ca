package datalog

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
)

// workers returns the number of goroutines a semi-naive round's joins are
// split across: Workers, or one when it is 0. Splitting is not the
// default: on two cores the split rounds of a closure or a
// same-generation program cost more CPU than they save in wall time
// (docs/performance.md).
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return 1
}

// splitRows is the fewest rows of a round's new tuples each worker of a
// split join reads: below it, starting the workers costs more than it
// saves.
const splitRows = 1024

// splittable reports whether cr can run in several goroutines at once:
// nothing in it interns new values into the DB (an expression in its
// head, a computed binding or an aggregate would).
func splittable(cr *crule) bool {
	if len(cr.steps) > 0 || cr.head == nil {
		return false
	}
	for _, h := range cr.head {
		if h.kind == aExpr {
			return false
		}
	}
	return true
}

// fork returns an evaluator for one worker of a split join: the same DB,
// bounds and growing indexes (shared under ev.growMu), its own indexes
// over one-round tables and its own cache of numbers, under ctx.
func (ev *evaluator) fork(ctx context.Context) *evaluator {
	return &evaluator{ctx: ctx, db: ev.db, cache: map[cacheKey]*index{}, grow: ev.grow, growMu: ev.growMu,
		max: ev.max, maxRows: ev.maxRows, maxBytes: ev.maxBytes, keepAll: ev.keepAll, lower: ev.lower, general: ev.general, splitMin: ev.splitMin}
}

// hasConcurrent is has for a set that other goroutines read at the same
// time (nobody writes it meanwhile): buf is the caller's scratch.
func (s *tupleSet) hasConcurrent(row []uint32, buf *[]byte) bool {
	if s.large == nil {
		return s.has(row)
	}
	b := (*buf)[:0]
	for _, v := range row {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	*buf = b
	_, ok := s.large[string(b)]
	return ok
}

// runSplit is runInto with atom di reading the round's new tuples d,
// split into contiguous parts that workers evaluate at once, each with a
// forked evaluator. seen (the head's set, read-only while the workers
// run) drops rows derived before, a set of each worker's own the rows it
// derives twice. The workers' rows then go to emit in the order of the
// parts, which drops the rows two workers derived and counts the derived
// tuples against the budget, so the result does not depend on how the
// goroutines were scheduled. A worker's rows are bounded as an
// intermediate join result is (the memory bound; the tuple budget when
// one is set). It reports false, without running anything, when d is too
// small to split.
func (ev *evaluator) runSplit(workers int, cr *crule, di int, d *table, src func(i int) source, neg func(j int) source, seen *tupleSet, emit func([]uint32) error) (bool, error) {
	n := d.len()
	per := splitRows
	if ev.splitMin > 0 {
		per = ev.splitMin
	}
	workers = min(workers, n/per)
	if workers < 2 || !splittable(cr) {
		return false, nil
	}
	ctx, cancel := context.WithCancel(ev.ctx)
	defer cancel()
	type part struct {
		out *table
		err error
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			wev := ev.fork(ctx)
			in := newTable(d.arity)
			for i := lo; i < hi; i++ {
				in.append(d.row(i))
			}
			ar := len(cr.head)
			out := newTable(ar)
			// The worker's own set: a row it derives twice in the round
			// is kept once (the head's set is not written until the
			// merge). Room for about as many rows as the part has.
			own := newTupleSetSized(ar, len(ev.db.strs), hi-lo)
			var buf []byte
			shared := seen
			if seen != nil && seen.large != nil {
				// The fused tail would use the set's scratch buffer.
				shared = nil
			}
			if shared == seen {
				cnt := 0
				wev.sink = &headSink{seen: seen, set: own, tab: out, count: &cnt,
					over: func(int) error { return wev.overRows(out.len(), out.arity) }}
			}
			err := wev.runInto(cr, func(i int) source {
				if i == di {
					return source{t: in, n: in.len(), kind: srcTemp}
				}
				return src(i)
			}, neg, nil, nil, shared, func(row []uint32) error {
				if seen != nil && seen.hasConcurrent(row, &buf) {
					return nil
				}
				if !own.add(row) {
					return nil
				}
				out.append(row)
				return wev.overRows(out.len(), out.arity)
			})
			parts[w] = part{out: out, err: err}
			if err != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := ev.ctx.Err(); err != nil {
		return true, err
	}
	// A worker's own error first: the others then stopped with the
	// cancellation it caused.
	for _, p := range parts {
		if p.err != nil && !errors.Is(p.err, context.Canceled) {
			return true, p.err
		}
	}
	for _, p := range parts {
		if p.err != nil {
			return true, p.err
		}
	}
	for _, p := range parts {
		for i := 0; i < p.out.len(); i++ {
			if err := ev.check(); err != nil {
				return true, err
			}
			if err := emit(p.out.row(i)); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}
