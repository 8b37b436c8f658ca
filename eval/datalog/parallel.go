package datalog

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
)

// workers returns the number of goroutines a semi-naive round's joins are
// split across: Workers, or one when it is 0. Splitting is not the
// default: on two cores a split round still costs more CPU time than one
// worker's (about a quarter more for a closure or a same-generation
// program), and its wall-clock gain is not yet measured on a quiet
// machine (docs/performance.md).
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
// split into parts that workers evaluate at once, each with a forked
// evaluator. How the workers keep the rows they derive depends on the
// head's set (ev.sink's, when the fixpoint inserts into it plainly):
//
//   - a bitmap: the workers set its bits themselves, atomically, and keep
//     the rows whose bit they set; d is split into contiguous parts;
//   - a hashed set, with the head's first argument a variable of atom di:
//     d is split by that variable's value, as the set is (partition), so
//     that each worker derives the rows of one part of the set and
//     inserts them there itself;
//   - otherwise: d is split into contiguous parts, seen (read-only while
//     the workers run) drops rows derived before, and a set of each
//     worker's own the rows it derives twice; the rows then go to emit,
//     which drops the rows two workers derived.
//
// The workers' rows are appended in the order of the parts and counted
// against the budget, so the rows derived and the rounds are the same for
// any number of workers (the order within a round can differ where two
// workers derive a row, with a bitmap). A worker's rows are bounded as an
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
	// With a head whose set is a bitmap, the workers insert into it
	// themselves, atomically: a row is then kept by the one worker that
	// set its bit, and the merge appends the workers' rows as they are.
	k := ev.sink
	shareBits := k != nil && !k.atomic && k.seen == seen && k.set == seen && seen != nil && seen.bits != nil && seen.arity == len(cr.head)
	// A head whose set is hashed, and whose first argument is a
	// variable of the atom reading the round's new tuples: the tuples
	// are split by the value of that variable instead, as the head's set
	// is (partition), so that the workers derive rows of disjoint parts
	// of the set and insert into them themselves.
	byCol := -1
	if k != nil && !k.atomic && k.seen == seen && k.set == seen && seen != nil && seen.bits == nil && seen.large == nil &&
		seen.arity > 0 && seen.arity == len(cr.head) && cr.head[0].kind == aVar {
		for c, g := range cr.pos[di].args {
			if g.kind == aVar && g.slot == cr.head[0].slot {
				byCol = c
				break
			}
		}
		if seen.parts != nil && len(seen.parts) != workers {
			byCol = -1
		}
	}
	if byCol >= 0 && seen.parts == nil {
		seen.partition(workers)
	}
	type part struct {
		out, rest *table
		err       error
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
			if byCol >= 0 {
				for i := range n {
					if r := d.row(i); partOf(r[byCol], workers) == w {
						in.append(r)
					}
				}
			} else {
				for i := lo; i < hi; i++ {
					in.append(d.row(i))
				}
			}
			ar := len(cr.head)
			out := newTable(ar)
			over := func(int) error { return wev.overRows(out.len(), out.arity) }
			srcW := func(i int) source {
				if i == di {
					return source{t: in, n: in.len(), kind: srcTemp}
				}
				return src(i)
			}
			if byCol >= 0 {
				view := seen.part(w)
				cnt := 0
				wev.sink = &headSink{seen: view, set: view, tab: out, count: &cnt, over: over}
				err := wev.runInto(cr, srcW, neg, nil, nil, view, func(row []uint32) error {
					if !view.add(row) {
						return nil
					}
					out.append(row)
					return over(0)
				})
				parts[w] = part{out: out, err: err}
				if err != nil {
					cancel()
				}
				return
			}
			if shareBits {
				rest := newTable(ar)
				cnt := 0
				wev.sink = &headSink{set: seen, tab: out, count: &cnt, over: over, atomic: true, rest: rest}
				err := wev.runInto(cr, srcW, neg, nil, nil, nil, func(row []uint32) error {
					if !wev.sink.insert(row) {
						return nil
					}
					out.append(row)
					return over(0)
				})
				parts[w] = part{out: out, rest: rest, err: err}
				if err != nil {
					cancel()
				}
				return
			}
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
				wev.sink = &headSink{seen: seen, set: own, tab: out, count: &cnt, over: over}
			}
			err := wev.runInto(cr, srcW, neg, nil, nil, shared, func(row []uint32) error {
				if seen != nil && seen.hasConcurrent(row, &buf) {
					return nil
				}
				if !own.add(row) {
					return nil
				}
				out.append(row)
				return over(0)
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
	if shareBits || byCol >= 0 {
		// The rows are in the head's set already: appended in the
		// order of the parts and counted; then the rows outside its
		// bitmap go through the ordinary insert.
		for _, p := range parts {
			if err := k.tab.appendTable(p.out, ev.ctx.Err); err != nil {
				return true, err
			}
			if *k.count += p.out.len(); *k.count > k.limit {
				if err := k.over(*k.count); err != nil {
					return true, err
				}
			}
		}
		for _, p := range parts {
			if p.rest != nil {
				if err := ev.emitRows(p.rest, emit); err != nil {
					return true, err
				}
			}
		}
		return true, nil
	}
	for _, p := range parts {
		if err := ev.emitRows(p.out, emit); err != nil {
			return true, err
		}
	}
	return true, nil
}

// emitRows hands t's rows to emit in order, looking at the evaluation's
// context before each.
func (ev *evaluator) emitRows(t *table, emit func([]uint32) error) error {
	for i := 0; i < t.len(); i++ {
		if err := ev.check(); err != nil {
			return err
		}
		if err := emit(t.row(i)); err != nil {
			return err
		}
	}
	return nil
}
