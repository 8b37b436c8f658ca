package datalog

// fusedTail is the end of a simple rule after its last join: conditions
// that compare interned ids and a head of variables and constants. The
// last join then runs them in its own loop, with no call per extended row
// until a head row is new (see joinFused).
type fusedTail struct {
	conds []ccond
	head  []carg
	// seen, when set, holds the head rows emit has received; a row in it
	// is dropped without calling emit.
	seen *tupleSet
	emit func([]uint32) error
}

// fusable reports whether the conditions and the head of a rule's tail
// can run in the last join's loop: every condition an equality or
// inequality decided on ids, every head argument a variable or constant.
func fusable(conds []ccond, head []carg) bool {
	if head == nil {
		return false
	}
	for i := range conds {
		c := &conds[i]
		if !c.eqIDs || (!c.l.isVar && !c.l.idOK) || (!c.r.isVar && !c.r.idOK) {
			return false
		}
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
// a value fixed for each binding (fixed).
type fusedCond struct {
	pos, other int
	eq         bool
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
	// operand returns, for a condition operand, its tuple position (or
	// -1) and otherwise the slot or constant it reads.
	operand := func(o operand) (pos int, slot int, id uint32) {
		if !o.isVar {
			return -1, -1, o.id
		}
		if p, ok := at[o.slot]; ok {
			return p, -1, 0
		}
		return -1, o.slot, 0
	}
	fixSlot := make([]int, len(f.conds))     // per condition: the slot of the fixed side, or -1
	fixConst := make([]uint32, len(f.conds)) // its constant
	var conds []fusedCond
	for i := range f.conds {
		c := &f.conds[i]
		lp, ls, lid := operand(c.l)
		rp, rs, rid := operand(c.r)
		if lp < 0 && rp < 0 {
			// Fixed for each binding: a condition the general path
			// tests (it is tested before the last join when it can be).
			return false, nil
		}
		if lp < 0 {
			lp, rp, rs, rid = rp, lp, ls, lid
		}
		k := len(conds)
		conds = append(conds, fusedCond{pos: lp, other: rp, eq: c.op == "=="})
		fixSlot[k], fixConst[k] = rs, rid
	}
	fixed := make([]uint32, len(conds))
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
		for k := range conds {
			if s := fixSlot[k]; s >= 0 {
				fixed[k] = b[s]
			} else {
				fixed[k] = fixConst[k]
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
					r := fixed[k]
					if c.other >= 0 {
						r = tup[c.other]
					}
					if (tup[c.pos] == r) != c.eq {
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
