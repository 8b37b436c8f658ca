package datalog

import (
	"fmt"
	"slices"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// eqStore is an equivalence relation ("#[ds(eqrel)]") kept as a
// union-find over its elements: n elements cost O(n) whatever the size
// of their classes, where the relation itself holds the square of each
// class's size. A relation of three columns is an equivalence per value
// of its first column (the key), each key with a union-find of its own.
//
// It is built while its stratum runs (add), then frozen (freeze): the
// strata above read it through joinEq, antiJoinEq and negEq.
type eqStore struct {
	arity int // 2, or 3 with the key first
	parts map[uint32]*ufPart
	keys  []uint32 // the keys in the order they came
	// flat is the relation's tuples, made on demand (an aggregate over
	// the relation, or the printed result).
	flat *table
}

// ufPart is the union-find of one key.
type ufPart struct {
	index  map[uint32]int32 // element id -> its index
	elems  []uint32         // element ids by index
	parent []int32
	// After freeze: each element's class and each class's elements.
	class   []int32
	members [][]uint32
}

func newEqStore(arity int) *eqStore {
	return &eqStore{arity: arity, parts: map[uint32]*ufPart{}}
}

// part returns the union-find of key, created when create is set.
func (s *eqStore) part(key uint32, create bool) *ufPart {
	p := s.parts[key]
	if p == nil && create {
		p = &ufPart{index: map[uint32]int32{}}
		s.parts[key] = p
		s.keys = append(s.keys, key)
	}
	return p
}

// key returns a row's key (0 for a relation of two columns).
func (s *eqStore) key(row []uint32) uint32 {
	if s.arity == 3 {
		return row[0]
	}
	return 0
}

func (p *ufPart) elem(v uint32) int32 {
	i, ok := p.index[v]
	if !ok {
		i = int32(len(p.elems))
		p.index[v] = i
		p.elems = append(p.elems, v)
		p.parent = append(p.parent, i)
	}
	return i
}

func (p *ufPart) find(i int32) int32 {
	for p.parent[i] != i {
		p.parent[i] = p.parent[p.parent[i]]
		i = p.parent[i]
	}
	return i
}

// add relates the row's two elements and reports whether the relation
// grew: an element is new or two classes merged.
func (s *eqStore) add(row []uint32) bool {
	p := s.part(s.key(row), true)
	n := len(p.elems)
	a, b := p.elem(row[s.arity-2]), p.elem(row[s.arity-1])
	ra, rb := p.find(a), p.find(b)
	grew := len(p.elems) > n
	if ra != rb {
		if ra < rb {
			ra, rb = rb, ra
		}
		p.parent[ra] = rb
		grew = true
	}
	if grew {
		s.flat = nil
	}
	return grew
}

// freeze computes the classes the strata above read.
func (s *eqStore) freeze() {
	for _, k := range s.keys {
		p := s.parts[k]
		p.class = make([]int32, len(p.elems))
		p.members = p.members[:0]
		num := map[int32]int32{}
		for i, v := range p.elems {
			r := p.find(int32(i))
			c, ok := num[r]
			if !ok {
				c = int32(len(p.members))
				num[r] = c
				p.members = append(p.members, nil)
			}
			p.class[i] = c
			p.members[c] = append(p.members[c], v)
		}
	}
}

// size is the number of elements (the planner's estimate of a scan).
func (s *eqStore) size() int {
	n := 0
	for _, p := range s.parts {
		n += len(p.elems)
	}
	return n
}

// pairs is the number of tuples the relation holds.
func (s *eqStore) pairs() int {
	n := 0
	for _, p := range s.parts {
		for _, m := range p.members {
			n += len(m) * len(m)
		}
	}
	return n
}

// classOf returns the elements of v's class, or nil when v is no
// element of p.
func (p *ufPart) classOf(v uint32) []uint32 {
	i, ok := p.index[v]
	if !ok {
		return nil
	}
	return p.members[p.class[i]]
}

// same reports whether a and b are elements of one class.
func (p *ufPart) same(a, b uint32) bool {
	i, ok := p.index[a]
	j, ok2 := p.index[b]
	return ok && ok2 && p.class[i] == p.class[j]
}

// table returns the relation's tuples, every pair of every class.
func (s *eqStore) table() *table {
	if s.flat != nil {
		return s.flat
	}
	t := newTable(s.arity)
	row := make([]uint32, s.arity)
	for _, k := range s.keys {
		if s.arity == 3 {
			row[0] = k
		}
		for _, m := range s.parts[k].members {
			for _, a := range m {
				for _, b := range m {
					row[s.arity-2], row[s.arity-1] = a, b
					t.append(row)
				}
			}
		}
	}
	s.flat = t
	return t
}

// fromTable adds every row of t.
func (s *eqStore) fromTable(t *table) {
	for i := range t.len() {
		s.add(t.row(i))
	}
}

// eqArg is what a position of an atom over an eqrel asks for one
// binding: a value (fixed), a new variable's value (free, needed), or
// anything (free, not needed).
type eqArg struct {
	fixed  bool
	needed bool
	v      uint32
}

// tuples calls yield with each tuple of s that agrees with the fixed
// positions of args, enumerating only the positions that are needed:
// a free position nothing reads takes one value per match of the others.
// With diag set, the two related positions hold one value ("eq(x, x)"):
// each element once.
func (s *eqStore) tuples(args []eqArg, diag bool, yield func([]uint32) error) error {
	tup := make([]uint32, s.arity)
	k0, k1 := s.arity-2, s.arity-1
	each := func(p *ufPart) error {
		x, y := args[k0], args[k1]
		switch {
		case x.fixed && y.fixed:
			if p.same(x.v, y.v) {
				tup[k0], tup[k1] = x.v, y.v
				return yield(tup)
			}
		case x.fixed || y.fixed:
			f, free := x, k1
			if !x.fixed {
				f, free = y, k0
			}
			m := p.classOf(f.v)
			if m == nil {
				return nil
			}
			tup[k0+k1-free] = f.v
			if !args[free].needed {
				m = m[:1]
			}
			for _, v := range m {
				tup[free] = v
				if err := yield(tup); err != nil {
					return err
				}
			}
		case diag:
			for _, v := range p.elems {
				tup[k0], tup[k1] = v, v
				if err := yield(tup); err != nil {
					return err
				}
			}
		case !x.needed && !y.needed:
			if len(p.elems) > 0 {
				tup[k0], tup[k1] = p.elems[0], p.elems[0]
				return yield(tup)
			}
		case !x.needed || !y.needed:
			for _, v := range p.elems {
				tup[k0], tup[k1] = v, v
				if err := yield(tup); err != nil {
					return err
				}
			}
		default:
			for _, m := range p.members {
				for _, a := range m {
					for _, b := range m {
						tup[k0], tup[k1] = a, b
						if err := yield(tup); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	}
	if s.arity == 3 && args[0].fixed {
		p := s.parts[args[0].v]
		if p == nil {
			return nil
		}
		tup[0] = args[0].v
		return each(p)
	}
	for _, k := range s.keys {
		tup[0] = k
		if err := each(s.parts[k]); err != nil {
			return err
		}
		if s.arity == 3 && !args[0].needed && !args[k0].needed && !args[k1].needed {
			// Nothing reads the key: one match is enough.
			return nil
		}
	}
	return nil
}

// joinEq is join over an equivalence relation: a bound first (or
// second) element enumerates its class, both free enumerate every
// class's pairs, and the positions nothing reads are not enumerated.
func (ev *evaluator) joinEq(cur *bindings, a *catom, s *eqStore, bound, skip []bool, final func([]uint32) error) (*bindings, error) {
	out := &bindings{width: cur.width}
	args := make([]eqArg, len(a.args))
	firstAt := map[int]int{}
	var newPos, newSlots []int
	var eqPos [][2]int
	for p, g := range a.args {
		switch g.kind {
		case aConst:
			if !g.ok {
				return out, nil
			}
			args[p] = eqArg{fixed: true, needed: true, v: g.id}
		case aVar:
			switch q, seen := firstAt[g.slot]; {
			case bound[g.slot]:
				args[p] = eqArg{fixed: true, needed: true}
			case seen:
				eqPos = append(eqPos, [2]int{q, p})
				args[p].needed, args[q].needed = true, true
			case skip != nil && skip[g.slot]:
			default:
				firstAt[g.slot] = p
				newPos = append(newPos, p)
				newSlots = append(newSlots, g.slot)
				args[p].needed = true
			}
		}
	}
	semi := len(newPos) == 0
	k0, k1 := len(a.args)-2, len(a.args)-1
	diag := slices.Contains(eqPos, [2]int{k0, k1})
	scratch := make([]uint32, cur.width)
	for bi := 0; bi < cur.n; bi++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		b := cur.row(bi)
		for p, g := range a.args {
			if g.kind == aVar && bound[g.slot] {
				args[p].v = b[g.slot]
			}
		}
		err := s.tuples(args, diag, func(tup []uint32) error {
			for _, e := range eqPos {
				if tup[e[0]] != tup[e[1]] {
					return nil
				}
			}
			if err := ev.check(); err != nil {
				return err
			}
			if final != nil {
				copy(scratch, b)
				for i, p := range newPos {
					scratch[newSlots[i]] = tup[p]
				}
				if err := final(scratch); err != nil {
					return err
				}
			} else {
				start := len(out.data)
				out.data = append(out.data, b...)
				for i, p := range newPos {
					out.data[start+newSlots[i]] = tup[p]
				}
				out.n++
				if err := ev.overRows(out.n, out.width); err != nil {
					return err
				}
			}
			if semi {
				return errFound
			}
			return nil
		})
		if err != nil && err != errFound {
			return nil, err
		}
	}
	return out, nil
}

// errFound ends an enumeration at its first match.
var errFound = errFoundType{}

type errFoundType struct{}

func (errFoundType) Error() string { return "found" }

// holdsEq reports whether a negated atom over an equivalence relation
// matches the row: its variables are bound, its "_" match anything.
func holdsEq(a *catom, s *eqStore, row []uint32) bool {
	args := make([]eqArg, len(a.args))
	for p, g := range a.args {
		switch g.kind {
		case aConst:
			if !g.ok {
				return false
			}
			args[p] = eqArg{fixed: true, needed: true, v: g.id}
		case aVar:
			args[p] = eqArg{fixed: true, needed: true, v: row[g.slot]}
		}
	}
	found := false
	_ = s.tuples(args, false, func([]uint32) error {
		found = true
		return errFound
	})
	return found
}

// antiJoinEq is antiJoin over an equivalence relation.
func (ev *evaluator) antiJoinEq(cur *bindings, a *catom, s *eqStore) (*bindings, error) {
	out := &bindings{width: cur.width}
	for i := 0; i < cur.n; i++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		if b := cur.row(i); !holdsEq(a, s, b) {
			out.data = append(out.data, b...)
			out.n++
		}
	}
	return out, nil
}

// rows returns the tuples a source holds: those of an equivalence
// relation made for the purpose.
func (s source) rows() *table {
	if s.eq != nil {
		return s.eq.table()
	}
	return s.t
}

// dsRules prepares the relations a "#[ds(...)]" attribute declares:
// each trrel, and each eqrel that a rule of its own stratum reads, gets
// the rules that close it (appended to st.xrules; a trrel's transitive
// rule then makes its stratum a transitive closure), the eqrel's tuples
// kept as rows while its stratum runs. Every other eqrel is built in a
// union-find as its rules derive it, returned by name.
func (st *progState) dsRules() (map[string]*eqStore, error) {
	building := map[string]*eqStore{}
	stratum := map[string]int{}
	for si, names := range st.info.Strata {
		for _, n := range names {
			stratum[n] = si
		}
	}
	for _, d := range st.prog.Decls {
		ri := st.info.Relations[d.Name.Name]
		if d.DS == nil || ri == nil || ri.DS == "" {
			continue
		}
		name, ar := d.Name.Name, len(ri.Types)
		si, derived := stratum[name]
		if !derived || (ar != 2 && ar != 3) {
			continue
		}
		src := -1
		recursive := false
		for i, r := range st.xrules {
			if r.Head == nil {
				continue
			}
			if hs, ok := stratum[r.Head.Name.Name]; !ok || hs != si {
				continue
			}
			if r.Head.Name.Name == name && src < 0 {
				src = st.xsrc[i]
			}
			syn.Inspect(r, func(n syn.Node) bool {
				if a, ok := n.(*syn.Atom); ok && a != r.Head && a.Name.Name == name {
					recursive = true
				}
				return true
			})
		}
		if src < 0 {
			continue
		}
		k := ""
		if ar == 3 {
			k = "k, "
		}
		var text string
		switch {
		case ri.DS == syn.DSTrrel:
			text = name + "(" + k + "x, z) <-- " + name + "(" + k + "x, y), " + name + "(" + k + "y, z);"
		case recursive:
			text = name + "(" + k + "x, x) <-- " + name + "(" + k + "x, y);\n" +
				name + "(" + k + "y, x) <-- " + name + "(" + k + "x, y);\n" +
				name + "(" + k + "x, z) <-- " + name + "(" + k + "x, y), " + name + "(" + k + "y, z);"
		default:
			building[name] = newEqStore(ar)
			continue
		}
		p := syn.ParseProgram(name, text)
		if len(p.Diagnostics) > 0 {
			return nil, fmt.Errorf("internal: the closing rules of %s do not parse: %s", name, p.Diagnostics[0].Message)
		}
		for _, r := range p.Rules {
			st.xrules = append(st.xrules, r)
			st.xsrc = append(st.xsrc, src)
			for len(st.synth) < len(st.xrules)-1 {
				st.synth = append(st.synth, false)
			}
			st.synth = append(st.synth, true)
		}
	}
	return building, nil
}

// freezeEq ends the stratum of the eqrels among names: each, whether
// built in a union-find or kept as rows, is frozen into a union-find the
// strata above read (its rows are dropped).
func (st *progState) freezeEq(names []string, building map[string]*eqStore) {
	for _, n := range names {
		ri := st.info.Relations[n]
		if ri == nil || ri.DS != syn.DSEqrel || (len(ri.Types) != 2 && len(ri.Types) != 3) {
			continue
		}
		s := building[n]
		if s == nil {
			s = newEqStore(len(ri.Types))
			s.fromTable(st.full[n])
		}
		s.freeze()
		st.eq[n] = s
		st.full[n] = newTable(len(ri.Types))
		st.rounds[n] = []int{0, 0}
	}
}

// flattenEq gives each eqrel, at the end of the fixpoint, its tuples
// as rows: the printed relation lists every pair of every class. More
// pairs than the budget stop the evaluation.
func (st *progState) flattenEq(ev *evaluator) error {
	for n, s := range st.eq {
		if err := ev.over(s.pairs()); err != nil {
			return err
		}
		t := s.table()
		st.full[n] = t
		st.rounds[n] = []int{0, t.len()}
	}
	st.flat = true
	return nil
}

// closeDataDS gives each eqrel and trrel that no rule derives (its tuples
// all come from the data) what its attribute promises, before the strata
// run: an eqrel becomes a union-find over the data's pairs, a trrel the
// transitive closure of them. Both are then read and printed as derived
// relations are.
func (st *progState) closeDataDS(ev *evaluator) error {
	derived := map[string]bool{}
	for _, names := range st.info.Strata {
		for _, n := range names {
			derived[n] = true
		}
	}
	for _, d := range st.prog.Decls {
		name := d.Name.Name
		ri := st.info.Relations[name]
		if d.DS == nil || ri == nil || ri.DS == "" || derived[name] {
			continue
		}
		rel, ar := st.db.rels[name], len(ri.Types)
		if rel == nil || (ar != 2 && ar != 3) {
			continue
		}
		switch ri.DS {
		case syn.DSEqrel:
			s := newEqStore(ar)
			s.fromTable(rel.tab)
			s.freeze()
			st.eq[name] = s
		case syn.DSTrrel:
			t, err := closeTransitive(ev, rel.tab)
			if err != nil {
				return err
			}
			st.full[name] = t
			st.rounds[name] = []int{0, t.len()}
		}
	}
	return nil
}

// closeTransitive returns the transitive closure of t's pairs (per value
// of the first column when t has three), each source's reach in the
// order a breadth-first walk meets it. The closure counts against the
// tuple budget.
func closeTransitive(ev *evaluator, t *table) (*table, error) {
	type node struct{ key, v uint32 }
	ar := t.arity
	adj := map[node][]uint32{}
	var sources []node
	for i := range t.len() {
		r := t.row(i)
		var k uint32
		if ar == 3 {
			k = r[0]
		}
		n := node{k, r[ar-2]}
		if _, ok := adj[n]; !ok {
			sources = append(sources, n)
		}
		adj[n] = append(adj[n], r[ar-1])
	}
	out := newTable(ar)
	row := make([]uint32, ar)
	for _, s := range sources {
		seen := map[uint32]bool{}
		queue := slices.Clone(adj[s])
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			if seen[v] {
				continue
			}
			seen[v] = true
			if ar == 3 {
				row[0] = s.key
			}
			row[ar-2], row[ar-1] = s.v, v
			out.append(row)
			if out.len()%4096 == 0 {
				if err := ev.ctx.Err(); err != nil {
					return nil, err
				}
			}
			if err := ev.over(out.len()); err != nil {
				return nil, err
			}
			queue = append(queue, adj[node{s.key, v}]...)
		}
	}
	return out, nil
}
