package datalog

import (
	"strconv"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// fusedTail is the end of a simple rule after its last join: conditions
// and a head of variables and constants. The last join then runs them in
// its own loop (see joinFused): conditions decided on ids and the head
// row cost no call, and only a head row not derived before reaches emit.
type fusedTail struct {
	conds []ccond
	head  []carg
	// seen, when set, holds the head rows emit has received; a row in it
	// is dropped without calling emit.
	seen *tupleSet
	emit func([]uint32) error
}

// fusable reports whether a rule's head can be built in the last join's
// loop: every argument a variable or a constant.
func fusable(head []carg) bool {
	if head == nil {
		return false
	}
	for _, h := range head {
		if h.kind != aVar && h.kind != aConst {
			return false
		}
	}
	return true
}

// fusedCond is a condition of a fused tail: the value at tuple position
// pos compared with the one at tuple position other (other >= 0) or with
// the condition's fixed side for the binding (other < 0).
type fusedCond struct {
	pos, other int
	// ids: an equality or inequality of values compared bytewise,
	// decided on their ids alone (eq: which of the two).
	ids, eq bool
	// numEq: an equality or inequality compared as numbers, decided on
	// ids when both values are canonical integers.
	numEq bool
	op    string
	// swap: pos holds the condition's right operand.
	swap bool
	// numeric: the values compare as numbers when both are (an operand
	// is a number literal or of a numeric type).
	numeric bool
}

// fval is a value a fused condition compares: an interned id, or (a
// constant the data lack) its text.
type fval struct {
	id uint32
	ok bool // id is set
	s  string
}

// Kinds of values for numeric comparison (numCache).
const (
	numUnknown uint8 = iota
	numInt           // an integer in canonical form that fits in an int64
	numOther         // any other text: compared as CompareValues does
)

// numCache holds, by value id, whether the value is a canonical int64
// and which: two such values compare as their integers, exactly as
// CompareValues compares them as decimals.
type numCache struct {
	kind []uint8
	n    []int64
}

// classify returns the kind of s and its integer.
func classify(s string) (uint8, int64) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(n, 10) == s {
		return numInt, n
	}
	return numOther, 0
}

// num returns the kind and integer of the value of id.
func (ev *evaluator) num(id uint32) (uint8, int64) {
	c := &ev.nums
	if int(id) < len(c.kind) && c.kind[id] != numUnknown {
		return c.kind[id], c.n[id]
	}
	if int(id) >= len(c.kind) {
		n := len(ev.db.strs)
		c.kind = append(c.kind, make([]uint8, n-len(c.kind))...)
		c.n = append(c.n, make([]int64, n-len(c.n))...)
	}
	k, n := classify(ev.db.strs[id])
	c.kind[id], c.n[id] = k, n
	return k, n
}

// ints reports whether the values of a and b are both known to be
// canonical integers (two such values are equal exactly when their ids
// are).
func (ev *evaluator) ints(a, b uint32) bool {
	k := ev.nums.kind
	return int(a) < len(k) && int(b) < len(k) && k[a] == numInt && k[b] == numInt
}

// holds evaluates fused condition c on the tuple's value a and the other
// side b.
func (ev *evaluator) holds(c *fusedCond, a uint32, b fval) bool {
	cmp, known := 0, false
	switch {
	case b.ok && a == b.id:
		known = true
	case c.numeric:
		ka, na := ev.num(a)
		var kb uint8
		var nb int64
		if b.ok {
			kb, nb = ev.num(b.id)
		} else {
			kb, nb = classify(b.s)
		}
		if ka == numInt && kb == numInt {
			cmp, known = compareInts(na, nb), true
		}
	}
	if !known {
		bs := b.s
		if b.ok {
			bs = ev.db.strs[b.id]
		}
		cmp = syn.CompareValues(ev.db.strs[a], bs, c.numeric)
	}
	if c.swap {
		cmp = -cmp
	}
	h, _ := syn.Holds(c.op, cmp)
	return h
}

func compareInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fusedBlock bounds the rows a fused join handles between two checks of
// its context.
const fusedBlock = 4096

// joinFused is the loop of join over an exact index for a fused tail:
// for each binding b and each row tup of s matching it (vals holds the
// constants, then keySlots' values of b), the extended row is b with
// newSlots set from tup's newPos; the tail's conditions are tested and
// its head row built from it, and a head row not in seen goes to emit.
// It reports false, having done nothing, when a condition reads no column
// of s.
func (ev *evaluator) joinFused(cur *bindings, t *table, m int, ix *index, vals []uint32, nconst int, keySlots, newPos, newSlots []int, f *fusedTail) (bool, error) {
	// at maps a slot bound by this join to its tuple position.
	at := make(map[int]int, len(newSlots))
	for i, s := range newSlots {
		at[s] = newPos[i]
	}
	// position returns an operand's tuple position, or -1.
	position := func(o operand) int {
		if p, ok := at[o.slot]; ok && o.isVar {
			return p
		}
		return -1
	}
	conds := make([]fusedCond, 0, len(f.conds))
	// fixedOp is each condition's fixed operand (when other < 0).
	fixedOp := make([]operand, 0, len(f.conds))
	for i := range f.conds {
		c := &f.conds[i]
		lp, rp := position(c.l), position(c.r)
		fc := fusedCond{pos: lp, other: rp, op: c.op, numeric: c.l.numeric || c.r.numeric}
		fc.ids = c.eqIDs && (c.l.isVar || c.l.idOK) && (c.r.isVar || c.r.idOK)
		fc.eq = c.op == "=="
		fc.numEq = !fc.ids && fc.numeric && (c.op == "==" || c.op == "!=")
		fix := c.r
		switch {
		case lp < 0 && rp < 0:
			// Fixed for each binding: a condition the general path
			// tests (it is tested before the last join when it can be).
			return false, nil
		case lp < 0:
			fc.pos, fc.other, fc.swap, fix = rp, -1, true, c.l
		}
		conds = append(conds, fc)
		fixedOp = append(fixedOp, fix)
	}
	fixed := make([]fval, len(conds))
	for k, o := range fixedOp {
		if !o.isVar {
			fixed[k] = fval{id: o.id, ok: o.idOK, s: o.str}
		}
	}
	out := make([]uint32, len(f.head))
	var fromB [][2]int // head position, binding slot
	var fromT [][2]int // head position, tuple position
	for j, h := range f.head {
		switch {
		case h.kind == aConst:
			out[j] = h.id
		case h.kind == aVar:
			if p, ok := at[h.slot]; ok {
				fromT = append(fromT, [2]int{j, p})
			} else {
				fromB = append(fromB, [2]int{j, h.slot})
			}
		}
	}
	seen := f.seen
	// bits: the seen set's bitmap, for two-column head rows.
	var bits []uint64
	var side uint64
	if seen != nil && seen.arity == 2 && len(out) == 2 && seen.bits != nil {
		bits, side = seen.bits, seen.side
	}
	emit := f.emit
	for bi := 0; bi < cur.n; bi++ {
		b := cur.row(bi)
		for i, s := range keySlots {
			vals[nconst+i] = b[s]
		}
		for k, o := range fixedOp {
			if o.isVar {
				fixed[k] = fval{id: b[o.slot], ok: true}
			}
		}
		for _, hb := range fromB {
			out[hb[0]] = b[hb[1]]
		}
		rows := ix.lookup(vals)
		for len(rows) > 0 {
			block := rows[:min(len(rows), fusedBlock)]
			rows = rows[len(block):]
			if err := ev.checkN(len(block)); err != nil {
				return true, err
			}
		rowLoop:
			for _, ri := range block {
				if int(ri) >= m {
					rows = nil
					break
				}
				tup := t.row(int(ri))
				for k := range conds {
					c := &conds[k]
					o := fixed[k]
					if c.other >= 0 {
						o = fval{id: tup[c.other], ok: true}
					}
					a := tup[c.pos]
					if c.ids || (c.numEq && o.ok && (a == o.id || ev.ints(a, o.id))) {
						if (a == o.id) != c.eq {
							continue rowLoop
						}
					} else if !ev.holds(c, a, o) {
						continue rowLoop
					}
				}
				for _, ht := range fromT {
					out[ht[0]] = tup[ht[1]]
				}
				if bits != nil {
					if a, z := uint64(out[0]), uint64(out[1]); a < side && z < side {
						k := a*side + z
						if bits[k>>6]&(1<<(k&63)) != 0 {
							continue
						}
					}
				} else if seen != nil && seen.has(out) {
					continue
				}
				if err := emit(out); err != nil {
					return true, err
				}
			}
		}
	}
	return true, nil
}
