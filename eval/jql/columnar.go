package jql

import (
	"cmp"
	"context"
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
// for each string of the column's dictionary and for each constant kind;
// numbers are tested one by one.
type vtest struct {
	c     *cond
	str   []bool
	kinds [nKinds]bool
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
				ok = t.str[col.sid[k]]
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

func (c *cond) compileFor(col *column, scratch []bool) vtest {
	t := vtest{c: c, str: scratch[:0]}
	for i, s := range col.dict {
		t.str = append(t.str, c.testStr(s, col.times[i]))
	}
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

// parallel runs fn on every segment of s, on up to n goroutines, each
// with its own parser; the first error stops the others.
func parallel(ctx context.Context, s *docSet, n int, reverse bool, fn func(w int, sg *segment, p *fastjson.Parser) error) error {
	n = max(1, min(n, len(s.segs)))
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, n)
	work := func(w int) {
		var p fastjson.Parser
		for !stop.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(s.segs) {
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
			if err := fn(w, s.segs[i], &p); err != nil {
				errs[w] = err
				stop.Store(true)
				return
			}
		}
	}
	if n == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work(w)
			}()
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
	segIndex := make(map[*segment]int, len(s.segs))
	for i, sg := range s.segs {
		segIndex[sg] = i
	}
	err := parallel(ctx, s, n, false, func(_ int, sg *segment, p *fastjson.Parser) error {
		c, err := sg.prepare(s.docs, paths, p)
		cols[segIndex[sg]] = c
		return err
	})
	if err != nil {
		return nil, err
	}
	q := pl.q
	ranks := s.ranks(q.Order != "asc")
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
	heaps := make([]hits, max(1, min(n, len(s.segs))))
	// The scan runs in the direction of the order: over data stored in
	// time order the heap's bound then rejects most documents before
	// their conditions are tested. The result does not depend on it.
	desc := q.Order != "asc"
	err = parallel(ctx, s, n, desc, func(w int, sg *segment, _ *fastjson.Parser) error {
		c := cols[segIndex[sg]]
		gs := make([]gtest, len(pl.groups))
		for i, g := range pl.groups {
			gt := gtest{col: c[pidx[i]]}
			for _, cd := range g.conds {
				if cd.op == syn.OpExists {
					gt.exists = append(gt.exists, cd.exists)
				} else {
					gt.tests = append(gt.tests, cd.compileFor(gt.col, make([]bool, 0, len(gt.col.dict))))
				}
			}
			if len(gt.exists) == 0 && len(gt.tests) == 1 {
				gt.one = &gt.tests[0]
			}
			gs[i] = gt
		}
		h := &heaps[w]
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
		var str0 []bool
		for i := range gs {
			if t := gs[i].one; t != nil {
				c := gs[i].col
				off0, kind0, sid0, str0 = c.off, c.kind, c.sid, t.str
				break
			}
		}
	docs:
		for jj := range m {
			j := jj
			if desc {
				j = m - 1 - jj
			}
			if !sg.obj[j] || int(segRanks[j]) <= after {
				continue
			}
			if off0 != nil {
				if k := off0[j]; off0[j+1] == k+1 && kind0[k] == kString && !str0[sid0[k]] {
					continue
				}
			}
			x := hit{rank: segRanks[j], idx: int32(sg.lo + j)}
			full := len(h.items) == q.Limit
			if full && !x.before(h.items[0]) {
				continue
			}
			for i := range gs {
				g := &gs[i]
				// The common case without a call, which costs most where
				// nothing is inlined (WebAssembly).
				if t := g.one; t != nil {
					col := g.col
					if k := col.off[j]; col.off[j+1] == k+1 && col.kind[k] == kString {
						if !t.str[col.sid[k]] {
							continue docs
						}
						continue
					}
				}
				if !g.match(j) {
					continue docs
				}
			}
			if full {
				h.replaceRoot(x)
				continue
			}
			h.push(x)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var all []hit
	for _, h := range heaps {
		all = append(all, h.items...)
	}
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
	err := parallel(ctx, s, n, false, func(w int, sg *segment, p *fastjson.Parser) error {
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
