package datalog

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Rows is a set of tuples (a query rule's result or one relation of a
// program) kept as interned ids. It converts to string tuples, or writes
// them as JSON, in sorted order, without building a string tuple per row:
// printing millions of tuples costs little more than writing their bytes.
type Rows struct {
	db *DB
	t  *table
}

// Rows returns the tuples the data gives relation name; nil when the
// data has no such relation.
func (db *DB) Rows(name string) *Rows {
	r, ok := db.rels[name]
	if !ok {
		return nil
	}
	return &Rows{db: db, t: r.tab}
}

// EmptyRows returns an empty set of tuples of the given arity over db.
func EmptyRows(db *DB, arity int) *Rows { return &Rows{db: db, t: newTable(arity)} }

// Len is the number of tuples.
func (r *Rows) Len() int { return r.t.len() }

// Tuples returns the tuples as strings, sorted.
func (r *Rows) Tuples() [][]string { return r.db.strings(r.t) }

// TuplesContext is Tuples that stops when ctx is done: it looks at ctx
// as it sorts and converts, and returns ctx's error then.
func (r *Rows) TuplesContext(ctx context.Context) ([][]string, error) {
	return r.db.stringsStop(r.t, ctx.Err)
}

// WriteJSON writes the tuples, sorted, as a JSON array of arrays of
// strings: the bytes jsonenc.Marshal writes for Tuples().
func (r *Rows) WriteJSON(w io.Writer) error {
	jw := newJSONWriter(w)
	_ = r.appendJSON(jw, nil)
	return jw.flush()
}

// WriteJSONContext is WriteJSON that stops when ctx is done: it looks at
// ctx as it sorts and writes, and returns ctx's error when ctx was done
// before the whole array was written.
func (r *Rows) WriteJSONContext(ctx context.Context, w io.Writer) error {
	jw := newJSONWriter(w)
	if err := r.appendJSON(jw, ctx.Err); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return jw.flush()
}

// appendJSON encodes the sorted tuples into jw; stop, when not nil, is
// consulted as it goes, and its error ends the encoding.
func (r *Rows) appendJSON(jw *jsonWriter, stop func() error) error {
	strs := r.db.strs
	jw.buf = append(jw.buf, '[')
	first := true
	// Sorted rows share their first value in runs: its encoding, with
	// the brackets and commas around it, is kept and copied.
	var prefix []byte
	prevFirst := uint32(0)
	err := r.db.eachSorted(r.t, stop, func(row []uint32) bool {
		if !first {
			jw.buf = append(jw.buf, ',')
		}
		if len(row) > 1 {
			if first || row[0] != prevFirst {
				start := len(jw.buf)
				jw.buf = append(jw.buf, '[')
				jw.str(strs[row[0]])
				jw.buf = append(jw.buf, ',')
				prefix = append(prefix[:0], jw.buf[start:]...)
				prevFirst = row[0]
			} else {
				jw.buf = append(jw.buf, prefix...)
			}
			for i, id := range row[1:] {
				if i > 0 {
					jw.buf = append(jw.buf, ',')
				}
				jw.str(strs[id])
			}
		} else {
			jw.buf = append(jw.buf, '[')
			for _, id := range row {
				jw.str(strs[id])
			}
		}
		first = false
		jw.buf = append(jw.buf, ']')
		return jw.spill()
	})
	jw.buf = append(jw.buf, ']')
	return err
}

// WriteRelationsJSON writes relations as a JSON object, relation name to
// its sorted tuples, names in sorted order: the bytes jsonenc.Marshal writes
// for the map of each relation's Tuples().
func WriteRelationsJSON(w io.Writer, rels map[string]*Rows) error {
	names := make([]string, 0, len(rels))
	for n := range rels {
		names = append(names, n)
	}
	slices.Sort(names)
	jw := newJSONWriter(w)
	jw.buf = append(jw.buf, '{')
	for i, n := range names {
		if i > 0 {
			jw.buf = append(jw.buf, ',')
		}
		jw.str(n)
		jw.buf = append(jw.buf, ':')
		_ = rels[n].appendJSON(jw, nil)
		if jw.err != nil {
			break
		}
	}
	jw.buf = append(jw.buf, '}')
	return jw.flush()
}

// jsonWriter encodes into a buffer that it writes out in large pieces.
type jsonWriter struct {
	w   io.Writer
	buf []byte
	err error
}

const jsonChunk = 64 << 10

func newJSONWriter(w io.Writer) *jsonWriter {
	return &jsonWriter{w: w, buf: make([]byte, 0, jsonChunk+1024)}
}

// spill writes the buffer out when it is full and reports whether
// writing may go on.
func (jw *jsonWriter) spill() bool {
	if len(jw.buf) < jsonChunk || jw.err != nil {
		return jw.err == nil
	}
	_, jw.err = jw.w.Write(jw.buf)
	jw.buf = jw.buf[:0]
	return jw.err == nil
}

func (jw *jsonWriter) flush() error {
	if jw.err != nil {
		return fmt.Errorf("write result: %w", jw.err)
	}
	if _, err := jw.w.Write(jw.buf); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	jw.buf = jw.buf[:0]
	return nil
}

// plainJSON marks the bytes that stand for themselves inside a JSON
// string as ctxql writes it: printable ASCII but the quote and the
// backslash (<, > and & included, as jq writes them).
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range `"\` {
		t[c] = false
	}
	return t
}()

// str appends s as a JSON string, exactly as jsonenc.Marshal encodes it.
func (jw *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			b, err := jsonenc.Marshal(s)
			if err != nil {
				// A Go string always encodes.
				jw.err = fmt.Errorf("encode %q: %w", s, err)
				return
			}
			jw.buf = append(jw.buf, b...)
			return
		}
	}
	jw.buf = append(jw.buf, '"')
	jw.buf = append(jw.buf, s...)
	jw.buf = append(jw.buf, '"')
}

// strings converts a table of distinct rows to sorted string tuples.
func (db *DB) strings(t *table) [][]string {
	out, _ := db.stringsStop(t, nil)
	return out
}

// stringsStop is strings that calls stop (when set) as it goes, as
// eachSorted does, and returns its error.
func (db *DB) stringsStop(t *table, stop func() error) ([][]string, error) {
	ar := t.arity
	flat := make([]string, t.len()*ar)
	out := make([][]string, 0, t.len())
	err := db.eachSorted(t, stop, func(row []uint32) bool {
		tup := flat[:ar:ar]
		flat = flat[ar:]
		for k, id := range row {
			tup[k] = db.strs[id]
		}
		out = append(out, tup)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachSorted calls fn with every row of t (distinct rows), in the order
// of their strings (bytewise, column by column), until fn returns false.
// The row passed to fn is reused. stop, when set, is called as the rows
// are sorted and every stopEvery rows passed to fn; its error ends the
// walk and is returned.
func (db *DB) eachSorted(t *table, stop func() error, fn func(row []uint32) bool) error {
	n, ar := t.len(), t.arity
	if n == 0 {
		return nil
	}
	// stopped is stop's error that ended the calls of fn.
	var stopped error
	if stop != nil {
		each, calls := fn, 0
		fn = func(row []uint32) bool {
			if calls++; calls%stopEvery == 0 {
				if stopped = stop(); stopped != nil {
					return false
				}
			}
			return each(row)
		}
	}
	if ar == 0 {
		fn(nil)
		return stopped
	}
	rank, order, err := db.ranks(stop)
	if err != nil {
		return err
	}
	switch {
	case ar == 1:
		if err := eachSorted1(t, rank, order, stop, fn); err != nil {
			return err
		}
		return stopped
	case ar == 2:
		if err := eachSorted2(t, rank, order, stop, fn); err != nil {
			return err
		}
		return stopped
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	err = sortStop(perm, func(a, b int32) int {
		ra, rb := t.row(int(a)), t.row(int(b))
		for k := range ra {
			if ra[k] != rb[k] {
				if rank[ra[k]] < rank[rb[k]] {
					return -1
				}
				return 1
			}
		}
		return 0
	}, stop)
	if err != nil {
		return err
	}
	for _, i := range perm {
		if !fn(t.row(int(i))) {
			break
		}
	}
	return stopped
}

// eachSorted1 orders one-column rows: by a bitmap over the ranks when
// the rows are many compared with the strings, else by sorting ranks.
func eachSorted1(t *table, rank, order []uint32, stop func() error, fn func([]uint32) bool) error {
	n := t.len()
	row := make([]uint32, 1)
	if n*8 >= len(rank) {
		set := make([]uint64, (len(rank)+63)/64)
		for _, c := range t.chunks {
			if err := stopChunk(stop); err != nil {
				return err
			}
			for _, id := range c {
				r := rank[id]
				set[r>>6] |= 1 << (r & 63)
			}
		}
		for w, word := range set {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &= word - 1
				row[0] = order[w<<6|b]
				if !fn(row) {
					return nil
				}
			}
		}
		return nil
	}
	rs := make([]uint32, 0, n)
	for _, c := range t.chunks {
		for _, id := range c {
			rs = append(rs, rank[id])
		}
	}
	if err := sortOrderedStop(rs, stop); err != nil {
		return err
	}
	for _, r := range rs {
		row[0] = order[r]
		if !fn(row) {
			return nil
		}
	}
	return nil
}

// stopChunk calls stop, when set: once per chunk of a table (chunkRows
// rows) in the loops of eachSorted1 and eachSorted2.
func stopChunk(stop func() error) error {
	if stop == nil {
		return nil
	}
	return stop()
}

// eachSorted2 orders two-column rows. When the rows are many compared
// with the strings, it places the second column's ranks in buckets by
// the first column's rank (a counting sort, four bytes a row) and sorts
// each bucket; otherwise it sorts the rows' packed ranks.
func eachSorted2(t *table, rank, order []uint32, stop func() error, fn func([]uint32) bool) error {
	n := t.len()
	row := make([]uint32, 2)
	if n*4 < len(rank) {
		keys := make([]uint64, 0, n)
		for _, c := range t.chunks {
			for o := 0; o+1 < len(c); o += 2 {
				keys = append(keys, uint64(rank[c[o]])<<32|uint64(rank[c[o+1]]))
			}
		}
		if err := sortOrderedStop(keys, stop); err != nil {
			return err
		}
		for _, k := range keys {
			row[0], row[1] = order[k>>32], order[uint32(k)]
			if !fn(row) {
				return nil
			}
		}
		return nil
	}
	if side, stride := len(rank), (len(rank)+63)/64; side*stride*64 <= maxSetBits {
		// Few strings: one bit per pair of ranks, a row of stride words
		// per first rank, read in order.
		set := make([]uint64, side*stride)
		for _, c := range t.chunks {
			if err := stopChunk(stop); err != nil {
				return err
			}
			for o := 0; o+1 < len(c); o += 2 {
				r1 := rank[c[o+1]]
				set[int(rank[c[o]])*stride+int(r1>>6)] |= 1 << (r1 & 63)
			}
		}
		for w, word := range set {
			if word == 0 {
				continue
			}
			row[0] = order[w/stride]
			base := (w % stride) << 6
			for word != 0 {
				row[1] = order[base|bits.TrailingZeros64(word)]
				word &= word - 1
				if !fn(row) {
					return nil
				}
			}
		}
		return nil
	}
	start := make([]int32, len(rank)+1)
	for _, c := range t.chunks {
		if err := stopChunk(stop); err != nil {
			return err
		}
		for o := 0; o+1 < len(c); o += 2 {
			start[rank[c[o]]+1]++
		}
	}
	for r := range len(rank) {
		start[r+1] += start[r]
	}
	next := slices.Clone(start[:len(rank)])
	second := make([]uint32, n)
	for _, c := range t.chunks {
		if err := stopChunk(stop); err != nil {
			return err
		}
		for o := 0; o+1 < len(c); o += 2 {
			r := rank[c[o]]
			second[next[r]] = rank[c[o+1]]
			next[r]++
		}
	}
	// A bucket of many rows is ordered through a bitmap over the ranks
	// (the rows are distinct), a small one by sorting.
	var set []uint64
	for r := range len(rank) {
		b := second[start[r]:start[r+1]]
		if len(b) == 0 {
			continue
		}
		row[0] = order[r]
		if len(b)*16 < len(rank) {
			if err := sortOrderedStop(b, stop); err != nil {
				return err
			}
			for _, r1 := range b {
				row[1] = order[r1]
				if !fn(row) {
					return nil
				}
			}
			continue
		}
		if set == nil {
			set = make([]uint64, (len(rank)+63)/64)
		}
		lo, hi := len(set), 0
		for _, r1 := range b {
			w := int(r1 >> 6)
			set[w] |= 1 << (r1 & 63)
			lo, hi = min(lo, w), max(hi, w)
		}
		for w := lo; w <= hi; w++ {
			word := set[w]
			set[w] = 0
			for word != 0 {
				row[1] = order[w<<6|bits.TrailingZeros64(word)]
				word &= word - 1
				if !fn(row) {
					return nil
				}
			}
		}
	}
	return nil
}

// ranks returns, for the strings interned so far, rank[id] (the position
// of strs[id] in sorted order) and order[r] (the id of rank r). They are
// computed on first use and again when strings were added since. stop,
// when set, is called as the strings are sorted; its error ends the sort,
// and nothing is kept of it.
func (db *DB) ranks(stop func() error) (rank, order []uint32, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if len(db.rank) == len(db.strs) {
		return db.rank, db.order, nil
	}
	order = make([]uint32, len(db.strs))
	for i := range order {
		order[i] = uint32(i)
	}
	if err := sortStop(order, func(a, b uint32) int { return strings.Compare(db.strs[a], db.strs[b]) }, stop); err != nil {
		return nil, nil, err
	}
	rank = make([]uint32, len(db.strs))
	for r, id := range order {
		rank[id] = uint32(r)
	}
	db.rank, db.order = rank, order
	return rank, order, nil
}
