package datalog

import (
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Tuples. A tuple is one value, its text as syn.EncodeTuple writes it;
// a tuple expression builds it (eTuple), and a tuple pattern in a body
// atom or a let takes it apart (sUnpack): its variables bind the
// elements, or are compared with them when bound, its literals and
// expressions are compared, its "_" match anything.

// patKind says what a position of a tuple pattern is.
type patKind uint8

const (
	pWild  patKind = iota // "_"
	pVar                  // a variable: bound, or compared
	pValue                // a literal or an expression: compared
	pTuple                // a nested tuple pattern
)

// cpat is a compiled tuple pattern.
type cpat struct {
	kind  patKind
	slot  int    // pVar
	x     *cexpr // pValue
	elems []*cpat
}

// compilePattern compiles a tuple pattern, adding the slots of its
// variables to binds and those its expressions read to deps.
func compilePattern(t *syn.Term, slot func(string) int, numeric func(string) bool, binds, deps *[]int) *cpat {
	switch t.Kind {
	case syn.Wildcard:
		return &cpat{kind: pWild}
	case syn.Var:
		s := slot(t.Value)
		*binds = append(*binds, s)
		return &cpat{kind: pVar, slot: s}
	case syn.Tuple:
		p := &cpat{kind: pTuple}
		for _, e := range t.Elems {
			p.elems = append(p.elems, compilePattern(e, slot, numeric, binds, deps))
		}
		return p
	}
	x := compileExpr(t, slot, numeric)
	*deps = x.slots(*deps)
	return &cpat{kind: pValue, x: x}
}

// unpack matches value v against p over row, binding the pattern's
// unbound variables in row (local marks those this match bound).
func (ev *evaluator) unpack(p *cpat, v string, row []uint32, bound, local []bool) (bool, error) {
	switch p.kind {
	case pWild:
		return true, nil
	case pVar:
		if bound[p.slot] || local[p.slot] {
			return equalValues(ev.db.strs[row[p.slot]], v), nil
		}
		row[p.slot] = ev.db.intern(v)
		local[p.slot] = true
		return true, nil
	case pValue:
		w, err := ev.eval(p.x, row)
		if err == errNoValue {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return equalValues(w, v), nil
	}
	elems, ok := syn.DecodeTuple(v)
	if !ok || len(elems) != len(p.elems) {
		return false, nil
	}
	for i, e := range p.elems {
		if ok, err := ev.unpack(e, elems[i], row, bound, local); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// applyUnpack runs an sUnpack step over every row of cur: the rows
// whose value at s.src matches the pattern, extended by its bindings.
func (ev *evaluator) applyUnpack(cur *bindings, s *cstep, bound []bool) (*bindings, error) {
	out := &bindings{width: cur.width}
	scratch := make([]uint32, cur.width)
	local := make([]bool, cur.width)
	for i := 0; i < cur.n; i++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		copy(scratch, cur.row(i))
		for _, b := range s.binds {
			local[b] = false
		}
		ok, err := ev.unpack(s.pat, ev.db.strs[scratch[s.src]], scratch, bound, local)
		if err != nil {
			return nil, err
		}
		if ok {
			out.data = append(out.data, scratch...)
			out.n++
			if err := ev.overRows(out.n, out.width); err != nil {
				return nil, err
			}
		}
	}
	for _, b := range s.binds {
		bound[b] = true
	}
	return out, nil
}

// evalTuple computes a tuple expression.
func (ev *evaluator) evalTuple(x *cexpr, row []uint32) (string, error) {
	elems := make([]string, len(x.args))
	for i, a := range x.args {
		v, err := ev.eval(a, row)
		if err != nil {
			return "", err
		}
		elems[i] = v
	}
	return syn.EncodeTuple(elems), nil
}

// patternTypes records the types of a tuple pattern's variables from
// the tuple type col.
func patternTypes(t *syn.Term, col string, varType map[string]string) {
	elems := syn.TupleTypes(col)
	if len(elems) != len(t.Elems) {
		return
	}
	for i, e := range t.Elems {
		switch e.Kind {
		case syn.Var:
			if _, ok := varType[e.Value]; !ok {
				varType[e.Value] = elems[i]
			}
		case syn.Tuple:
			patternTypes(e, elems[i], varType)
		}
	}
}
