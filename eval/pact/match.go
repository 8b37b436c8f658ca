package pact

import (
	"math"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// matcher is a compound selector prepared for testing many nodes: type
// names resolved for the dialect and each attribute filter bound to the
// header cache slot it can be answered from.
type matcher struct {
	c     *syn.Compound
	types []string
	attrs []attrTest
	rest  bool // roots, depth, hashes, tags or pseudo-classes to test

	pseudos []uint8 // the kinds of c's pseudo-classes

	// The types' indexes in the type table of snap (-1 for a type no
	// node of snap has), resolved when the matcher meets a snapshot.
	snap     *Snapshot
	typeIdxs []int32
}

// resolve binds the matcher's types to s's type table.
func (m *matcher) resolve(s *Snapshot) {
	m.snap = s
	m.typeIdxs = m.typeIdxs[:0]
	for _, t := range m.types {
		k := int32(-1)
		if l := s.byType[t]; len(l) > 0 {
			k = s.typ[l[0]]
		}
		m.typeIdxs = append(m.typeIdxs, k)
	}
}

// attrTest is one attribute filter with its cache slots (-1 for none).
type attrTest struct {
	a      *syn.Attr
	strIdx int
	numIdx int
	flag   bool // a v2 behavior flag tested for truth (isFlag)
	// id: an = or != of the node's id with a string, compared with the
	// id kept at load (no value boxed per node).
	id bool
}

// matcher returns the prepared form of c, preparing it on first use.
func (ev *evaluator) matcher(c *syn.Compound) *matcher {
	if m, ok := ev.matchers[c]; ok {
		return m
	}
	m := &matcher{c: c, rest: c.Root != nil || c.Depth != nil || len(c.Hashes) > 0 || len(c.Tags) > 0 || len(c.Pseudos) > 0}
	for _, t := range c.Types {
		m.types = append(m.types, ev.typeName(t))
	}
	for _, p := range c.Pseudos {
		m.pseudos = append(m.pseudos, pseudoKind(p.Name))
	}
	for _, a := range c.Attrs {
		t := attrTest{a: a, strIdx: -1, numIdx: -1, flag: ev.p.q.Dialect != syn.V1 && isFlag(a)}
		if a.Value != nil && a.Value.Kind != syn.ValueNumber && !isNull(a.Value) && (a.Op == syn.OpEq || a.Op == syn.OpNe) {
			t.strIdx = keyIndex(stringKeys[:], a.Key)
			t.id = a.Key == "id"
		}
		if a.Value != nil && a.Value.Kind == syn.ValueNumber && (a.Op.IsOrdering() || a.Op == syn.OpEq || a.Op == syn.OpNe) {
			t.numIdx = keyIndex(numericKeys[:], a.Key)
		}
		m.attrs = append(m.attrs, t)
	}
	if ev.matchers == nil {
		ev.matchers = map[*syn.Compound]*matcher{}
	}
	ev.matchers[c] = m
	return m
}

func keyIndex(keys []string, key string) int {
	for i, k := range keys {
		if k == key {
			return i
		}
	}
	return -1
}

// match reports whether n matches the compound selector.
func (m *matcher) match(ev *evaluator, n int32) bool { return m.matchFrom(ev, n, 0) }

// matchFrom is match for a node known to have the first skip types.
func (m *matcher) matchFrom(ev *evaluator, n int32, skip int) bool {
	s := ev.s
	if m.snap != s {
		m.resolve(s)
	}
	for _, t := range m.typeIdxs[skip:] {
		if s.typ[n] != t {
			return false
		}
	}
	for i := range m.attrs {
		if !m.attrs[i].match(s, n) {
			return false
		}
	}
	return !m.rest || ev.matchRest(m, n)
}

// match applies the filter, from the header cache when the node's value
// is cached there, else with the full comparison rules.
func (t *attrTest) match(s *Snapshot, n int32) bool {
	if t.flag {
		return truthy(Node{s, n}, t.a.Key)
	}
	if t.strIdx >= 0 && s.flags[n]&(flagStrOK<<t.strIdx) != 0 {
		return (s.str(n, t.strIdx) == t.a.Value.Text) == (t.a.Op == syn.OpEq)
	}
	if t.id {
		// As matchAttr compares a non-empty id (a string attribute).
		if id := s.nodeID(n); id != "" {
			return (id == t.a.Value.Text) == (t.a.Op == syn.OpEq)
		}
	}
	if t.numIdx >= 0 && s.flags[n]&(flagNumOK<<t.numIdx) != 0 {
		if r, ok := numOp(t.a.Op, float64(s.nums[t.numIdx][n]), t.a.Value.Num); ok {
			return r
		}
	}
	return matchAttr(Node{s, n}, t.a)
}

// childPos returns the one position among its siblings at which a node
// can match the compound, when a pseudo-class fixes it: k for :nth(k) and
// :first (1), 0 for :last. ok is false when no pseudo-class does.
func (m *matcher) childPos() (k int32, ok bool) {
	for i, p := range m.c.Pseudos {
		switch m.pseudos[i] {
		case pseudoFirst:
			return 1, true
		case pseudoLast:
			return 0, true
		case pseudoNth:
			if len(p.Args) == 1 && p.Args[0].Hi == nil && p.Args[0].Value != nil {
				if v := p.Args[0].Value.Num; v >= 1 && v <= math.MaxInt32 && v == math.Trunc(v) {
					return int32(v), true
				}
			}
		}
	}
	return 0, false
}

// soleNumeric returns the matcher's attribute test when, beyond the first
// skip types, it is all the matcher tests: a single comparison of a
// cached numeric header with a number.
func (m *matcher) soleNumeric(skip int) *attrTest {
	if m.rest || len(m.types) != skip || len(m.attrs) != 1 {
		return nil
	}
	t := &m.attrs[0]
	if t.flag || t.numIdx < 0 {
		return nil
	}
	switch t.a.Op {
	case syn.OpEq, syn.OpNe, syn.OpLt, syn.OpLe, syn.OpGt, syn.OpGe:
		return t
	}
	return nil
}

// soleString returns the matcher's attribute test and its type's index in
// its snapshot (-1: a type no node has; -2: no type) when it is all the
// matcher tests beyond the first skip types: at most one type and one
// equality or inequality of a cached string header with a string
// (".cb[role='assistant']").
func (m *matcher) soleString(ev *evaluator, skip int) (t *attrTest, typ int32) {
	if m.rest || len(m.attrs) != 1 || len(m.types)-skip > 1 {
		return nil, 0
	}
	t = &m.attrs[0]
	if t.flag || t.strIdx < 0 {
		return nil, 0
	}
	if m.snap != ev.s {
		m.resolve(ev.s)
	}
	typ = -2
	if len(m.types) > skip {
		typ = m.typeIdxs[skip]
	}
	return t, typ
}
