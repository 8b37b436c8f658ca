package datalog

import syn "github.com/ctxql/ctxql/syntax/datalog"

// NumericColumns returns, for each relation of the data, whether each
// column holds values and every one is a plain decimal number (see
// syn.ParseDecimal): what the numeric-text-comparison rule (DL011) reads
// from the sample data.
func (db *DB) NumericColumns() map[string][]bool {
	out := map[string][]bool{}
	// known[id] is 1 when the value of id is a decimal number, 2 when it
	// is not, 0 before it is read: each value is parsed once.
	known := make([]uint8, len(db.strs))
	for name, r := range db.rels {
		t := r.tab
		cols := make([]bool, t.arity)
		left := 0
		for c := range cols {
			cols[c] = t.len() > 0
			if cols[c] {
				left++
			}
		}
		for i := 0; i < t.len() && left > 0; i++ {
			for c, id := range t.row(i) {
				if !cols[c] {
					continue
				}
				if known[id] == 0 {
					known[id] = 2
					if _, ok := syn.ParseDecimal(db.strs[id]); ok {
						known[id] = 1
					}
				}
				if known[id] == 2 {
					cols[c] = false
					left--
				}
			}
		}
		out[name] = cols
	}
	return out
}
