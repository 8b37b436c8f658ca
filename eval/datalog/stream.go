package datalog

import "slices"

// Streamed joins. The general path of a rule materializes the bindings
// after each positive atom and compacts them (projectDead), which drops
// the rows that only differ in variables nothing reads any more. Where
// that compaction cannot drop anything, the rows need not be
// materialized at all: a streamed plan walks the atoms depth first, one
// binding row at a time, from a driving atom (a round's new tuples when
// the rule reads them) through index lookups on the atoms after it,
// and builds each head row in the innermost loop.
//
// The compaction after an atom drops nothing when no variable dies
// there, or when the variables the atom binds are a key of what it
// reads (two rows that agree on them agree on the whole tuple, so the
// bindings they extend stay distinct once the dying variables are
// dropped). A plan is streamed only when that holds after every atom
// but the last, whose rows go to the head (and its set) directly.

// sstep is one atom of a streamed plan.
type sstep struct {
	t    *table
	m    int    // rows read: the first m of t
	ix   *index // on cols; nil: every row is read
	cols []int
	// vals is the lookup key: the constants, then keySlots' values.
	vals     []uint32
	nconst   int
	keySlots []int
	newPos   []int // positions binding a variable first bound here
	newSlots []int
	eqPos    [][2]int // positions that must hold equal values
	// semi: the atom binds nothing: one matching tuple suffices.
	semi bool
	// conds and keeps are the conditions and negations that can be
	// decided once this atom is bound.
	conds []ccond
	keeps []func([]uint32) bool
}

// streamPlan is a rule's streamed plan.
type streamPlan struct {
	steps []sstep
	head  []carg
	row   []uint32
	out   []uint32
	seen  *tupleSet
	bits  []uint64
	side  uint64
	emit  func([]uint32) error
	// sink, when set, receives the head rows instead of emit.
	sink *headSink
}

// headSink is what an emit function does with a head row, for the
// innermost loop of a streamed plan to do it without a call: a row not
// in seen (read only; nil: none) is added to set, and when new there
// appended to tab, counted in *count and checked by over.
type headSink struct {
	seen, set *tupleSet
	tab       *table
	count     *int
	over      func(n int) error
	// limit is the most rows for which over reports no error: over is
	// called only beyond it.
	limit int
	// route, when set, makes set a bitmap that the sink reads only: a
	// row whose bit is clear goes to route[bit>>shift] (the rows of one
	// region of the bitmap) instead of tab, for the region's owner to set
	// the bits after (see runSplit), and a row outside the bitmap goes to
	// rest, for the caller to insert after.
	route []*table
	shift uint
	rest  *table
}

// into adds row to k's set and returns the table to append it to, nil
// when the set held it. When k routes (see route), the row is only
// tested: it is new unless its bit is set.
func (k *headSink) into(row []uint32) *table {
	s := k.set
	if k.route == nil {
		if s.add(row) {
			return k.tab
		}
		return nil
	}
	b, ok := s.bit(row)
	if !ok {
		k.rest.append(row)
		return nil
	}
	if s.bits[b>>6]&(1<<(b&63)) != 0 {
		return nil
	}
	return k.route[b>>k.shift]
}

// runStream evaluates cr as runInto does, through a streamed plan. It
// reports false, having emitted nothing, when the rule cannot be
// streamed (see the comment above) or is better not: fewer than two
// positive atoms, clauses other than conditions and negations, a head
// with expressions, an equivalence relation among the atoms, or an atom
// with no bound variable after the first.
func (ev *evaluator) runStream(cr *crule, src func(i int) source, neg func(j int) source, seen *tupleSet, emit func([]uint32) error) (bool, error) {
	if ev.keepAll || ev.general || len(cr.pos) < 2 || len(cr.steps) > 0 || !fusable(cr.head) {
		return false, nil
	}
	srcs := make([]source, len(cr.pos))
	for i := range cr.pos {
		if srcs[i] = src(i); srcs[i].eq != nil {
			return false, nil
		}
	}
	// Drivers to try: a one-round table (the new tuples of a round)
	// first, then the smaller tables.
	drivers := make([]int, len(cr.pos))
	for i := range drivers {
		drivers[i] = i
	}
	slices.SortStableFunc(drivers, func(a, b int) int {
		ta, tb := srcs[a].kind != srcTemp, srcs[b].kind != srcTemp
		if ta != tb {
			if !ta {
				return -1
			}
			return 1
		}
		return srcs[a].n - srcs[b].n
	})
	for _, d := range drivers {
		order, ok := streamOrder(cr, srcs, d)
		if !ok {
			continue
		}
		p, ok, err := ev.planStream(cr, srcs, neg, order)
		if err != nil {
			return true, err
		}
		if !ok {
			continue
		}
		p.seen, p.emit = seen, emit
		if seen != nil && seen.arity == 2 && len(cr.head) == 2 && seen.bits != nil {
			p.bits, p.side = seen.bits, seen.side
		}
		if k := ev.sink; k != nil && k.seen == seen && k.set.arity == len(cr.head) {
			p.sink = k
		}
		return true, ev.walk(p, 0)
	}
	return false, nil
}

// streamOrder returns the order of cr's positive atoms from driver d:
// each next atom the one with a bound variable or constant, the most
// bound first, then the smaller; false when some atom has none.
func streamOrder(cr *crule, srcs []source, d int) ([]int, bool) {
	bound := make([]bool, cr.nvars)
	done := make([]bool, len(cr.pos))
	order := []int{d}
	mark := func(i int) {
		done[i] = true
		for _, g := range cr.pos[i].args {
			if g.kind == aVar {
				bound[g.slot] = true
			}
		}
	}
	mark(d)
	for len(order) < len(cr.pos) {
		best, bestNB := -1, 0
		for i, a := range cr.pos {
			if done[i] {
				continue
			}
			nb := 0
			for _, g := range a.args {
				if g.kind == aConst || (g.kind == aVar && bound[g.slot]) {
					nb++
				}
			}
			if nb == 0 {
				continue
			}
			if best < 0 || nb > bestNB || (nb == bestNB && srcs[i].n < srcs[best].n) {
				best, bestNB = i, nb
			}
		}
		if best < 0 {
			return nil, false
		}
		order = append(order, best)
		mark(best)
	}
	return order, true
}

// planStream builds the streamed plan of cr for the atoms in order, and
// reports false when a variable dies after an atom (before the last)
// whose new variables are not a key of what it reads.
func (ev *evaluator) planStream(cr *crule, srcs []source, neg func(j int) source, order []int) (*streamPlan, bool, error) {
	bound := make([]bool, cr.nvars)
	negDone := make([]bool, len(cr.negs))
	condDone := make([]bool, len(cr.conds))
	p := &streamPlan{head: cr.head, row: make([]uint32, cr.nvars), out: make([]uint32, len(cr.head))}
	// ready collects the conditions and negations decidable now.
	ready := func(st *sstep) error {
		for j, a := range cr.negs {
			if negDone[j] || !allBound(a, bound) {
				continue
			}
			negDone[j] = true
			keep, err := ev.negProbe(a, neg(j))
			if err != nil {
				return err
			}
			st.keeps = append(st.keeps, keep)
		}
		for j, c := range cr.conds {
			if condDone[j] || (c.l.isVar && !bound[c.l.slot]) || (c.r.isVar && !bound[c.r.slot]) {
				continue
			}
			condDone[j] = true
			st.conds = append(st.conds, c)
		}
		return nil
	}
	// What nothing binds is decided before the first atom.
	var pre sstep
	if err := ready(&pre); err != nil {
		return nil, false, err
	}
	for _, keep := range pre.keeps {
		if !keep(p.row) {
			return p, true, nil
		}
	}
	for i := range pre.conds {
		if !ev.compare(p.row, &pre.conds[i]) {
			return p, true, nil
		}
	}
	for k, ai := range order {
		a, s := cr.pos[ai], srcs[ai]
		st := sstep{t: s.t, m: s.n}
		var constPos, keyPos []int
		firstAt := map[int]int{}
		for pos, g := range a.args {
			switch g.kind {
			case aConst:
				if !g.ok {
					// The constant occurs nowhere in the data.
					p.steps = nil
					return p, true, nil
				}
				constPos = append(constPos, pos)
			case aVar:
				switch q, ok := firstAt[g.slot]; {
				case bound[g.slot]:
					keyPos = append(keyPos, pos)
					st.keySlots = append(st.keySlots, g.slot)
				case ok:
					st.eqPos = append(st.eqPos, [2]int{q, pos})
				case cr.single != nil && cr.single[g.slot]:
					// Read as "_".
				default:
					firstAt[g.slot] = pos
					st.newPos = append(st.newPos, pos)
					st.newSlots = append(st.newSlots, g.slot)
				}
			}
		}
		st.semi = len(st.newPos) == 0
		st.cols = append(constPos, keyPos...)
		st.nconst = len(constPos)
		st.vals = make([]uint32, len(st.cols))
		for i, pos := range constPos {
			st.vals[i] = a.args[pos].id
		}
		for _, s := range st.newSlots {
			bound[s] = true
		}
		if err := ready(&st); err != nil {
			return nil, false, err
		}
		if k < len(order)-1 && dies(cr, order[k+1:], bound, negDone, condDone) {
			if st.semi {
				return nil, false, nil
			}
			ix, err := ev.relIndex(s, st.newPos)
			if err != nil {
				return nil, false, err
			}
			if !ix.unique() {
				return nil, false, nil
			}
		}
		if len(st.cols) > 0 {
			ix, err := ev.relIndex(s, st.cols)
			if err != nil {
				return nil, false, err
			}
			st.ix = ix
		}
		p.steps = append(p.steps, st)
	}
	return p, true, nil
}

// dies reports whether a bound variable is read by neither the head nor
// the atoms rest, nor a negation or condition not decided yet: the
// general path would drop it (projectDead).
func dies(cr *crule, rest []int, bound, negDone, condDone []bool) bool {
	live := make([]bool, cr.nvars)
	for _, h := range cr.head {
		if h.kind == aVar {
			live[h.slot] = true
		}
	}
	for _, i := range rest {
		for _, g := range cr.pos[i].args {
			if g.kind == aVar {
				live[g.slot] = true
			}
		}
	}
	for j, a := range cr.negs {
		if !negDone[j] {
			for _, g := range a.args {
				if g.kind == aVar {
					live[g.slot] = true
				}
			}
		}
	}
	for j, c := range cr.conds {
		if !condDone[j] {
			if c.l.isVar {
				live[c.l.slot] = true
			}
			if c.r.isVar {
				live[c.r.slot] = true
			}
		}
	}
	for s, b := range bound {
		if b && !live[s] {
			return true
		}
	}
	return false
}

// unique reports whether no two rows indexed share a key: the key
// columns are a key of the rows indexed (and of any prefix of them).
func (ix *index) unique() bool {
	if ix.lists != nil {
		return len(ix.lists) == ix.done
	}
	return len(ix.start)-1 == len(ix.rows)
}

// walk runs the steps of p from k on, over the binding in p.row.
func (ev *evaluator) walk(p *streamPlan, k int) error {
	if len(p.steps) == 0 {
		return nil
	}
	st := &p.steps[k]
	last := k == len(p.steps)-1
	if last && st.ix != nil && st.ix.exact() && p.sink != nil && p.sink.set.bits != nil && p.sink.set.arity == 2 && len(p.head) == 2 &&
		(p.sink.seen == nil || p.sink.seen == p.sink.set) && len(st.keeps) == 0 && len(st.conds) == 0 && !st.semi {
		return ev.walkLast(p, st)
	}
	row := p.row
	var rows []int32
	n := st.m
	if st.ix != nil {
		for i, s := range st.keySlots {
			st.vals[st.nconst+i] = row[s]
		}
		rows = st.ix.lookup(st.vals)
		n = len(rows)
	}
	exact := st.ix == nil || st.ix.exact()
	for j := 0; j < n; j++ {
		r := j
		if rows != nil {
			r = int(rows[j])
			if r >= st.m {
				break
			}
		}
		if err := ev.check(); err != nil {
			return err
		}
		tup := st.t.row(r)
		if !exact && !eqVals(tup, st.cols, st.vals) {
			continue
		}
		if !eqPairs(tup, st.eqPos) {
			continue
		}
		for i, pos := range st.newPos {
			row[st.newSlots[i]] = tup[pos]
		}
		if !ev.decided(st, row) {
			continue
		}
		if last {
			if err := p.emitHead(); err != nil {
				return err
			}
		} else if err := ev.walk(p, k+1); err != nil {
			return err
		}
		if st.semi {
			break
		}
	}
	return nil
}

func eqPairs(tup []uint32, eqPos [][2]int) bool {
	for _, e := range eqPos {
		if tup[e[0]] != tup[e[1]] {
			return false
		}
	}
	return true
}

// decided reports whether row passes the conditions and negations st
// decides.
func (ev *evaluator) decided(st *sstep, row []uint32) bool {
	for i := range st.conds {
		if !ev.compare(row, &st.conds[i]) {
			return false
		}
	}
	for _, keep := range st.keeps {
		if !keep(row) {
			return false
		}
	}
	return true
}

// emitHead builds the head row of the binding in p.row and passes it to
// emit unless the head's set holds it.
func (p *streamPlan) emitHead() error {
	out := p.out
	for j, h := range p.head {
		if h.kind == aVar {
			out[j] = p.row[h.slot]
		} else {
			out[j] = h.id
		}
	}
	k := p.sink
	switch {
	case k != nil && k.set == p.seen:
		// The insert tests the set.
	case p.bits != nil:
		if a, z := uint64(out[0]), uint64(out[1]); a < p.side && z < p.side {
			b := a*p.side + z
			if p.bits[b>>6]&(1<<(b&63)) != 0 {
				return nil
			}
		}
	case p.seen != nil && p.seen.has(out):
		return nil
	}
	if k == nil {
		return p.emit(out)
	}
	t := k.into(out)
	if t == nil {
		return nil
	}
	t.append(out)
	if *k.count++; *k.count > k.limit {
		return k.over(*k.count)
	}
	return nil
}

// walkLast is the last step of walk for the common case: an exact index
// lookup, nothing left to decide, and a two-column head whose set is a
// bitmap, into which the sink inserts (so that the test of the bit is
// the insert), or which it only reads when it routes the rows (see
// headSink).
func (ev *evaluator) walkLast(p *streamPlan, st *sstep) error {
	row, out, head := p.row, p.out, p.head
	for i, s := range st.keySlots {
		st.vals[st.nconst+i] = row[s]
	}
	rows := st.ix.lookup(st.vals)
	if err := ev.checkN(len(rows)); err != nil {
		return err
	}
	k := p.sink
	bits, side, route := k.set.bits, k.set.side, k.route
	for _, r := range rows {
		if int(r) >= st.m {
			break
		}
		tup := st.t.row(int(r))
		if !eqPairs(tup, st.eqPos) {
			continue
		}
		for i, pos := range st.newPos {
			row[st.newSlots[i]] = tup[pos]
		}
		for j, h := range head {
			if h.kind == aVar {
				out[j] = row[h.slot]
			} else {
				out[j] = h.id
			}
		}
		tab := k.tab
		if a, z := uint64(out[0]), uint64(out[1]); a < side && z < side {
			b := a*side + z
			w, m := b>>6, uint64(1)<<(b&63)
			if bits[w]&m != 0 {
				continue
			}
			if route != nil {
				tab = route[b>>k.shift]
			} else {
				bits[w] |= m
			}
		} else if tab = k.into(out); tab == nil {
			continue
		}
		tab.append(out)
		if *k.count++; *k.count > k.limit {
			if err := k.over(*k.count); err != nil {
				return err
			}
		}
	}
	return nil
}
