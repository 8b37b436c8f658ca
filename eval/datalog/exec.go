package datalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

type argKind uint8

const (
	aVar argKind = iota
	aConst
	aWild
	aExpr // a computed head argument
)

type carg struct {
	kind argKind
	slot int    // aVar
	id   uint32 // aConst
	ok   bool   // aConst: the value occurs in the data
	// group marks, in an aggregate's atom, a variable bound outside it.
	group bool
	x     *cexpr // aExpr
}

type catom struct {
	name string
	args []carg
	neg  bool
	at   int // index of the body item
}

type operand struct {
	isVar   bool
	slot    int
	str     string
	numeric bool   // a number literal or a variable of a numeric type
	id      uint32 // a constant's id, when idOK
	idOK    bool   // the constant occurs in the data
}

type ccond struct {
	op   string
	l, r operand
	at   int // index of the body item
	// eqIDs: an "==" or "!=" that compares bytewise, decided on ids.
	eqIDs bool
}

type crule struct {
	nvars   int
	names   []string // variable names by slot
	head    []carg
	headRel string
	pos     []*catom
	// single marks the slots of variables that occur once in the rule,
	// in a positive atom: nothing reads their value, so a join treats
	// them as "_".
	single []bool
	negs   []*catom
	conds  []ccond
	steps  []*cstep
}

// numericType reports whether values of a parameter type compare as
// numbers in conditions (see syn.NumericType).
func numericType(t string) bool { return syn.NumericType(t) }

// compile resolves variables to slots and constants to ids. types gives
// each relation's parameter types. r has one head and no disjunction
// (see syn.Expand).
func compile(db *DB, r *syn.Rule, types func(string) []string) (*crule, error) {
	if r == nil || r.Head == nil {
		return nil, fmt.Errorf("no rule to evaluate")
	}
	cr := &crule{headRel: r.Head.Name.Name}
	slots := map[string]int{}
	varType := map[string]string{}
	bound := syn.RuleBound(r)
	slot := func(name string) int {
		s, ok := slots[name]
		if !ok {
			s = cr.nvars
			slots[name] = s
			cr.nvars++
			cr.names = append(cr.names, name)
		}
		return s
	}
	hidden := 0
	fresh := func() int {
		hidden++
		return slot(fmt.Sprintf("$%d", hidden))
	}
	numeric := func(name string) bool { return numericType(varType[name]) }
	// bindSlot is the slot a let or for binds ("_" binds a fresh one).
	bindSlot := func(t *syn.Term) int {
		if t.Kind == syn.Var {
			return slot(t.Value)
		}
		return fresh()
	}
	// Variables bound by lets, generators and aggregates hold numbers
	// (a let of a non-arithmetic expression excepted).
	for _, b := range r.Body {
		switch {
		case b.For != nil && b.For.Var.Kind == syn.Var && b.For.List == nil:
			varType[b.For.Var.Value] = "Int"
		case b.For != nil && b.For.Var.Kind == syn.Var && len(b.For.List) > 0:
			if compileExpr(b.For.List[0], func(string) int { return 0 }, numeric).isNumeric() {
				varType[b.For.Var.Value] = "Int"
			}
		case b.Let != nil && b.Let.Var.Kind == syn.Var:
			if x := compileExpr(b.Let.X, func(string) int { return 0 }, numeric); x.isNumeric() {
				varType[b.Let.Var.Value] = "Int"
			}
		case b.Agg != nil && b.Agg.Var != nil && b.Agg.Var.Kind == syn.Var:
			varType[b.Agg.Var.Value] = "Int"
		}
	}
	conv := func(t *syn.Term, intern bool) carg {
		switch t.Kind {
		case syn.Var:
			return carg{kind: aVar, slot: slot(t.Value)}
		case syn.Wildcard:
			return carg{kind: aWild}
		}
		if intern {
			return carg{kind: aConst, id: db.intern(t.Value), ok: true}
		}
		id, ok := db.lookup(t.Value)
		return carg{kind: aConst, id: id, ok: ok}
	}
	atomOf := func(at int, a0 *syn.Atom) (*catom, error) {
		a := &catom{name: a0.Name.Name, neg: a0.Negated, at: at}
		ts := types(a.name)
		if ts != nil && len(ts) != len(a0.Args) {
			return nil, fmt.Errorf("relation %s has %d parameter(s), used with %d", a.name, len(ts), len(a0.Args))
		}
		for j, t := range a0.Args {
			if t.Kind == syn.Tuple && !a.neg {
				// A tuple pattern: a fresh variable the column binds,
				// taken apart by a step.
				s := fresh()
				st := &cstep{kind: sUnpack, at: at, slot: -1, src: s, deps: []int{s}}
				st.pat = compilePattern(t, slot, numeric, &st.binds, &st.deps)
				cr.steps = append(cr.steps, st)
				a.args = append(a.args, carg{kind: aVar, slot: s})
				continue
			}
			if t.Kind == syn.Computed || t.Kind == syn.Tuple {
				// A computed argument is a fresh variable the
				// expression's value binds (or is compared with).
				s := fresh()
				cr.steps = append(cr.steps, &cstep{kind: sLet, at: at, slot: s, x: compileExpr(t, slot, numeric)})
				a.args = append(a.args, carg{kind: aVar, slot: s})
				continue
			}
			a.args = append(a.args, conv(t, false))
			if t.Kind == syn.Var && !a.neg {
				if _, ok := varType[t.Value]; !ok && ts != nil {
					varType[t.Value] = ts[j]
				}
			}
		}
		return a, nil
	}
	// Types first: positive atoms fix the variables' types.
	for _, b := range r.Body {
		if b.Atom != nil && !b.Atom.Negated {
			ts := types(b.Atom.Name.Name)
			for j, t := range b.Atom.Args {
				if t.Kind == syn.Tuple && ts != nil && j < len(ts) {
					patternTypes(t, ts[j], varType)
				}
				if t.Kind == syn.Var && ts != nil && j < len(ts) {
					if _, ok := varType[t.Value]; !ok {
						varType[t.Value] = ts[j]
					}
				}
			}
		}
	}
	// The variables of a let's tuple pattern take the types of the
	// tuple's elements.
	for _, b := range r.Body {
		if b.Let == nil || b.Let.Var.Kind != syn.Tuple {
			continue
		}
		x := b.Let.X
		if t, ok := x.(*syn.Term); ok && t.Kind == syn.Var {
			patternTypes(b.Let.Var, varType[t.Value], varType)
		}
		if t, ok := x.(*syn.Term); ok && t.Kind == syn.Tuple && len(t.Elems) == len(b.Let.Var.Elems) {
			for i, e := range b.Let.Var.Elems {
				if _, ok := varType[e.Value]; e.Kind == syn.Var && !ok && compileExpr(t.Elems[i], func(string) int { return 0 }, numeric).isNumeric() {
					varType[e.Value] = "Int"
				}
			}
		}
	}
	checkBound := func(t *syn.Term) error {
		if t.Kind == syn.Var && !bound[t.Value] {
			return fmt.Errorf("unsafe rule: variable %s is not bound by a positive body atom", t.Value)
		}
		if t.Kind == syn.Wildcard {
			return fmt.Errorf("'_' is not allowed here")
		}
		return nil
	}
	for at, b := range r.Body {
		switch {
		case b.Atom != nil:
			a, err := atomOf(at, b.Atom)
			if err != nil {
				return nil, err
			}
			if a.neg {
				for _, t := range b.Atom.Args {
					if t.Kind == syn.Var && !bound[t.Value] {
						return nil, fmt.Errorf("unsafe rule: variable %s is not bound by a positive body atom", t.Value)
					}
				}
				cr.negs = append(cr.negs, a)
			} else {
				cr.pos = append(cr.pos, a)
			}
		case b.Cond != nil:
			c := ccond{op: b.Cond.Op, at: at}
			for i, t := range []*syn.Term{b.Cond.Left, b.Cond.Right} {
				if err := checkBound(t); err != nil {
					return nil, err
				}
				o := operand{str: t.Value, numeric: t.Kind == syn.Num}
				o.id, o.idOK = db.lookup(t.Value)
				if t.Kind == syn.Var {
					o = operand{isVar: true, slot: slot(t.Value), numeric: numericType(varType[t.Value])}
				}
				if i == 0 {
					c.l = o
				} else {
					c.r = o
				}
			}
			c.eqIDs = (c.op == "==" || c.op == "!=") && !c.l.numeric && !c.r.numeric
			cr.conds = append(cr.conds, c)
		case b.If != nil:
			cr.steps = append(cr.steps, &cstep{kind: sTest, at: at, slot: -1, x: compileExpr(b.If.X, slot, numeric)})
		case b.Let != nil && b.Let.Var.Kind == syn.Tuple:
			// let (a, b) = X: X into a fresh variable, taken apart.
			s := fresh()
			cr.steps = append(cr.steps, &cstep{kind: sLet, at: at, slot: s, x: compileExpr(b.Let.X, slot, numeric)})
			st := &cstep{kind: sUnpack, at: at, slot: -1, src: s, deps: []int{s}}
			st.pat = compilePattern(b.Let.Var, slot, numeric, &st.binds, &st.deps)
			cr.steps = append(cr.steps, st)
		case b.Let != nil:
			cr.steps = append(cr.steps, &cstep{kind: sLet, at: at, slot: bindSlot(b.Let.Var), x: compileExpr(b.Let.X, slot, numeric)})
		case b.For != nil && b.For.List != nil:
			// for PATTERN in [X, …]: each value into the variable, or
			// into a fresh one a tuple pattern takes apart.
			st := &cstep{kind: sFor, at: at}
			for _, x := range b.For.List {
				st.list = append(st.list, compileExpr(x, slot, numeric))
			}
			if b.For.Var.Kind != syn.Tuple {
				st.slot = bindSlot(b.For.Var)
				cr.steps = append(cr.steps, st)
				break
			}
			st.slot = fresh()
			cr.steps = append(cr.steps, st)
			un := &cstep{kind: sUnpack, at: at, slot: -1, src: st.slot, deps: []int{st.slot}}
			un.pat = compilePattern(b.For.Var, slot, numeric, &un.binds, &un.deps)
			cr.steps = append(cr.steps, un)
		case b.For != nil:
			cr.steps = append(cr.steps, &cstep{kind: sFor, at: at, slot: bindSlot(b.For.Var), inclusive: b.For.Inclusive,
				lo: compileExpr(b.For.Lo, slot, numeric), hi: compileExpr(b.For.Hi, slot, numeric)})
		case b.Agg != nil:
			st, err := compileAgg(r, at, b.Agg, conv, slot, types)
			if err != nil {
				return nil, err
			}
			cr.steps = append(cr.steps, st)
		}
	}
	for _, st := range cr.steps {
		for _, x := range append([]*cexpr{st.x, st.lo, st.hi}, st.list...) {
			st.deps = x.slots(st.deps)
		}
	}
	uses := map[string]int{}
	syn.Inspect(r, func(n syn.Node) bool {
		if t, ok := n.(*syn.Term); ok && t.Kind == syn.Var {
			uses[t.Value]++
		}
		return true
	})
	cr.single = make([]bool, cr.nvars)
	for _, a := range cr.pos {
		for _, g := range a.args {
			if g.kind == aVar && uses[cr.names[g.slot]] == 1 {
				cr.single[g.slot] = true
			}
		}
	}
	// Never nil, even for a head of no arguments: a nil head makes run
	// emit whole binding rows (see run).
	cr.head = make([]carg, 0, len(r.Head.Args))
	for _, t := range r.Head.Args {
		if t.Kind == syn.Computed || t.Kind == syn.Tuple {
			x := compileExpr(t, slot, numeric)
			for _, d := range x.slots(nil) {
				if !bound[cr.names[d]] {
					return nil, fmt.Errorf("unsafe rule: variable %s is not bound by a positive body atom", cr.names[d])
				}
			}
			cr.head = append(cr.head, carg{kind: aExpr, x: x})
			continue
		}
		if err := checkBound(t); err != nil {
			return nil, err
		}
		cr.head = append(cr.head, conv(t, true))
	}
	return cr, nil
}

// compileAgg compiles an aggregate clause: the variables of its atom
// that the rest of the rule uses group it; the others are its own.
func compileAgg(r *syn.Rule, at int, g *syn.Agg, conv func(*syn.Term, bool) carg, slot func(string) int, types func(string) []string) (*cstep, error) {
	ts := types(g.Atom.Name.Name)
	if ts != nil && len(ts) != len(g.Atom.Args) {
		return nil, fmt.Errorf("relation %s has %d parameter(s), used with %d", g.Atom.Name.Name, len(ts), len(g.Atom.Args))
	}
	group := map[string]bool{}
	for _, v := range syn.AggOuter(r, g) {
		group[v] = true
	}
	ca := &cagg{fn: g.Func.Name, col: -1, sp: g.Sp, atom: &catom{name: g.Atom.Name.Name, at: at}}
	st := &cstep{kind: sAgg, at: at, slot: -1, agg: ca}
	local := map[string]int{}
	for p, t := range g.Atom.Args {
		a := conv(t, false)
		if t.Kind == syn.Var {
			if group[t.Value] {
				a.group = true
				st.deps = append(st.deps, a.slot)
			} else {
				// Local variables get slots of their own, unused by
				// the binding rows.
				if _, ok := local[t.Value]; !ok {
					local[t.Value] = p
				}
				a.slot = -1 - local[t.Value]
			}
		}
		ca.atom.args = append(ca.atom.args, a)
	}
	if len(g.Args) == 1 {
		p, ok := local[g.Args[0].Value]
		if !ok {
			return nil, fmt.Errorf("aggregated variable %s does not occur in %s", g.Args[0].Value, g.Atom.Name.Name)
		}
		ca.col = p
	}
	if g.Var != nil && g.Var.Kind == syn.Var {
		st.slot = slot(g.Var.Value)
	}
	return st, nil
}

// evaluator runs compiled rules. It keeps the indexes it builds: over
// tables that do not change while it runs, and, extended as rows are
// appended, over the growing relations of a fixpoint.
type evaluator struct {
	ctx   context.Context
	db    *DB
	cache map[cacheKey]*index
	grow  map[growKey]*index
	tick  int
	// max bounds every intermediate result and the derived tuples
	// (MaxTuples); 0 means no bound.
	max int
	// maxRows bounds the rows of an intermediate result (0: none).
	maxRows int
	// maxBytes bounds the memory of an intermediate result (0: none).
	maxBytes int64
	// keepAll disables the projection of dead variables, so that every
	// binding row keeps the values of all body variables (explain runs).
	keepAll bool
	// lower returns the complete relation an aggregate reads.
	lower func(name string) source
	// general disables fused tails (Options.general).
	general bool
	// nums classifies values for numeric comparisons, by id (see num).
	nums numCache
	// growMu guards grow, which the workers of a split join share.
	growMu *sync.Mutex
	// splitMin is Options.splitMin.
	splitMin int
	// sink, when set, is what the emit function of the run going on
	// does (see headSink): a streamed plan then does it itself.
	sink *headSink
	// parted is how the last split round that inserted into a hashed
	// set's parts split the rows it appended (see bucket).
	parted *partedRows
	// splitOuts are the tables the workers of split rounds append the
	// rows they derive to, kept from round to round (see runSplit).
	splitOuts []*table
	// splitRoutes are the tables, by worker and by region of a bitmap,
	// the workers of split rounds route the rows they derive to, kept
	// from round to round (see runSplit).
	splitRoutes [][]*table
}

func newEvaluator(ctx context.Context, db *DB, opts Options) *evaluator {
	return &evaluator{ctx: ctx, db: db, cache: map[cacheKey]*index{}, grow: map[growKey]*index{}, max: opts.maxTuples(), maxRows: opts.maxRows(), maxBytes: opts.maxBytes(), general: opts.general, growMu: &sync.Mutex{}, splitMin: opts.splitMin}
}

type cacheKey struct {
	t    *table
	n    int
	cols string
}

type growKey struct {
	t    *table
	cols string
}

// srcKind says how a body atom's table is indexed.
type srcKind uint8

const (
	srcTemp srcKind = iota // a table of one round (a delta): indexed on demand
	srcBase                // a loaded relation: its indexes are kept in the DB
	srcGrow                // a relation of a fixpoint: indexes kept and extended
)

// source is the table a body atom reads: its first n rows.
type source struct {
	t    *table
	n    int
	kind srcKind
	// eq, when set, holds an equivalence relation's tuples (t is then
	// empty): joins read its classes.
	eq *eqStore
}

func (ev *evaluator) check() error {
	ev.tick++
	if ev.tick&0x3fff == 0 {
		return ev.ctx.Err()
	}
	return nil
}

// checkN accounts for n units of work and checks the context when they
// cross a multiple of the interval check uses.
func (ev *evaluator) checkN(n int) error {
	before := ev.tick
	ev.tick += n
	if before>>14 != ev.tick>>14 {
		return ev.ctx.Err()
	}
	return nil
}

// over reports the budget error when n tuples exceed the budget.
func (ev *evaluator) over(n int) error {
	if ev.max > 0 && n > ev.max {
		return &LimitError{Max: ev.max}
	}
	return nil
}

// overRows is over for an intermediate result of n rows of width
// values, which must also stay within the memory bound.
func (ev *evaluator) overRows(n, width int) error {
	if ev.maxBytes > 0 && int64(n)*int64(max(width, 1))*4 > ev.maxBytes {
		return &LimitError{Max: ev.max, Bytes: ev.maxBytes}
	}
	if ev.maxRows > 0 && n > ev.maxRows {
		return &LimitError{Max: ev.maxRows}
	}
	return nil
}

func colsKey(cols []int) string {
	b := make([]byte, 0, len(cols)*2)
	for _, c := range cols {
		b = append(b, byte(c), byte(c>>8))
	}
	return string(b)
}

// relIndex returns the index of s on cols, building or extending it; the
// error is the context's when it ended while the index was built.
func (ev *evaluator) relIndex(s source, cols []int) (*index, error) {
	switch s.kind {
	case srcBase:
		if ix, ok, err := ev.db.baseIndex(s.t, cols, ev.ctx.Err); ok || err != nil {
			return ix, err
		}
	case srcGrow:
		ev.growMu.Lock()
		defer ev.growMu.Unlock()
		k := growKey{t: s.t, cols: colsKey(cols)}
		ix, ok := ev.grow[k]
		if !ok {
			ix = newGrowingIndex(slices.Clone(cols))
			ev.grow[k] = ix
		}
		if err := ix.extend(s.t, ev.ctx.Err); err != nil {
			return nil, err
		}
		return ix, nil
	}
	k := cacheKey{t: s.t, n: s.n, cols: colsKey(cols)}
	if ix, ok := ev.cache[k]; ok {
		return ix, nil
	}
	ix, err := s.t.index(s.n, cols, len(ev.db.strs), ev.ctx.Err)
	if err != nil {
		return nil, err
	}
	ev.cache[k] = ix
	return ix, nil
}

// bindings is the intermediate result: rows of nvars slots.
type bindings struct {
	width int
	data  []uint32
	n     int
}

func (b *bindings) row(i int) []uint32 { return b.data[i*b.width : (i+1)*b.width] }

// errStop ends a run early without an error.
var errStop = errors.New("stop")

// run evaluates cr with each positive atom reading src(i) (i indexes
// cr.pos) and each negated atom reading neg(j), and calls emit with each
// head row (not deduplicated). When init is set, the run starts from that
// one binding, with the slots marked in initBound bound. When cr.head is
// nil, emit receives whole binding rows. An error from emit ends the run
// (errStop without an error).
func (ev *evaluator) run(cr *crule, src func(i int) source, neg func(j int) source, init []uint32, initBound []bool, emit func(row []uint32) error) error {
	return ev.runInto(cr, src, neg, init, initBound, nil, emit)
}

// runInto is run where seen, when set, holds head rows emit has already
// received (emit adds each new row to it): the run may drop a row seen
// holds without calling emit.
func (ev *evaluator) runInto(cr *crule, src func(i int) source, neg func(j int) source, init []uint32, initBound []bool, seen *tupleSet, emit func(row []uint32) error) error {
	var err error
	streamed := false
	if init == nil {
		streamed, err = ev.runStream(cr, src, neg, seen, emit)
	}
	if !streamed {
		err = ev.runPlan(cr, src, neg, init, initBound, seen, emit)
	}
	if err == errStop {
		return nil
	}
	return err
}

func (ev *evaluator) runPlan(cr *crule, src func(i int) source, neg func(j int) source, init []uint32, initBound []bool, seen *tupleSet, emit func(row []uint32) error) error {
	cur := &bindings{width: cr.nvars, data: make([]uint32, cr.nvars), n: 1}
	bound := make([]bool, cr.nvars)
	if init != nil {
		copy(cur.data, init)
		copy(bound, initBound)
	}
	done := make([]bool, len(cr.pos))
	negDone := make([]bool, len(cr.negs))
	condDone := make([]bool, len(cr.conds))
	stepDone := make([]bool, len(cr.steps))
	dead := make([]bool, cr.nvars)
	var err error
	applyReady := func() error {
		// Steps first, until none is ready: each may bind a slot that
		// makes another ready.
		for progress := true; progress; {
			progress = false
			for j, st := range cr.steps {
				if stepDone[j] || !st.ready(bound) {
					continue
				}
				stepDone[j], progress = true, true
				if cur, err = ev.applyStep(cur, st, bound); err != nil {
					return err
				}
			}
		}
		for j, a := range cr.negs {
			if negDone[j] || !allBound(a, bound) {
				continue
			}
			negDone[j] = true
			if cur, err = ev.antiJoin(cur, a, neg(j)); err != nil {
				return err
			}
		}
		for j, c := range cr.conds {
			if condDone[j] || (c.l.isVar && !bound[c.l.slot]) || (c.r.isVar && !bound[c.r.slot]) {
				continue
			}
			condDone[j] = true
			if cur, err = ev.filter(cur, c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := applyReady(); err != nil {
		return err
	}
	out := make([]uint32, len(cr.head))
	project := func(row []uint32) error {
		if cr.head == nil {
			return emit(row)
		}
		for j, h := range cr.head {
			switch h.kind {
			case aVar:
				out[j] = row[h.slot]
			case aExpr:
				v, err := ev.eval(h.x, row)
				if err == errNoValue {
					return nil
				}
				if err != nil {
					return err
				}
				out[j] = ev.db.intern(v)
			default:
				out[j] = h.id
			}
		}
		return emit(out)
	}
	for step := range cr.pos {
		if cur.n == 0 {
			return nil
		}
		best := -1
		var bestScore [3]int
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
			has := 0
			if nb > 0 {
				has = 1
			}
			score := [3]int{-has, src(i).n, -nb}
			if best < 0 || less3(score, bestScore) {
				best, bestScore = i, score
			}
		}
		done[best] = true
		var final func([]uint32) error
		var fuse *fusedTail
		if step == len(cr.pos)-1 && len(cr.steps) == 0 {
			// Every variable is bound after the last atom: stream each
			// row through the remaining negations and conditions into
			// the head instead of materializing the join.
			var keeps []func([]uint32) bool
			for j, a := range cr.negs {
				if !negDone[j] {
					negDone[j] = true
					keep, err := ev.negProbe(a, neg(j))
					if err != nil {
						return err
					}
					keeps = append(keeps, keep)
				}
			}
			var conds []ccond
			for j, c := range cr.conds {
				if !condDone[j] {
					condDone[j] = true
					conds = append(conds, c)
				}
			}
			if len(keeps) == 0 && !ev.general && fusable(cr.head) {
				fuse = &fusedTail{conds: conds, head: cr.head, seen: seen, emit: emit}
			}
			final = func(row []uint32) error {
				for _, keep := range keeps {
					if !keep(row) {
						return nil
					}
				}
				for i := range conds {
					if !ev.compare(row, &conds[i]) {
						return nil
					}
				}
				return project(row)
			}
		}
		var skip []bool
		if !ev.keepAll && cr.head != nil {
			skip = cr.single
		}
		if cur, err = ev.join(cur, cr.pos[best], src(best), bound, skip, final, fuse); err != nil {
			return err
		}
		if final != nil {
			return nil
		}
		for _, g := range cr.pos[best].args {
			if g.kind == aVar {
				bound[g.slot] = true
			}
		}
		if err := applyReady(); err != nil {
			return err
		}
		if !ev.keepAll {
			if cur, err = ev.projectDead(cr, cur, bound, dead, done, negDone, condDone, stepDone); err != nil {
				return err
			}
		}
	}
	for j := range cr.steps {
		if !stepDone[j] && cur.n > 0 {
			return fmt.Errorf("internal: a clause of %s reads a variable nothing binds", cr.headRel)
		}
	}
	for i := 0; i < cur.n; i++ {
		if err := ev.check(); err != nil {
			return err
		}
		if err := project(cur.row(i)); err != nil {
			return err
		}
	}
	return nil
}

// projectDead drops the bound variables that nothing left to do reads
// (no remaining atom, negation, condition nor the head) and removes the
// duplicate rows that leaves: a chain of joins then keeps only the
// variables that connect it, instead of every path through the data.
func (ev *evaluator) projectDead(cr *crule, cur *bindings, bound, dead, done, negDone, condDone, stepDone []bool) (*bindings, error) {
	live := make([]bool, cr.nvars)
	for _, h := range cr.head {
		if h.kind == aVar {
			live[h.slot] = true
		}
		if h.kind == aExpr {
			for _, s := range h.x.slots(nil) {
				live[s] = true
			}
		}
	}
	for j, st := range cr.steps {
		if !stepDone[j] {
			for _, s := range st.deps {
				live[s] = true
			}
			if st.slot >= 0 {
				live[st.slot] = true
			}
		}
	}
	if cr.head == nil {
		return cur, nil
	}
	mark := func(a *catom) {
		for _, g := range a.args {
			if g.kind == aVar {
				live[g.slot] = true
			}
		}
	}
	for i, a := range cr.pos {
		if !done[i] {
			mark(a)
		}
	}
	for j, a := range cr.negs {
		if !negDone[j] {
			mark(a)
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
	var newlyDead []int
	var keep []int
	for s := range cr.nvars {
		if !bound[s] || dead[s] {
			continue
		}
		if live[s] {
			keep = append(keep, s)
		} else {
			dead[s] = true
			newlyDead = append(newlyDead, s)
		}
	}
	if len(newlyDead) == 0 || cur.n <= 1 {
		return cur, nil
	}
	// The rows kept move to the front of cur's own rows, in order: the
	// bindings of a join are not shared.
	set := newTupleSetSized(len(keep), len(ev.db.strs), min(cur.n, 1<<20))
	key := make([]uint32, len(keep))
	w, width := 0, cur.width
	for i := 0; i < cur.n; i++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		r := cur.row(i)
		for k, s := range keep {
			key[k] = r[s]
		}
		if !set.add(key) {
			continue
		}
		dst := cur.data[w*width : (w+1)*width]
		if w != i {
			copy(dst, r)
		}
		for _, s := range newlyDead {
			dst[s] = 0
		}
		w++
	}
	cur.n, cur.data = w, cur.data[:w*width]
	return cur, nil
}

func less3(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func allBound(a *catom, bound []bool) bool {
	for _, g := range a.args {
		if g.kind == aVar && !bound[g.slot] {
			return false
		}
	}
	return true
}

// join extends every binding with the matching tuples of s. Over a
// relation with kept indexes (loaded, or growing in a fixpoint) it probes
// the index; over a one-round table it indexes the smaller side.
//
// A variable marked in skip is read as "_": nothing uses its value.
// When the atom then binds no new variable, the join is an existence
// check (a semi-join): each binding is kept once when a tuple matches,
// never once per matching tuple.
//
// When final is set, each extended row is passed to final instead of
// being collected, and the returned bindings are empty. When fuse is set
// too, it may be used instead of final (they must do the same).
func (ev *evaluator) join(cur *bindings, a *catom, s source, bound, skip []bool, final func([]uint32) error, fuse *fusedTail) (*bindings, error) {
	if s.eq != nil {
		return ev.joinEq(cur, a, s.eq, bound, skip, final)
	}
	out := &bindings{width: cur.width}
	t := s.t
	var constPos []int // positions holding constants
	var keyPos []int   // positions holding bound variables
	var keySlots []int // their slots
	var newPos []int   // first occurrences of unbound variables
	var newSlots []int // their slots
	var eqPos [][2]int // repeated unbound variables: position pairs
	firstAt := map[int]int{}
	for p, g := range a.args {
		switch g.kind {
		case aConst:
			if !g.ok {
				return out, nil // the constant occurs nowhere in the data
			}
			constPos = append(constPos, p)
		case aVar:
			if bound[g.slot] {
				keyPos = append(keyPos, p)
				keySlots = append(keySlots, g.slot)
			} else if q, ok := firstAt[g.slot]; ok {
				eqPos = append(eqPos, [2]int{q, p})
			} else if skip != nil && skip[g.slot] {
				// Read as "_".
			} else {
				firstAt[g.slot] = p
				newPos = append(newPos, p)
				newSlots = append(newSlots, g.slot)
			}
		}
	}
	match := func(tup []uint32) bool {
		for _, p := range constPos {
			if tup[p] != a.args[p].id {
				return false
			}
		}
		for _, e := range eqPos {
			if tup[e[0]] != tup[e[1]] {
				return false
			}
		}
		return true
	}
	semi := len(newPos) == 0
	if semi {
		fuse = nil
	}
	if final == nil {
		// Room for one row per binding, which a join usually keeps at
		// least: fewer copies while the result grows.
		out.data = make([]uint32, 0, min(cur.n, 1<<16)*cur.width)
	}
	scratch := make([]uint32, cur.width)
	var copied []uint32 // the binding scratch holds, apart from newSlots
	emit := func(b, tup []uint32) error {
		if final != nil {
			if len(b) > 0 && (copied == nil || &copied[0] != &b[0]) {
				copy(scratch, b)
				copied = b
			}
			for i, p := range newPos {
				scratch[newSlots[i]] = tup[p]
			}
			return final(scratch)
		}
		start := len(out.data)
		out.data = append(out.data, b...)
		nr := out.data[start:]
		for i, p := range newPos {
			nr[newSlots[i]] = tup[p]
		}
		out.n++
		return ev.overRows(out.n, out.width)
	}
	m := s.n
	if s.kind == srcTemp && cur.n*4 <= m {
		// Few bindings over a one-round table: index the bindings and
		// scan the table once.
		ix, err := buildIndex(cur.data, cur.width, cur.n, keySlots, 0, ev.ctx.Err)
		if err != nil {
			return nil, err
		}
		vals := make([]uint32, len(keyPos))
		var kept []bool // with semi: the bindings already kept
		if semi {
			kept = make([]bool, cur.n)
		}
		for r := 0; r < m; r++ {
			if err := ev.check(); err != nil {
				return nil, err
			}
			tup := t.row(r)
			if !match(tup) {
				continue
			}
			for i, p := range keyPos {
				vals[i] = tup[p]
			}
			for _, bi := range ix.lookup(vals) {
				if kept != nil && kept[bi] {
					continue
				}
				b := cur.row(int(bi))
				if !ix.exact() && !eqVals(b, keySlots, vals) {
					continue
				}
				if err := ev.check(); err != nil {
					return nil, err
				}
				if err := emit(b, tup); err != nil {
					return nil, err
				}
				if kept != nil {
					kept[bi] = true
				}
			}
		}
		return out, nil
	}
	cols := append(slices.Clone(constPos), keyPos...)
	if len(cols) == 0 {
		// Nothing bound: every binding pairs with every tuple.
		for bi := 0; bi < cur.n; bi++ {
			b := cur.row(bi)
			for r := 0; r < m; r++ {
				if err := ev.check(); err != nil {
					return nil, err
				}
				if tup := t.row(r); len(eqPos) == 0 || match(tup) {
					if err := emit(b, tup); err != nil {
						return nil, err
					}
					if semi {
						break
					}
				}
			}
		}
		return out, nil
	}
	ix, err := ev.relIndex(s, cols)
	if err != nil {
		return nil, err
	}
	vals := make([]uint32, len(cols))
	for i, p := range constPos {
		vals[i] = a.args[p].id
	}
	if fuse != nil && ix.exact() && len(eqPos) == 0 {
		if ok, err := ev.joinFused(cur, t, m, ix, vals, len(constPos), keySlots, newPos, newSlots, fuse); ok || err != nil {
			return out, err
		}
	}
	for bi := 0; bi < cur.n; bi++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		b := cur.row(bi)
		for i, s := range keySlots {
			vals[len(constPos)+i] = b[s]
		}
		for _, ri := range ix.lookup(vals) {
			if int(ri) >= m {
				break
			}
			if err := ev.check(); err != nil {
				return nil, err
			}
			tup := t.row(int(ri))
			if !ix.exact() && !eqVals(tup, cols, vals) {
				continue
			}
			if len(eqPos) > 0 && !match(tup) {
				continue
			}
			if err := emit(b, tup); err != nil {
				return nil, err
			}
			if semi {
				break
			}
		}
	}
	return out, nil
}

func eqVals(row []uint32, cols []int, vals []uint32) bool {
	for i, c := range cols {
		if row[c] != vals[i] {
			return false
		}
	}
	return true
}

// antiJoin keeps the bindings for which no tuple of t matches a's
// non-wildcard positions. A wildcard position matches any value, so
// "!r(x, _)" drops x when r has any tuple starting with x.
func (ev *evaluator) antiJoin(cur *bindings, a *catom, s source) (*bindings, error) {
	if s.eq != nil {
		return ev.antiJoinEq(cur, a, s.eq)
	}
	t := s.t
	var constPos, varPos, varSlots []int
	for p, g := range a.args {
		switch g.kind {
		case aConst:
			if !g.ok {
				return cur, nil // no tuple can match
			}
			constPos = append(constPos, p)
		case aVar:
			varPos = append(varPos, p)
			varSlots = append(varSlots, g.slot)
		}
	}
	out := &bindings{width: cur.width}
	m := s.n
	if s.kind == srcTemp && cur.n*4 <= m {
		ix, err := buildIndex(cur.data, cur.width, cur.n, varSlots, 0, ev.ctx.Err)
		if err != nil {
			return nil, err
		}
		drop := make([]bool, cur.n)
		vals := make([]uint32, len(varPos))
	scan:
		for r := 0; r < m; r++ {
			if err := ev.check(); err != nil {
				return nil, err
			}
			tup := t.row(r)
			for _, p := range constPos {
				if tup[p] != a.args[p].id {
					continue scan
				}
			}
			for i, p := range varPos {
				vals[i] = tup[p]
			}
			for _, bi := range ix.lookup(vals) {
				if err := ev.check(); err != nil {
					return nil, err
				}
				if ix.exact() || eqVals(cur.row(int(bi)), varSlots, vals) {
					drop[bi] = true
				}
			}
		}
		for i := 0; i < cur.n; i++ {
			if err := ev.check(); err != nil {
				return nil, err
			}
			if !drop[i] {
				out.data = append(out.data, cur.row(i)...)
				out.n++
			}
		}
		return out, nil
	}
	cols := append(slices.Clone(constPos), varPos...)
	if len(cols) == 0 {
		// Every position is a wildcard: the atom holds iff s has a row.
		if m > 0 {
			return out, nil
		}
		return cur, nil
	}
	ix, err := ev.relIndex(s, cols)
	if err != nil {
		return nil, err
	}
	vals := make([]uint32, len(cols))
	for i, p := range constPos {
		vals[i] = a.args[p].id
	}
	for bi := 0; bi < cur.n; bi++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		b := cur.row(bi)
		for i, s := range varSlots {
			vals[len(constPos)+i] = b[s]
		}
		found := false
		for _, ri := range ix.lookup(vals) {
			if int(ri) >= m {
				break
			}
			if ix.exact() || eqVals(t.row(int(ri)), cols, vals) {
				found = true
				break
			}
		}
		if !found {
			out.data = append(out.data, b...)
			out.n++
		}
	}
	return out, nil
}

// negProbe returns a test that keeps a fully bound row when no tuple of t
// matches a's non-wildcard positions.
func (ev *evaluator) negProbe(a *catom, s source) (func([]uint32) bool, error) {
	if s.eq != nil {
		return func(row []uint32) bool { return !holdsEq(a, s.eq, row) }, nil
	}
	t := s.t
	var constPos, varPos, varSlots []int
	for p, g := range a.args {
		switch g.kind {
		case aConst:
			if !g.ok {
				return func([]uint32) bool { return true }, nil
			}
			constPos = append(constPos, p)
		case aVar:
			varPos = append(varPos, p)
			varSlots = append(varSlots, g.slot)
		}
	}
	cols := append(slices.Clone(constPos), varPos...)
	if len(cols) == 0 {
		empty := s.n == 0
		return func([]uint32) bool { return empty }, nil
	}
	ix, err := ev.relIndex(s, cols)
	if err != nil {
		return nil, err
	}
	vals := make([]uint32, len(cols))
	for i, p := range constPos {
		vals[i] = a.args[p].id
	}
	m := s.n
	if len(cols) == 1 && len(varSlots) == 1 && m == t.len() {
		s := varSlots[0]
		return func(row []uint32) bool {
			return !ix.has(row[s])
		}, nil
	}
	return func(row []uint32) bool {
		for i, s := range varSlots {
			vals[len(constPos)+i] = row[s]
		}
		for _, ri := range ix.lookup(vals) {
			if int(ri) >= m {
				break
			}
			if ix.exact() || eqVals(t.row(int(ri)), cols, vals) {
				return false
			}
		}
		return true
	}, nil
}

func (ev *evaluator) filter(cur *bindings, c ccond) (*bindings, error) {
	out := &bindings{width: cur.width}
	for i := 0; i < cur.n; i++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		b := cur.row(i)
		if ev.compare(b, &c) {
			out.data = append(out.data, b...)
			out.n++
		}
	}
	return out, nil
}

func (ev *evaluator) value(b []uint32, o operand) string {
	if o.isVar {
		return ev.db.strs[b[o.slot]]
	}
	return o.str
}

// compare evaluates a condition. Values compare as numbers when an operand
// is a number literal or a variable of a numeric type and both values
// parse as numbers; otherwise they compare as strings, bytewise.
func (ev *evaluator) compare(b []uint32, c *ccond) bool {
	if c.eqIDs {
		// Bytewise equality of interned strings is equality of ids.
		l, lok := c.l.id, c.l.idOK
		if c.l.isVar {
			l, lok = b[c.l.slot], true
		}
		r, rok := c.r.id, c.r.idOK
		if c.r.isVar {
			r, rok = b[c.r.slot], true
		}
		var eq bool
		if lok && rok {
			eq = l == r
		} else {
			// A constant interned after the rule was compiled.
			eq = ev.value(b, c.l) == ev.value(b, c.r)
		}
		return eq == (c.op == "==")
	}
	cmp := syn.CompareValues(ev.value(b, c.l), ev.value(b, c.r), c.l.numeric || c.r.numeric)
	holds, _ := syn.Holds(c.op, cmp)
	return holds
}
