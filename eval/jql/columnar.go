package jql

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/valyala/fastjson"

	syn "github.com/ctxql/ctxql/syntax/jql"
)

// workers returns the number of goroutines an evaluation over a Table
// uses: Options.Workers, or GOMAXPROCS when it is 0 or less.
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// vtest is a condition compiled against one segment's column: its truth
// for each string of the column's dictionary, found the first time a
// document holds that string (a time column's dictionary has about one
// string per document, most of which a query with a limit never reaches),
// and for each constant kind; numbers are tested one by one.
type vtest struct {
	c     *cond
	col   *column
	str   []uint8 // per dictionary string: strUnknown, strFalse or strTrue
	kinds [nKinds]bool
}

// The truth of a condition for a dictionary string.
const (
	strUnknown uint8 = iota
	strFalse
	strTrue
)

// fill tests the condition on dictionary string id and records the truth.
func (t *vtest) fill(id uint32) uint8 {
	v := strFalse
	if t.c.testStr(t.col.dict[id], t.col.times[id]) {
		v = strTrue
	}
	t.str[id] = v
	return v
}

// gtest is a where group compiled against one segment.
type gtest struct {
	col    *column
	exists []bool // the wanted presence of each exists condition
	tests  []vtest
	// one is the group's test when it is its only condition: a document
	// with one string value is then tested in the scan's loop itself.
	one *vtest
}

func (g *gtest) match(j int) bool {
	col := g.col
	for _, want := range g.exists {
		if col.present[j] != want {
			return false
		}
	}
	if len(g.tests) == 0 {
		return true
	}
	for k := col.off[j]; k < col.off[j+1]; k++ {
		ok := true
		for i := range g.tests {
			t := &g.tests[i]
			switch kd := col.kind[k]; kd {
			case kString:
				id := col.sid[k]
				v := t.str[id]
				if v == strUnknown {
					v = t.fill(id)
				}
				ok = v == strTrue
			case kNumber:
				ok = t.c.testNum(col.num[k])
			default:
				ok = t.kinds[kd]
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (c *cond) compileFor(col *column) vtest {
	t := vtest{c: c, col: col, str: make([]uint8, len(col.dict))}
	for k := kTrue; k < nKinds; k++ {
		t.kinds[k] = c.testKind(k)
	}
	return t
}

// testStr is test for a string value (tv is its instant, if it is one).
func (c *cond) testStr(s string, tv timeVal) bool {
	switch c.op {
	case syn.OpEq:
		return equalStr(s, tv, c.lit)
	case syn.OpNeq:
		return !equalStr(s, tv, c.lit)
	case syn.OpIn:
		for _, e := range c.in {
			if equalStr(s, tv, e) {
				return true
			}
		}
		return false
	case syn.OpContains:
		return containsFold([]byte(s), c.needle)
	case syn.OpGt, syn.OpLt, syn.OpGte, syn.OpLte:
		if c.lit.v.Kind != syn.KindString {
			return false
		}
		var r int
		if c.lit.isTime && tv.ok {
			r = cmpInstant(tv, c.lit)
		} else {
			r = strings.Compare(s, c.lit.v.Str)
		}
		return ordered(c.op, r)
	}
	return false
}

// testNum is test for a number value.
func (c *cond) testNum(f float64) bool {
	switch c.op {
	case syn.OpEq:
		return c.lit.v.Kind == syn.KindNumber && f == c.lit.v.Num
	case syn.OpNeq:
		return c.lit.v.Kind != syn.KindNumber || f != c.lit.v.Num
	case syn.OpIn:
		for _, e := range c.in {
			if e.v.Kind == syn.KindNumber && f == e.v.Num {
				return true
			}
		}
		return false
	case syn.OpGt, syn.OpLt, syn.OpGte, syn.OpLte:
		if c.lit.v.Kind != syn.KindNumber {
			return false
		}
		return ordered(c.op, cmp.Compare(f, c.lit.v.Num))
	}
	return false
}

// testKind is test for a true, false, null or object value.
func (c *cond) testKind(k uint8) bool {
	eq := func(l literal) bool {
		switch l.v.Kind {
		case syn.KindBool:
			return (l.v.Bool && k == kTrue) || (!l.v.Bool && k == kFalse)
		case syn.KindNull:
			return k == kNull
		}
		return false
	}
	switch c.op {
	case syn.OpEq:
		return eq(c.lit)
	case syn.OpNeq:
		return !eq(c.lit)
	case syn.OpIn:
		return slices.ContainsFunc(c.in, eq)
	}
	return false
}

func equalStr(s string, tv timeVal, l literal) bool {
	if l.v.Kind != syn.KindString {
		return false
	}
	if s == l.v.Str {
		return true
	}
	return l.isTime && tv.ok && cmpInstant(tv, l) == 0
}

func cmpInstant(tv timeVal, l literal) int {
	if c := cmp.Compare(tv.sec, l.t.Unix()); c != 0 {
		return c
	}
	return cmp.Compare(tv.nsec, int32(l.t.Nanosecond()))
}

func ordered(op string, r int) bool {
	switch op {
	case syn.OpGt:
		return r > 0
	case syn.OpLt:
		return r < 0
	case syn.OpGte:
		return r >= 0
	}
	return r <= 0
}

// hit is a matching document: its place in the order and its index in
// the set, which breaks ties.
type hit struct {
	rank uint32
	idx  int32
}

func (a hit) before(b hit) bool {
	return a.rank < b.rank || a.rank == b.rank && a.idx < b.idx
}

// key packs the hit into one integer that orders as before does.
func (a hit) key() uint64 { return uint64(a.rank)<<32 | uint64(uint32(a.idx)) }

// hits is a max-heap of the best hits seen: its root is the worst kept.
type hits struct{ items []hit }

// push adds x to a heap holding fewer than limit hits.
func (h *hits) push(x hit) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.items[p].before(h.items[i]) {
			break
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

// replaceRoot puts x, better than the root, in its place.
func (h *hits) replaceRoot(x hit) {
	it := h.items
	it[0] = x
	i, n := 0, len(it)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && it[l].before(it[r]) {
			c = r
		}
		if !it[i].before(it[c]) {
			return
		}
		it[i], it[c] = it[c], it[i]
		i = c
	}
}

// groupPaths returns the distinct paths of the plan's where groups and,
// for each group, the index of its path.
func (pl *plan) groupPaths() ([][]string, []int) {
	var paths [][]string
	idx := make([]int, len(pl.groups))
	seen := map[string]int{}
	for i, g := range pl.groups {
		k := pathKey(g.path)
		j, ok := seen[k]
		if !ok {
			j = len(paths)
			seen[k] = j
			paths = append(paths, g.path)
		}
		idx[i] = j
	}
	return paths, idx
}

// parallel runs fn on the index of every segment of s, on the calling
// goroutine and up to n-1 others (share), each with its own parser; the
// first error stops the others.
func parallel(ctx context.Context, s *docSet, n int, reverse bool, fn func(w, i int, p *fastjson.Parser) error) error {
	n = max(1, min(n, len(s.segs)))
	var stop atomic.Bool
	errs := make([]error, n)
	parsers := make([]*fastjson.Parser, n) // one each, apart in memory
	share(n, len(s.segs), func(w, i int) {
		if stop.Load() {
			return
		}
		if err := ctx.Err(); err != nil {
			errs[w] = err
			stop.Store(true)
			return
		}
		if reverse {
			i = len(s.segs) - 1 - i
		}
		if parsers[w] == nil {
			parsers[w] = new(fastjson.Parser)
		}
		if err := fn(w, i, parsers[w]); err != nil {
			errs[w] = err
			stop.Store(true)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// compileGroups compiles the plan's where groups against the columns of
// one segment (pidx maps a group to its column).
func compileGroups(pl *plan, c []*column, pidx []int) []gtest {
	gs := make([]gtest, len(pl.groups))
	for i, g := range pl.groups {
		gt := gtest{col: c[pidx[i]]}
		for _, cd := range g.conds {
			if cd.op == syn.OpExists {
				gt.exists = append(gt.exists, cd.exists)
			} else {
				gt.tests = append(gt.tests, cd.compileFor(gt.col))
			}
		}
		gs[i] = gt
	}
	// one points into gs, whose place is now fixed.
	for i := range gs {
		if gt := &gs[i]; len(gt.exists) == 0 && len(gt.tests) == 1 {
			gt.one = &gt.tests[0]
		}
	}
	return gs
}

// evalTable evaluates a compiled query over a loaded Table: the segments'
// keys and columns are built where missing, the cursor is found, then each
// worker filters whole segments on the columns into its own bounded heap,
// and the heaps are merged; ties in the order fall to the storage order,
// so the result does not depend on the number of workers.
func (t *Table) evalTable(ctx context.Context, pl *plan, res *Result, opts Options) (*Result, error) {
	s := t.sets[pl.dom.Name]
	if s == nil {
		s = newDocSet(nil)
	}
	paths, pidx := pl.groupPaths()
	n := opts.workers()
	cols := make([][]*column, len(s.segs))
	prep := func(_, i int, p *fastjson.Parser) error {
		c, err := s.segs[i].prepare(s.docs, paths, p)
		cols[i] = c
		return err
	}
	// Columns already built are only looked up: no worker is started.
	workers := n
	if s.allBuilt(paths) {
		workers = 1
	}
	if err := parallel(ctx, s, workers, false, prep); err != nil {
		return nil, err
	}
	s.setBuilt(paths)
	var err error
	q := pl.q
	ranks, best := s.ranks(q.Order != "asc")
	after := -1 // the cursor's rank: only documents placed after it count
	if q.StartAfter != "" {
	find:
		for _, sg := range s.segs {
			for j := range sg.keys {
				if k := &sg.keys[j]; sg.obj[j] && k.idStr && k.id == q.StartAfter {
					after = int(ranks[sg.lo+j])
					break find
				}
			}
		}
		if after < 0 {
			return nil, cursorError(q, pl.dom.Name)
		}
	}
	// The workers keep their hits in one heap, under mu: a hit reaches it
	// only when it is before the bound, which a full heap makes its root's
	// key, the worst of the best limit hits found so far by any worker.
	// (A heap per worker would bound each by the best of its own
	// segments, looser: more documents would be tested.) The keys are
	// distinct, so what the heap keeps does not depend on the order the
	// workers find the hits in.
	var heap hits
	var mu sync.Mutex
	// bound is the key of the worst hit kept in the heap when it is full.
	// A document whose hit is not before it cannot be in the result, so
	// the workers drop such documents, and whole segments whose best place
	// is not before it, without testing them.
	var bound atomic.Uint64
	bound.Store(math.MaxUint64)
	lower := func(k uint64) uint64 {
		for {
			old := bound.Load()
			if k >= old || bound.CompareAndSwap(old, k) {
				return min(k, old)
			}
		}
	}
	// The scan runs in the direction of the order: over data stored in
	// time order the bound then rejects most documents (and segments)
	// before their conditions are tested. The result does not depend on
	// it.
	desc := q.Order != "asc"
	// skip reports whether segment si cannot enter the result.
	skip := func(si int) bool {
		return (hit{rank: best[si], idx: int32(s.segs[si].lo)}).key() >= bound.Load()
	}
	scan := func(si int) {
		sg := s.segs[si]
		lim := bound.Load()
		if skip(si) {
			return
		}
		c := cols[si]
		var gs []gtest // compiled when a document first reaches its tests
		segRanks := ranks[sg.lo:sg.hi]
		m := sg.hi - sg.lo
		// The first group of one condition is tested first, from slices
		// held in locals: where nothing is inlined (WebAssembly) every
		// field read through g and its column is a load from memory, and
		// most documents fail one group. A document it passes, or whose
		// value is not one string, is tested with every group below.
		var off0 []int32
		var kind0 []uint8
		var sid0 []uint32
		var str0 []uint8
		var t0 *vtest
	docs:
		for jj := range m {
			j := jj
			if desc {
				j = m - 1 - jj
			}
			if !sg.obj[j] || int(segRanks[j]) <= after {
				continue
			}
			if t0 != nil {
				// A document whose first test is already known false
				// is dropped before its place in the order is looked
				// at: the test reads locals only, where the place is a
				// call (WebAssembly inlines nothing).
				if k := off0[j]; off0[j+1] == k+1 && kind0[k] == kString && str0[sid0[k]] == strFalse {
					continue
				}
			}
			x := hit{rank: segRanks[j], idx: int32(sg.lo + j)}
			if jj%64 == 0 {
				lim = min(lim, bound.Load()) // another worker's heap may be full
			}
			if x.key() >= lim {
				continue
			}
			if gs == nil {
				gs = compileGroups(pl, c, pidx)
				for i := range gs {
					if t := gs[i].one; t != nil {
						c := gs[i].col
						off0, kind0, sid0, str0, t0 = c.off, c.kind, c.sid, t.str, t
						break
					}
				}
			}
			if t0 != nil {
				if k := off0[j]; off0[j+1] == k+1 && kind0[k] == kString {
					id := sid0[k]
					v := str0[id]
					if v == strUnknown {
						v = t0.fill(id)
					}
					if v != strTrue {
						continue
					}
				}
			}
			for i := range gs {
				g := &gs[i]
				// The common case without a call, which costs most where
				// nothing is inlined (WebAssembly).
				if t := g.one; t != nil {
					col := g.col
					if k := col.off[j]; col.off[j+1] == k+1 && col.kind[k] == kString {
						id := col.sid[k]
						v := t.str[id]
						if v == strUnknown {
							v = t.fill(id)
						}
						if v != strTrue {
							continue docs
						}
						continue
					}
				}
				if !g.match(j) {
					continue docs
				}
			}
			mu.Lock()
			switch {
			case len(heap.items) < q.Limit:
				heap.push(x)
			case x.before(heap.items[0]):
				// Another worker may have filled the heap with better
				// hits since lim was read.
				heap.replaceRoot(x)
			}
			if len(heap.items) == q.Limit {
				lim = lower(heap.items[0].key())
			}
			mu.Unlock()
		}
	}
	// The first segment in the order's direction is scanned alone: over
	// data stored in time order its documents usually fill the heap, and
	// the bound then skips every other segment, which leaves nothing to
	// split (starting workers would only cost). The others are split
	// among the workers when any of them can still enter the result.
	if len(s.segs) > 0 {
		first := 0
		if desc {
			first = len(s.segs) - 1
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		scan(first)
		// The segments that can still enter the result: fewer than
		// splitSegs are scanned by one worker, as a split would cost
		// more than it saves.
		rest := 0
		for si := range s.segs {
			if si != first && !skip(si) {
				rest++
			}
		}
		if rest > 0 {
			workers := n
			if rest < splitSegs {
				workers = 1
			}
			err = parallel(ctx, s, workers, desc, func(_, si int, _ *fastjson.Parser) error {
				if si != first {
					scan(si)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	all := heap.items
	slices.SortFunc(all, func(a, b hit) int {
		if a.before(b) {
			return -1
		}
		if b.before(a) {
			return 1
		}
		return 0
	})
	if len(all) > q.Limit {
		all = all[:q.Limit]
	}
	var p fastjson.Parser
	docs, err := projectDocs(ctx, &p, pl, opts, len(all), func(i int) []byte { return s.docs[all[i].idx] })
	if err != nil {
		return nil, err
	}
	res.Docs = append(res.Docs, docs...)
	return res, nil
}

// splitSegs is the least number of segments (after the first) whose
// documents a query on a Table tests that are split among workers: one
// segment is scanned by one worker.
const splitSegs = 2

// scanDocs tests the documents of a Table as a file's are tested (the
// bytes pre-filter, then a parse of those that pass), its segments split
// among n workers, each into its own heap; it returns the kept entries.
func (t *Table) scanDocs(ctx context.Context, pl *plan, n int) ([]entry, error) {
	s := t.sets[pl.dom.Name]
	if s == nil {
		return nil, nil
	}
	heaps := make([]topk, max(1, min(n, len(s.segs))))
	for w := range heaps {
		heaps[w].less = pl.entryBefore
	}
	err := parallel(ctx, s, n, false, func(w, si int, p *fastjson.Parser) error {
		sg := s.segs[si]
		for i := sg.lo; i < sg.hi; i++ {
			if i%256 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := pl.offer(p, &heaps[w], s.docs[i], int64(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var all []entry
	for _, h := range heaps {
		all = append(all, h.items...)
	}
	return all, nil
}
