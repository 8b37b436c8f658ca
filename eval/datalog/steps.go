package datalog

import (
	"math/big"
	"slices"
	"strconv"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Steps are the body items that compute rather than join: conditions
// with expressions, lets, generators and aggregates. Each runs once the
// slots it reads are bound, over every binding row.

type stepKind uint8

const (
	sTest   stepKind = iota // keep the rows where x is true
	sLet                    // bind slot to x (or keep the rows where it equals x)
	sFor                    // bind slot to each integer of lo..hi
	sAgg                    // bind slot to an aggregate (or keep rows, for not())
	sUnpack                 // match the tuple at src with pat, binding its variables (binds)
)

type cstep struct {
	kind      stepKind
	at        int // index of the body item
	slot      int // the variable bound (sLet, sFor, sAgg with a variable); -1 for none
	x, lo, hi *cexpr
	inclusive bool
	deps      []int // slots read
	agg       *cagg
	// list holds the values of an sFor over a list (lo and hi nil).
	list []*cexpr
	// sUnpack: the slot of the tuple, the pattern, the slots it binds.
	src   int
	pat   *cpat
	binds []int
}

// cagg is a compiled aggregate: fn over the tuples of atom that agree
// with the binding on the group slots; col is the aggregated column.
type cagg struct {
	fn   string
	atom *catom
	col  int // position in the atom of the aggregated variable; -1 for count and not
	sp   syntax.Span
}

// ready reports whether every slot s reads is bound.
func (s *cstep) ready(bound []bool) bool {
	for _, d := range s.deps {
		if !bound[d] {
			return false
		}
	}
	return true
}

// applyStep runs s over every row of cur.
func (ev *evaluator) applyStep(cur *bindings, s *cstep, bound []bool) (*bindings, error) {
	if s.kind == sUnpack {
		return ev.applyUnpack(cur, s, bound)
	}
	out := &bindings{width: cur.width}
	keep := func(b []uint32) error {
		out.data = append(out.data, b...)
		out.n++
		return ev.overRows(out.n, out.width)
	}
	var scratch []uint32
	bindTo := func(b []uint32, v string) error {
		if bound[s.slot] {
			if equalValues(ev.db.strs[b[s.slot]], v) {
				return keep(b)
			}
			return nil
		}
		scratch = append(scratch[:0], b...)
		scratch[s.slot] = ev.db.intern(v)
		return keep(scratch)
	}
	for i := 0; i < cur.n; i++ {
		if err := ev.check(); err != nil {
			return nil, err
		}
		b := cur.row(i)
		switch s.kind {
		case sTest:
			v, err := ev.eval(s.x, b)
			if err == errNoValue {
				continue
			}
			if err != nil {
				return nil, err
			}
			ok, err := asBool(v, s.x.sp)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := keep(b); err != nil {
					return nil, err
				}
			}
		case sLet:
			v, err := ev.eval(s.x, b)
			if err == errNoValue {
				continue
			}
			if err != nil {
				return nil, err
			}
			if err := bindTo(b, v); err != nil {
				return nil, err
			}
		case sFor:
			if s.lo == nil {
				for _, x := range s.list {
					v, err := ev.eval(x, b)
					if err == errNoValue {
						continue
					}
					if err != nil {
						return nil, err
					}
					if err := bindTo(b, v); err != nil {
						return nil, err
					}
				}
				continue
			}
			lv, err := ev.eval(s.lo, b)
			if err == errNoValue {
				continue
			}
			if err != nil {
				return nil, err
			}
			hv, err := ev.eval(s.hi, b)
			if err == errNoValue {
				continue
			}
			if err != nil {
				return nil, err
			}
			lo, err := rangeBound(lv, s.lo.sp)
			if err != nil {
				return nil, err
			}
			hi, err := rangeBound(hv, s.hi.sp)
			if err != nil {
				return nil, err
			}
			if !s.inclusive {
				if hi == lo || hi < lo {
					continue
				}
				hi--
			}
			for k := lo; k <= hi; k++ {
				if err := ev.check(); err != nil {
					return nil, err
				}
				if err := bindTo(b, strconv.FormatInt(k, 10)); err != nil {
					return nil, err
				}
				if k == hi { // k++ would overflow at the largest int64
					break
				}
			}
		case sAgg:
			v, ok, err := ev.aggregate(s.agg, b)
			if err != nil {
				return nil, err
			}
			switch {
			case !ok:
			case s.slot < 0:
				if err := keep(b); err != nil {
					return nil, err
				}
			default:
				if err := bindTo(b, v); err != nil {
					return nil, err
				}
			}
		}
	}
	if s.slot >= 0 {
		bound[s.slot] = true
	}
	return out, nil
}

// aggregate computes an aggregate for one binding row. ok is false when
// it yields nothing: min, max and mean of no tuple, and not() over a
// matching tuple.
func (ev *evaluator) aggregate(g *cagg, b []uint32) (string, bool, error) {
	s := ev.lower(g.atom.name)
	if s.eq != nil {
		t := s.eq.table()
		s = source{t: t, n: t.len(), kind: srcTemp}
	}
	t := s.t
	var constPos, varPos, varSlots []int
	for p, a := range g.atom.args {
		switch a.kind {
		case aConst:
			if !a.ok {
				return ev.finish(g, nil, 0)
			}
			constPos = append(constPos, p)
		case aVar:
			if a.group {
				varPos = append(varPos, p)
				varSlots = append(varSlots, a.slot)
			}
		}
	}
	cols := append(slices.Clone(constPos), varPos...)
	vals := make([]uint32, len(cols))
	for i, p := range constPos {
		vals[i] = g.atom.args[p].id
	}
	for i, sl := range varSlots {
		vals[len(constPos)+i] = b[sl]
	}
	// Local variables repeated in the atom must agree within a tuple.
	var eqPos [][2]int
	first := map[int]int{}
	for p, a := range g.atom.args {
		if a.kind == aVar && !a.group {
			if q, ok := first[a.slot]; ok {
				eqPos = append(eqPos, [2]int{q, p})
			} else {
				first[a.slot] = p
			}
		}
	}
	var rows []int32
	if len(cols) == 0 {
		rows = make([]int32, s.n)
		for i := range rows {
			rows[i] = int32(i)
		}
	} else {
		ix, err := ev.relIndex(s, cols)
		if err != nil {
			return "", false, err
		}
		for _, r := range ix.lookup(vals) {
			if int(r) >= s.n {
				break
			}
			if ix.exact() || eqVals(t.row(int(r)), cols, vals) {
				rows = append(rows, r)
			}
		}
	}
	// The work is the rows read: look at the context as often as for as
	// many bindings.
	if err := ev.checkN(len(rows)); err != nil {
		return "", false, err
	}
	matched := rows[:0]
	for _, r := range rows {
		row := t.row(int(r))
		ok := true
		for _, e := range eqPos {
			if row[e[0]] != row[e[1]] {
				ok = false
				break
			}
		}
		if ok {
			matched = append(matched, r)
		}
	}
	return ev.finish(g, matched, len(matched))
}

// finish folds the matched rows of an aggregate's relation.
func (ev *evaluator) finish(g *cagg, rows []int32, n int) (string, bool, error) {
	switch g.fn {
	case syn.AggNot:
		return "", n == 0, nil
	case syn.AggCount:
		return strconv.Itoa(n), true, nil
	}
	t := ev.lower(g.atom.name).rows()
	value := func(r int32) string { return ev.db.strs[t.row(int(r))[g.col]] }
	switch g.fn {
	case syn.AggMin, syn.AggMax:
		if n == 0 {
			return "", false, nil
		}
		best := value(rows[0])
		for _, r := range rows[1:] {
			if err := ev.check(); err != nil {
				return "", false, err
			}
			v := value(r)
			c := syn.CompareValues(v, best, true)
			if (g.fn == syn.AggMin && c < 0) || (g.fn == syn.AggMax && c > 0) {
				best = v
			}
		}
		return best, true, nil
	}
	// sum and mean.
	if g.fn == syn.AggMean && n == 0 {
		return "", false, nil
	}
	sum := number{isInt: true}
	for _, r := range rows {
		if err := ev.check(); err != nil {
			return "", false, err
		}
		v := value(r)
		x, err := asNumber(v, g.sp, g.fn)
		if err != nil {
			return "", false, err
		}
		if sum, err = arith("+", sum, x, g.sp); err != nil {
			return "", false, err
		}
	}
	if g.fn == syn.AggSum {
		return sum.String(), true, nil
	}
	q := new(big.Rat).Quo(sum.rat(), new(big.Rat).SetInt64(int64(n)))
	if s, ok := formatRat(q); ok {
		return s, true, nil
	}
	// No finite decimal: the nearest float64, as Ascent's mean gives.
	f, _ := q.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64), true, nil
}
