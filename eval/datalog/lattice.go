package datalog

import (
	"encoding/binary"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// latticeSet holds, for a lattice relation, the best value of the last
// column for each combination of the other columns: the greatest, or
// the least for a Dual column. Values compare as numbers when both are
// numbers, else as strings. It is kept apart from the relation's table:
// the table keeps every improvement in the order it was derived, and
// compact reduces it to the best rows when the relation's stratum ends.
type latticeSet struct {
	db   *DB
	key  int // columns before the value
	dual bool
	best map[string]uint32
	buf  []byte
}

func newLatticeSet(db *DB, arity int, dual bool) *latticeSet {
	return &latticeSet{db: db, key: arity - 1, dual: dual, best: map[string]uint32{}}
}

func (l *latticeSet) keyOf(row []uint32) string {
	l.buf = l.buf[:0]
	for _, v := range row[:l.key] {
		l.buf = binary.LittleEndian.AppendUint32(l.buf, v)
	}
	return string(l.buf)
}

// better reports whether value a improves on b.
func (l *latticeSet) better(a, b uint32) bool {
	if a == b {
		return false
	}
	c := syn.CompareValues(l.db.strs[a], l.db.strs[b], true)
	if l.dual {
		return c < 0
	}
	return c > 0
}

// add records row and reports whether its value improves on its key's.
func (l *latticeSet) add(row []uint32) bool {
	k := l.keyOf(row)
	v := row[l.key]
	if old, ok := l.best[k]; ok && !l.better(v, old) {
		return false
	}
	l.best[k] = v
	return true
}

// compact returns the rows of t that hold their key's best value, once
// each, in the order they were derived. stop, when set, is called every
// stopEvery rows, and its error ends the pass.
func (l *latticeSet) compact(t *table, stop func() error) (*table, error) {
	out := newTable(t.arity)
	seen := map[string]bool{}
	for i := 0; i < t.len(); i++ {
		if i%stopEvery == stopEvery-1 && stop != nil {
			if err := stop(); err != nil {
				return nil, err
			}
		}
		row := t.row(i)
		k := l.keyOf(row)
		if l.best[k] == row[l.key] && !seen[k] {
			seen[k] = true
			out.append(row)
		}
	}
	return out, nil
}
