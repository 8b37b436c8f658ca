package datalog

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// workers returns the number of goroutines a semi-naive round's joins are
// split across: Workers, or one when it is 0. The language table passes
// GOMAXPROCS; two workers cost more CPU time than one (up to a fifth more
// for same-generation), so a caller on a loaded machine may pass one
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

// firstDriver returns the positive atom of cr that the first round of a
// fixpoint, which reads whole relations, splits across workers: the one
// reading the fewest rows (the first of those), which a streamed join
// drives from; -1 when cr has no positive atom or one reads an
// equivalence relation or part of a table.
func firstDriver(cr *crule, src func(i int) source) int {
	di, n := -1, 0
	for i := range cr.pos {
		s := src(i)
		if s.eq != nil || s.n != s.t.len() {
			return -1
		}
		if di < 0 || s.n < n {
			di, n = i, s.n
		}
	}
	return di
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

// splitParts is the number of parts of a head's hashed set when the
// workers of a split round insert into it themselves (see runSplit): the
// parts are units of work the workers claim in turn, so that one part
// holding more of the round's work than another leaves no worker idle
// for long. It does not depend on the number of workers, so that the
// order of a round's rows does not either.
const splitParts = 32

// splitShare is the share of a round's new tuples not yet in a part that
// the next part takes when they are cut contiguously (1/splitShare of
// them): the parts shrink as the cut goes on, the first large (few parts
// to start), the last small, so that when the workers claim them in turn
// the last to finish end close together. A part is at least a quarter of
// splitRows rows and at most one chunk of the table.
const splitShare = 8

// splitPart is one unit of work of a split round: rows of the round's new
// tuples (in: one-chunk views of the table or rows copied apart) and the
// rows the part derives, rows lo to hi of the table of the worker that
// took it (w).
type splitPart struct {
	in     []*table
	w      int
	lo, hi int
	// rlo and rhi, when the rows are routed by region of a bitmap (see
	// runSplit), are where the part's rows of each region start and end
	// in the worker's table of the region; kept are the views of the
	// rows it keeps, by region.
	rlo, rhi []int
	kept     [][]*table
	rest     *table
	err      error
}

// outTables returns a table of arity ar for each of n workers of a split
// round to append the rows it derives to, empty: the tables of the
// round before, their chunks kept, so that a round writes rows into
// memory that is already there rather than allocating and clearing
// more (the parts' rows are copied out of them before the next round).
func (ev *evaluator) outTables(n, ar int) []*table {
	ev.splitOuts = reuseTables(ev.splitOuts, n, ar)
	return ev.splitOuts[:n]
}

// reuseTables returns ts with at least n tables, the first n empty and of
// arity ar: a table of ts of that arity keeps its chunks, emptied.
func reuseTables(ts []*table, n, ar int) []*table {
	for len(ts) < n {
		ts = append(ts, newTable(ar))
	}
	for i, t := range ts[:n] {
		if t.arity != ar {
			ts[i] = newTable(ar)
			continue
		}
		for k := range t.chunks {
			t.chunks[k] = t.chunks[k][:0]
		}
		t.n = 0
	}
	return ts
}

// rows returns the views of rows lo to hi of t, one a chunk.
func (t *table) rows(lo, hi int) []*table {
	var vs []*table
	for lo < hi {
		e := min(hi, (lo>>chunkShift+1)<<chunkShift)
		vs = append(vs, t.view(lo, e))
		lo = e
	}
	return vs
}

// splitLimit is the most rows a worker of a split round derives for
// which over (see runSplit) reports no error, for a head of ar columns
// and base tuples derived before the round; counted says whether the
// rows count against the tuple budget as they are derived.
func (ev *evaluator) splitLimit(base, ar int, counted bool) int {
	limit := math.MaxInt
	if counted && ev.max > 0 {
		limit = ev.max - base
	}
	if ev.maxBytes > 0 {
		limit = int(min(int64(limit), ev.maxBytes/(int64(max(ar, 1))*4)))
	}
	return limit
}

// partedRows tells where the rows of a part of a split round are in the
// table the round appended them to: part q's rows end at row ends[q], and
// start where part q-1's end.
type partedRows struct {
	t    *table
	ends []int
}

// view returns a table over rows lo to hi of t, which lie in one chunk:
// it shares t's rows and is only read.
func (t *table) view(lo, hi int) *table {
	c := t.chunks[lo>>chunkShift]
	o, e := (lo&chunkMask)*t.arity, ((lo&chunkMask)+hi-lo)*t.arity
	return &table{arity: t.arity, chunks: [][]uint32{c[o:e:e]}, n: hi - lo}
}

// cut returns the parts of rows of d when they are split contiguously,
// each 1/splitShare of the rows left (see splitShare), none across a
// chunk of d.
func cut(d *table, per int) []splitPart {
	n := d.len()
	var parts []splitPart
	for lo := 0; lo < n; {
		grain := min(chunkRows, max((n-lo)/splitShare, per/4, 1))
		hi := min(lo+grain, n, (lo>>chunkShift+1)<<chunkShift)
		parts = append(parts, splitPart{in: []*table{d.view(lo, hi)}})
		lo = hi
	}
	return parts
}

// bucket returns splitParts parts of the rows of d, by the part of the
// head's set (partOf) that the value in column col goes to, each part's
// rows in d's order. The workers copy the rows apart at once, each from a
// contiguous share of d.
//
// When d is the table a split round appended its parts' rows to, by the
// same first value, the parts are d's rows as that round appended them
// (views, no copy).
func (ev *evaluator) bucket(ctx context.Context, d *table, col, workers int) ([]splitPart, error) {
	n := d.len()
	if pr := ev.parted; pr != nil && pr.t == d && col == 0 && pr.ends[len(pr.ends)-1] == n {
		parts := make([]splitPart, splitParts)
		lo := 0
		for q, hi := range pr.ends {
			for lo < hi {
				e := min(hi, (lo>>chunkShift+1)<<chunkShift)
				parts[q].in = append(parts[q].in, d.view(lo, e))
				lo = e
			}
		}
		return parts, nil
	}
	bk := make([][]*table, workers)
	err := inWorkers(workers, func(w int) error {
		b := make([]*table, splitParts)
		for q := range b {
			b[q] = newTable(d.arity)
		}
		lo, hi := w*n/workers, (w+1)*n/workers
		for i := lo; i < hi; i++ {
			if (i-lo)%stopEvery == stopEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			r := d.row(i)
			b[partOf(r[col], splitParts)].append(r)
		}
		bk[w] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	parts := make([]splitPart, splitParts)
	for q := range parts {
		for w := range workers {
			if t := bk[w][q]; t.len() > 0 {
				parts[q].in = append(parts[q].in, t)
			}
		}
	}
	return parts, nil
}

// runSplit is runInto with atom di reading the round's new tuples d,
// split into parts that workers claim in turn (an atomic counter) and
// evaluate at once, each worker with a forked evaluator. How the parts
// keep the rows they derive depends on the head's set (ev.sink's, when
// the fixpoint inserts into it plainly):
//
//   - a bitmap: d is cut into contiguous parts (views of its rows, not
//     copies); the workers read the bitmap only, to drop the rows derived
//     before, and keep the others apart by region of the bitmap (see
//     regions); once all parts are done, each region's owner (a worker
//     that claims it) sets its bits with plain instructions, the parts'
//     rows in the order of the parts, and keeps the rows whose bit it
//     set: a part keeps a row no part before it derived;
//   - a hashed set, with the head's first argument a variable of atom di:
//     the set is split into splitParts sets by that value (partition),
//     and d's rows by the value of the variable, so that each part derives
//     rows of one part of the set only and its worker inserts them there;
//   - otherwise: contiguous parts, seen (read-only while the workers run)
//     drops rows derived before, and a set of each part's own the rows it
//     derives twice; the rows then go to emit, which drops the rows two
//     parts derived.
//
// The parts' rows are appended in the order of the parts and counted
// against the budget, so the rows derived and the rounds are the same
// for any number of workers, and so is their order (with a bitmap, a
// part's rows come region by region). The rows a worker derives are
// bounded as an intermediate join result is (the memory bound), and,
// with a hashed set's parts, by the tuple budget as they are derived;
// otherwise the budget holds once the round's rows are counted. It
// reports false, without running anything, when d is too small to split.
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
	k := ev.sink
	route := k != nil && k.route == nil && k.seen == seen && k.set == seen && seen != nil && seen.bits != nil && seen.arity == len(cr.head)
	byCol := -1
	if k != nil && k.route == nil && k.seen == seen && k.set == seen && seen != nil && seen.bits == nil && seen.large == nil &&
		seen.arity > 0 && seen.arity == len(cr.head) && cr.head[0].kind == aVar && (seen.parts == nil || len(seen.parts) == splitParts) {
		for c, g := range cr.pos[di].args {
			if g.kind == aVar && g.slot == cr.head[0].slot {
				byCol = c
				break
			}
		}
	}
	var parts []splitPart
	if byCol >= 0 {
		if seen.parts == nil {
			seen.partition(splitParts)
		}
		var err error
		if parts, err = ev.bucket(ctx, d, byCol, workers); err != nil {
			return true, err
		}
	} else {
		parts = cut(d, per)
	}
	ar := len(cr.head)
	// The tuples derived before the round (all relations).
	base := 0
	if k != nil {
		base = *k.count
	}
	// The workers claim the larger parts first (the parts of a hashed
	// set differ in size), so that the last parts to finish are small.
	order := make([]int, len(parts))
	size := make([]int, len(parts))
	for q, p := range parts {
		order[q] = q
		for _, t := range p.in {
			size[q] += t.len()
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return size[b] - size[a] })
	wouts := ev.outTables(workers, ar)
	limit := ev.splitLimit(base, ar, byCol >= 0)
	var shift uint
	var routes [][]*table
	if route {
		var nreg int
		shift, nreg = regions(seen)
		routes = ev.routeTables(workers, nreg, ar)
		if ev.maxRows > 0 {
			limit = min(limit, ev.maxRows)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wev := ev.fork(ctx)
			out := wouts[w]
			// The rows this worker derived, over all its parts: with a
			// hashed set's parts, new rows of the head's set, for which
			// the tuple budget holds as they are derived; otherwise
			// rows other parts may derive too, for which the bound of an
			// intermediate result holds until the rows are counted.
			cnt := 0
			over := func(c int) error {
				switch {
				case byCol >= 0:
					if ev.max > 0 && base+c > ev.max {
						return &LimitError{Max: ev.max}
					}
					return wev.overRows(c, ar)
				case route:
					return wev.overRows(c, ar)
				}
				if ev.maxBytes > 0 && int64(c)*int64(max(ar, 1))*4 > ev.maxBytes {
					return &LimitError{Max: ev.max, Bytes: ev.maxBytes}
				}
				return nil
			}
			var buf []byte
			for {
				c := int(next.Add(1)) - 1
				if c >= len(parts) || ctx.Err() != nil {
					return
				}
				i := order[c]
				p := &parts[i]
				p.w, p.lo = w, out.len()
				var view, own *tupleSet
				shared := seen
				// add returns the table to append a derived row to,
				// nil when the row is dropped.
				var add func(row []uint32) *table
				switch {
				case byCol >= 0:
					view = seen.part(i)
					wev.sink = &headSink{seen: view, set: view, tab: out, count: &cnt, over: over, limit: limit}
					shared, add = view, wev.sink.into
				case route:
					p.rest = newTable(ar)
					p.rlo = tableLens(routes[w])
					wev.sink = &headSink{set: seen, count: &cnt, over: over, limit: limit, route: routes[w], shift: shift, rest: p.rest}
					shared, add = nil, wev.sink.into
				default:
					// Room for about as many rows as the part has; no
					// bitmap of the whole id space for a part.
					own = newTupleSetSized(ar, 0, size[i])
					wev.sink = nil
					if seen != nil && seen.large != nil {
						// The fused tail would use the set's scratch
						// buffer.
						shared = nil
					}
					if shared == seen {
						wev.sink = &headSink{seen: seen, set: own, tab: out, count: &cnt, over: over, limit: limit}
					}
					add = func(row []uint32) *table {
						if seen != nil && seen.hasConcurrent(row, &buf) || !own.add(row) {
							return nil
						}
						return out
					}
				}
				for _, in := range p.in {
					srcW := func(j int) source {
						if j == di {
							return source{t: in, n: in.len(), kind: srcTemp}
						}
						return src(j)
					}
					p.err = wev.runInto(cr, srcW, neg, nil, nil, shared, func(row []uint32) error {
						t := add(row)
						if t == nil {
							return nil
						}
						t.append(row)
						cnt++
						return over(cnt)
					})
					if p.err != nil {
						break
					}
				}
				p.hi = out.len()
				if route {
					p.rhi = tableLens(routes[w])
				}
				if p.err != nil {
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ev.ctx.Err(); err != nil {
		return true, err
	}
	// A part's own error first: the others then stopped with the
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
	if route {
		if err := ev.ownRegions(workers, parts, routes, seen); err != nil {
			return true, err
		}
	}
	if route || byCol >= 0 {
		// The rows are in the head's set already: appended in the
		// order of the parts and counted; then the rows outside its
		// bitmap go through the ordinary insert.
		var outs []*table
		for _, p := range parts {
			if route {
				for _, vs := range p.kept {
					for _, v := range vs {
						outs = append(outs, v)
						*k.count += v.len()
					}
				}
				continue
			}
			outs = append(outs, wouts[p.w].rows(p.lo, p.hi)...)
			*k.count += p.hi - p.lo
		}
		if *k.count > k.limit {
			if err := k.over(*k.count); err != nil {
				return true, err
			}
		}
		from := k.tab.len()
		if err := k.tab.appendTables(outs, workers, ev.ctx.Err); err != nil {
			return true, err
		}
		if byCol >= 0 && from == 0 {
			// The table's rows are split by their first value as the
			// parts were: a next round reading them as its new tuples
			// takes its parts from there.
			pr := &partedRows{t: k.tab, ends: make([]int, len(parts))}
			for i, p := range parts {
				from += p.hi - p.lo
				pr.ends[i] = from
			}
			ev.parted = pr
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
		for _, v := range wouts[p.w].rows(p.lo, p.hi) {
			if err := ev.emitRows(v, emit); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// regionBits is the base-2 logarithm of the most regions a bitmap is cut
// into when the workers of a split round route their rows by region (see
// runSplit): regions are units of work the owners claim in turn. It does
// not depend on the number of workers, so that the order of a round's
// rows does not either.
const regionBits = 5

// regions returns how a bitmap set's bits are cut into regions: bit b is
// in region b>>shift, of n. A region is at least a word of the bitmap,
// so that no two owners write the same word.
func regions(s *tupleSet) (shift uint, n int) {
	size := uint64(len(s.bits)) * 64
	shift = uint(max(6, bits.Len64(size-1)-regionBits))
	return shift, int((size-1)>>shift) + 1
}

// routeTables returns, for each of n workers of a split round, a table
// of arity ar for each of nreg regions of a bitmap, empty: the tables of
// the round before, their chunks kept (see outTables).
func (ev *evaluator) routeTables(n, nreg, ar int) [][]*table {
	for len(ev.splitRoutes) < n {
		ev.splitRoutes = append(ev.splitRoutes, nil)
	}
	routes := ev.splitRoutes[:n]
	for w, ts := range routes {
		routes[w] = reuseTables(ts, nreg, ar)[:nreg]
	}
	return routes
}

// tableLens returns the lengths of ts.
func tableLens(ts []*table) []int {
	ns := make([]int, len(ts))
	for i, t := range ts {
		ns[i] = t.len()
	}
	return ns
}

// ownRegions sets the bits of the rows the parts of a split round routed
// by region of the bitmap s (see runSplit), on workers goroutines, each
// claiming a region in turn and going through the parts in order: a row
// whose bit is clear sets it and is kept. A part's kept rows of region r
// are the views kept[r].
func (ev *evaluator) ownRegions(workers int, parts []splitPart, routes [][]*table, s *tupleSet) error {
	nreg := len(routes[0])
	for q := range parts {
		parts[q].kept = make([][]*table, nreg)
	}
	var next atomic.Int64
	return inWorkers(workers, func(int) error {
		for {
			r := int(next.Add(1)) - 1
			if r >= nreg {
				return nil
			}
			for q := range parts {
				if err := ev.ctx.Err(); err != nil {
					return err
				}
				p := &parts[q]
				p.kept[r] = s.claim(routes[p.w][r], p.rlo[r], p.rhi[r])
			}
		}
	})
}

// claim sets the bits of rows lo to hi of t, which lie in s's bitmap, and
// returns the views of the rows whose bit was clear: in each chunk of t,
// those rows are moved up over the others.
func (s *tupleSet) claim(t *table, lo, hi int) []*table {
	var kept []*table
	for lo < hi {
		k := lo >> chunkShift
		e := min(hi, (k+1)<<chunkShift)
		c := t.chunks[k][(lo&chunkMask)*t.arity : (e-k<<chunkShift)*t.arity]
		var n int
		if t.arity == 1 {
			n = s.claim1(c)
		} else {
			n = s.claim2(c)
		}
		if n > 0 {
			kept = append(kept, t.view(lo, lo+n))
		}
		lo = e
	}
	return kept
}

// claim2 is claim for the rows c of two columns, moved up in place: it
// returns how many are kept. The loop has no branch on a bit, so that
// the loads of the bitmap's words overlap.
func (s *tupleSet) claim2(c []uint32) int {
	side, bits := s.side, s.bits
	j := 0
	for i := 0; i+1 < len(c); i += 2 {
		a, z := c[i], c[i+1]
		b := uint64(a)*side + uint64(z)
		w := &bits[b>>6]
		old := *w
		*w = old | 1<<(b&63)
		c[j] = a
		c[j+1] = z
		j += int(^(old>>(b&63))&1) * 2
	}
	return j / 2
}

// claim1 is claim2 for rows of one column.
func (s *tupleSet) claim1(c []uint32) int {
	bits := s.bits
	j := 0
	for _, v := range c {
		b := uint64(v)
		w := &bits[b>>6]
		old := *w
		*w = old | 1<<(b&63)
		c[j] = v
		j += int(^(old >> (b & 63)) & 1)
	}
	return j
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

// concatMin is the fewest rows appendTables copies in several
// goroutines: below it, starting them costs more than it saves.
const concatMin = 1 << 16

// appendTables appends the rows of ts to t, in order, the copying split
// across workers goroutines by chunk of t: the goroutine that takes a
// chunk makes it (or extends the last one) and copies its rows there, so
// that clearing new memory is split too. stop, when set, is called
// before each chunk, and its error ends the appending (t then holds the
// rows it held before).
func (t *table) appendTables(ts []*table, workers int, stop func() error) error {
	total := 0
	for _, u := range ts {
		total += u.len()
	}
	if !splitting || workers < 2 || total < concatMin || t.arity == 0 {
		for _, u := range ts {
			if err := t.appendTable(u, stop); err != nil {
				return err
			}
		}
		return nil
	}
	start, end := t.n, t.n+total
	// at[i] is the row of t that the first row of ts[i] goes to.
	at := make([]int, len(ts)+1)
	at[0] = start
	for i, u := range ts {
		at[i+1] = at[i] + u.len()
	}
	first, last := start>>chunkShift, (end-1)>>chunkShift
	for len(t.chunks) <= last {
		t.chunks = append(t.chunks, nil)
	}
	var next atomic.Int64
	next.Store(int64(first))
	err := inWorkers(workers, func(int) error {
		for {
			k := int(next.Add(1)) - 1
			if k > last {
				return nil
			}
			if stop != nil {
				if err := stop(); err != nil {
					next.Store(int64(last + 1))
					return err
				}
			}
			lo, hi := max(start, k<<chunkShift), min(end, (k+1)<<chunkShift)
			t.extendChunk(k, hi-k<<chunkShift)
			i, _ := slices.BinarySearch(at, lo+1)
			for i--; lo < hi; i++ {
				from := lo - at[i]
				cnt := min(hi, at[i+1]) - lo
				t.copyRows(lo, ts[i], from, from+cnt)
				lo += cnt
			}
		}
	})
	if err != nil {
		// Back to the rows t held.
		k := start >> chunkShift
		t.chunks[k] = t.chunks[k][:(start&chunkMask)*t.arity]
		t.chunks = t.chunks[:k+1]
		return err
	}
	t.n = end
	return nil
}

// extendChunk makes chunk k of t (arity > 0) hold rows rows, for the
// caller to fill past the rows it holds, which are kept: a new chunk has
// its final capacity but for the first, which grows like a slice.
func (t *table) extendChunk(k, rows int) {
	ar := t.arity
	c := t.chunks[k]
	if rows*ar <= cap(c) {
		t.chunks[k] = c[:rows*ar]
		return
	}
	size := chunkRows * ar
	if k == 0 {
		size = min(max(rows, 2*cap(c)/ar), chunkRows) * ar
	}
	nc := make([]uint32, rows*ar, size)
	copy(nc, c)
	t.chunks[k] = nc
}

// inWorkers runs fn(w) for w in [0, n) on n goroutines and returns, once
// all are done, the error of the lowest w that returned one.
func inWorkers(n int, fn func(w int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = fn(w)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// copyRows copies rows lo to hi of u over the rows of t from row at on,
// which t holds.
func (t *table) copyRows(at int, u *table, lo, hi int) {
	ar := t.arity
	for lo < hi {
		cnt := min(hi-lo, chunkRows-lo&chunkMask, chunkRows-at&chunkMask)
		src := u.chunks[lo>>chunkShift][(lo&chunkMask)*ar:]
		dst := t.chunks[at>>chunkShift][(at&chunkMask)*ar:]
		copy(dst[:cnt*ar], src[:cnt*ar])
		lo += cnt
		at += cnt
	}
}
