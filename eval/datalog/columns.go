package datalog

import syn "github.com/ctxql/ctxql/syntax/datalog"

// NumericColumns returns, for each relation of the data, whether each
// column holds values and every one is a plain decimal number (see
// syn.ParseDecimal): what the numeric-text-comparison rule (DL011) reads
// from the sample data.
func (db *DB) NumericColumns() map[string][]bool {
	out := map[string][]bool{}
	for name, r := range db.rels {
		t := r.tab
		cols := make([]bool, t.arity)
		for c := range cols {
			cols[c] = t.len() > 0
		}
		for i := 0; i < t.len(); i++ {
			for c, id := range t.row(i) {
				if cols[c] {
					_, cols[c] = syn.ParseDecimal(db.strs[id])
				}
			}
		}
		out[name] = cols
	}
	return out
}
