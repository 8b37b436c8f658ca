package datalog

import (
	"encoding/binary"
	"slices"
)

// table is a list of rows of interned ids, stored in chunks of up to
// chunkRows rows each: a table grows without copying its rows, so a
// relation of millions of tuples never needs twice its size to grow.
// The first chunk grows like a slice, so that small tables stay small.
type table struct {
	arity  int
	chunks [][]uint32
	n      int // rows; tracked separately so that arity-0 tables work
}

const (
	chunkShift = 14
	chunkRows  = 1 << chunkShift
	chunkMask  = chunkRows - 1
)

func newTable(arity int) *table { return &table{arity: arity} }

// tableOf returns a table over the rows of data (arity > 0 values each),
// which it keeps.
func tableOf(arity int, data []uint32) *table {
	t := &table{arity: arity}
	t.n = len(data) / arity
	size := chunkRows * arity
	for len(data) > 0 {
		k := min(size, len(data))
		t.chunks = append(t.chunks, data[:k:k])
		data = data[k:]
	}
	return t
}

func (t *table) len() int { return t.n }

func (t *table) row(i int) []uint32 {
	c := t.chunks[i>>chunkShift]
	o := (i & chunkMask) * t.arity
	return c[o : o+t.arity : o+t.arity]
}

func (t *table) append(row []uint32) {
	k := t.n >> chunkShift
	if k < len(t.chunks) {
		// The common case: room in the last chunk.
		c := t.chunks[k]
		if l := len(c); l+len(row) <= cap(c) {
			c = c[:l+len(row)]
			// A loop, not copy: rows are short, and copy would call
			// memmove for each.
			d := c[l:]
			//lint:ignore S1001 copy calls memmove for each short row.
			for i, v := range row {
				d[i] = v
			}
			t.chunks[k] = c
			t.n++
			return
		}
	}
	if k == len(t.chunks) {
		size := chunkRows * t.arity
		if k == 0 {
			size = 0
		}
		t.chunks = append(t.chunks, make([]uint32, 0, size))
	}
	c := t.chunks[k]
	if len(c)+len(row) > cap(c) {
		// Only the first chunk grows: fourfold, so that a table of one
		// round copies its rows a third of the times doubling would.
		nc := make([]uint32, len(c), min(max(4*cap(c), 64*t.arity), chunkRows*t.arity))
		copy(nc, c)
		c = nc
	}
	t.chunks[k] = append(c, row...)
	t.n++
}

// appendTable appends the rows of u. stop, when set, is called every
// stopEvery rows, and its error ends the appending.
func (t *table) appendTable(u *table, stop func() error) error {
	ar := t.arity
	for i, next := 0, stopEvery; i < u.n; {
		if i >= next && stop != nil {
			if err := stop(); err != nil {
				return err
			}
			next = i + stopEvery
		}
		k := t.n >> chunkShift
		if ar == 0 || k == len(t.chunks) {
			t.append(u.row(i))
			i++
			continue
		}
		// Copy the rows that fit in t's last chunk and lie in one chunk
		// of u at once.
		c := t.chunks[k]
		cnt := min(u.n-i, chunkRows-i&chunkMask, chunkRows-t.n&chunkMask, stopEvery, (cap(c)-len(c))/ar)
		if cnt == 0 {
			t.append(u.row(i))
			i++
			continue
		}
		o := (i & chunkMask) * ar
		t.chunks[k] = append(c, u.chunks[i>>chunkShift][o:o+cnt*ar]...)
		t.n += cnt
		i += cnt
	}
	return nil
}

// clone returns a copy of t.
func (t *table) clone() *table {
	c := &table{arity: t.arity, n: t.n, chunks: make([][]uint32, len(t.chunks))}
	for i, ch := range t.chunks {
		c.chunks[i] = slices.Clone(ch)
	}
	return c
}

// index builds the index of t's first n rows on cols (see buildIndex).
func (t *table) index(n int, cols []int, idSpace int, stop func() error) (*index, error) {
	return buildIndexChunks(t.chunks, t.arity, n, cols, idSpace, stop)
}

// stopEvery is the number of rows a long loop over a table (building an
// index, deduplicating) handles between two calls of its stop function,
// which returns the error that ends the loop early (a context's).
const stopEvery = 4096

// tupleSet is an exact set of rows of one arity.
type tupleSet struct {
	arity int
	small *u64set // arity <= 2: packed exactly
	large map[string]struct{}
	buf   []byte
	// bits, for arity 1 and 2 over a small id space, holds the rows whose
	// values are all below side as one bit each; other rows go to small.
	bits []uint64
	side uint64
	// touched sums what dedup read ahead, so that the reads are kept.
	touched uint64
	// parts, when set, replaces small: the rows split by their first
	// value (partOf), a set for each part, so that goroutines deriving
	// rows of different parts insert them at once (see partition).
	parts []*u64set
}

// partOf returns the part, of n, that rows whose first value is v go to.
func partOf(v uint32, n int) int {
	// The hash's high 32 bits scaled to n: no division.
	return int((uint64(v) * 0x9e3779b97f4a7c15 >> 32) * uint64(n) >> 32)
}

// partition splits the rows of s kept in small into n parts by their
// first value (nothing when s has no such rows, or is split already).
func (s *tupleSet) partition(n int) {
	if s.small == nil || s.arity == 0 {
		return
	}
	h := s.small
	s.parts = make([]*u64set, n)
	for i := range s.parts {
		s.parts[i] = newU64Set(h.n / n)
	}
	first := func(k uint64) uint32 {
		if s.arity == 1 {
			return uint32(k)
		}
		return uint32(k >> 32)
	}
	if h.zero {
		s.parts[partOf(0, n)].add(0)
	}
	for _, k := range h.slots {
		if k != 0 {
			s.parts[partOf(first(k), n)].add(k)
		}
	}
	s.small = nil
}

// part returns a set over part i of s's rows, for one goroutine to read
// and add to while others use the other parts.
func (s *tupleSet) part(i int) *tupleSet {
	return &tupleSet{arity: s.arity, small: s.parts[i]}
}

// maxSetBits bounds the bitmap of a tuple set (8 MiB).
const maxSetBits = 1 << 26

// newTupleSetFor returns a set that uses a bitmap when the rows' values
// lie below idSpace and the bitmap is small.
func newTupleSetFor(arity, idSpace int) *tupleSet {
	return newTupleSetSized(arity, idSpace, 0)
}

// newTupleSetSized is newTupleSetFor with room for about n rows.
func newTupleSetSized(arity, idSpace, n int) *tupleSet {
	s := &tupleSet{arity: arity}
	if arity <= 2 {
		s.small = newU64Set(n)
	} else {
		s.large = make(map[string]struct{}, n)
	}
	side := uint64(idSpace) + 64
	switch {
	case arity == 1 && side <= maxSetBits:
		s.bits, s.side = make([]uint64, (side+63)/64), side
	case arity == 2 && side*side <= maxSetBits:
		s.bits, s.side = make([]uint64, (side*side+63)/64), side
	}
	return s
}

// bit returns the bit position of row, and false when the row lies
// outside the bitmap.
func (s *tupleSet) bit(row []uint32) (uint64, bool) {
	if s.bits == nil {
		return 0, false
	}
	if s.arity == 1 {
		return uint64(row[0]), uint64(row[0]) < s.side
	}
	a, b := uint64(row[0]), uint64(row[1])
	return a*s.side + b, a < s.side && b < s.side
}

func newTupleSet(arity int) *tupleSet {
	s := &tupleSet{arity: arity}
	if arity <= 2 {
		s.small = newU64Set(0)
	} else {
		s.large = map[string]struct{}{}
	}
	return s
}

func pack(row []uint32) uint64 {
	switch len(row) {
	case 0:
		return 0
	case 1:
		return uint64(row[0])
	}
	return uint64(row[0])<<32 | uint64(row[1])
}

// add inserts row and reports whether it was new.
func (s *tupleSet) add(row []uint32) bool {
	if k, ok := s.bit(row); ok {
		w, m := k>>6, uint64(1)<<(k&63)
		if s.bits[w]&m != 0 {
			return false
		}
		s.bits[w] |= m
		return true
	}
	if s.small != nil {
		return s.small.add(pack(row))
	}
	if s.parts != nil {
		return s.parts[partOf(row[0], len(s.parts))].add(pack(row))
	}
	s.buf = s.buf[:0]
	for _, v := range row {
		s.buf = binary.LittleEndian.AppendUint32(s.buf, v)
	}
	if _, ok := s.large[string(s.buf)]; ok {
		return false
	}
	s.large[string(s.buf)] = struct{}{}
	return true
}

// dedup adds the rows of vals (s.arity values each) to s and moves the
// new ones to the front of vals, in order; it returns them. stop, when
// set, is called every stopEvery rows, and its error ends the pass.
func (s *tupleSet) dedup(vals []uint32, stop func() error) ([]uint32, error) {
	ar := s.arity
	n := len(vals) / ar
	w := 0
	// In the hashed set, read the slot of the row a few rows ahead so
	// that the processor overlaps the cache misses.
	const ahead = 8
	var touch uint64
	for i := range n {
		if i%stopEvery == stopEvery-1 && stop != nil {
			if err := stop(); err != nil {
				return nil, err
			}
		}
		if h := s.small; h != nil && s.bits == nil && i+ahead < n {
			touch += h.slots[h.home(pack(vals[(i+ahead)*ar:(i+ahead+1)*ar]))]
		}
		row := vals[i*ar : (i+1)*ar]
		if s.add(row) {
			copy(vals[w*ar:], row)
			w++
		}
	}
	s.touched += touch
	return vals[:w*ar], nil
}

func (s *tupleSet) has(row []uint32) bool {
	if k, ok := s.bit(row); ok {
		return s.bits[k>>6]&(uint64(1)<<(k&63)) != 0
	}
	if s.small != nil {
		return s.small.has(pack(row))
	}
	if s.parts != nil {
		return s.parts[partOf(row[0], len(s.parts))].has(pack(row))
	}
	s.buf = s.buf[:0]
	for _, v := range row {
		s.buf = binary.LittleEndian.AppendUint32(s.buf, v)
	}
	_, ok := s.large[string(s.buf)]
	return ok
}

// index groups the rows of a flat row store by the values in key columns.
// Keys of up to two columns are packed exactly; longer keys are hashed and
// verified on lookup.
type index struct {
	cols   []int
	groups map[uint64]int32
	// dense, for one-column keys over a dense id space, maps a value to
	// its group plus one (0: no group); groups is then unused.
	dense []int32
	start []int32
	rows  []int32
	// lists, when set, holds each group's rows instead of start and rows:
	// the index of a growing table, extended as rows are appended.
	lists [][]int32
	done  int // rows indexed so far (growing tables)
}

// newGrowingIndex returns an empty index on cols for a table that grows;
// extend adds the rows appended since the last call.
func newGrowingIndex(cols []int) *index {
	ix := &index{cols: cols, lists: [][]int32{}}
	if len(cols) == 1 {
		ix.dense = []int32{}
	} else {
		ix.groups = map[uint64]int32{}
	}
	return ix
}

// extend indexes the rows of t not indexed yet. It returns stop's
// error when stop, called every stopEvery rows, returns one; the rows
// indexed until then stay indexed.
func (ix *index) extend(t *table, stop func() error) error {
	for i := ix.done; i < t.n; i++ {
		if (i-ix.done)%stopEvery == stopEvery-1 && stop != nil {
			if err := stop(); err != nil {
				ix.done = i
				return err
			}
		}
		row := t.row(i)
		var g int32
		if ix.dense != nil {
			v := row[ix.cols[0]]
			if int(v) >= len(ix.dense) {
				ix.dense = slices.Grow(ix.dense, int(v)+1-len(ix.dense))[:int(v)+1]
			}
			g = ix.dense[v] - 1
			if g < 0 {
				g = int32(len(ix.lists))
				ix.dense[v] = g + 1
				ix.lists = append(ix.lists, nil)
			}
		} else {
			k := keyOf(row, ix.cols)
			var ok bool
			g, ok = ix.groups[k]
			if !ok {
				g = int32(len(ix.lists))
				ix.groups[k] = g
				ix.lists = append(ix.lists, nil)
			}
		}
		ix.lists[g] = append(ix.lists[g], int32(i))
	}
	if ix.done != t.n {
		// Written only when rows were added: the workers of a split
		// round read done (unique) while another extends the index by
		// nothing.
		ix.done = t.n
	}
	return nil
}

func keyOf(row []uint32, cols []int) uint64 {
	switch len(cols) {
	case 0:
		return 0
	case 1:
		return uint64(row[cols[0]])
	case 2:
		return uint64(row[cols[0]])<<32 | uint64(row[cols[1]])
	}
	h := uint64(14695981039346656037)
	for _, c := range cols {
		h ^= uint64(row[c])
		h *= 1099511628211
		h ^= h >> 29
	}
	return h
}

func keyOfVals(vals []uint32) uint64 {
	switch len(vals) {
	case 0:
		return 0
	case 1:
		return uint64(vals[0])
	case 2:
		return uint64(vals[0])<<32 | uint64(vals[1])
	}
	h := uint64(14695981039346656037)
	for _, v := range vals {
		h ^= uint64(v)
		h *= 1099511628211
		h ^= h >> 29
	}
	return h
}

// buildIndex indexes n rows of data (stride values each) on cols. idSpace,
// when positive, bounds the values: a one-column index over enough rows
// then uses an array instead of a hash map. stop, when set, is called
// every stopEvery rows, and its error ends the building.
func buildIndex(data []uint32, stride, n int, cols []int, idSpace int, stop func() error) (*index, error) {
	return buildIndexChunks([][]uint32{data}, stride, n, cols, idSpace, stop)
}

// buildIndexChunks is buildIndex over rows stored in consecutive chunks.
func buildIndexChunks(chunks [][]uint32, stride, n int, cols []int, idSpace int, stop func() error) (*index, error) {
	ix := &index{cols: cols}
	gid := make([]int32, n)
	var counts []int32
	// each calls f with every row of the first n, in order, and stop
	// every stopEvery rows.
	each := func(f func(i int, row []uint32)) error {
		i := 0
		for _, c := range chunks {
			for o := 0; o+stride <= len(c) && i < n; o += stride {
				if i%stopEvery == stopEvery-1 && stop != nil {
					if err := stop(); err != nil {
						return err
					}
				}
				f(i, c[o:o+stride])
				i++
			}
			if i >= n {
				return nil
			}
		}
		return nil
	}
	if stride == 0 {
		each = func(f func(int, []uint32)) error {
			for i := range n {
				f(i, nil)
			}
			return nil
		}
	}
	var err error
	if len(cols) == 1 && idSpace > 0 && n*4 >= idSpace {
		ix.dense = make([]int32, idSpace)
		c := cols[0]
		err = each(func(i int, row []uint32) {
			v := row[c]
			g := ix.dense[v] - 1
			if g < 0 {
				g = int32(len(counts))
				ix.dense[v] = g + 1
				counts = append(counts, 0)
			}
			gid[i] = g
			counts[g]++
		})
	} else {
		ix.groups = make(map[uint64]int32, n/4+1)
		err = each(func(i int, row []uint32) {
			k := keyOf(row, cols)
			g, ok := ix.groups[k]
			if !ok {
				g = int32(len(counts))
				ix.groups[k] = g
				counts = append(counts, 0)
			}
			gid[i] = g
			counts[g]++
		})
	}
	if err != nil {
		return nil, err
	}
	ix.start = make([]int32, len(counts)+1)
	for g, c := range counts {
		ix.start[g+1] = ix.start[g] + c
	}
	fill := make([]int32, len(counts))
	copy(fill, ix.start[:len(counts)])
	ix.rows = make([]int32, n)
	for i, g := range gid {
		if i%stopEvery == stopEvery-1 && stop != nil {
			if err := stop(); err != nil {
				return nil, err
			}
		}
		ix.rows[fill[g]] = int32(i)
		fill[g]++
	}
	return ix, nil
}

// lookup returns the row numbers whose key columns hold vals, in
// ascending order. For hashed keys the caller must verify the columns.
func (ix *index) lookup(vals []uint32) []int32 {
	if ix.dense != nil {
		if int(vals[0]) >= len(ix.dense) || ix.dense[vals[0]] == 0 {
			return nil
		}
		g := ix.dense[vals[0]] - 1
		if ix.lists != nil {
			return ix.lists[g]
		}
		return ix.rows[ix.start[g]:ix.start[g+1]]
	}
	g, ok := ix.groups[keyOfVals(vals)]
	if !ok {
		return nil
	}
	if ix.lists != nil {
		return ix.lists[g]
	}
	return ix.rows[ix.start[g]:ix.start[g+1]]
}

// has reports whether some row's one-column key is v.
func (ix *index) has(v uint32) bool {
	if ix.dense != nil {
		return int(v) < len(ix.dense) && ix.dense[v] != 0
	}
	_, ok := ix.groups[uint64(v)]
	return ok
}

// exact reports whether lookups need no verification.
func (ix *index) exact() bool { return len(ix.cols) <= 2 }

// u64set is a set of uint64 keys: open addressing with linear probing
// over a power-of-two table at most three quarters full, the slot chosen by the
// high bits of the key times a Fibonacci constant. Slot value 0 means
// empty; the key 0 is kept apart.
type u64set struct {
	slots []uint64
	shift uint
	n     int
	zero  bool
}

func newU64Set(size int) *u64set {
	n, shift := 16, uint(60)
	for 3*n < 4*size {
		n *= 2
		shift--
	}
	return &u64set{slots: make([]uint64, n), shift: shift}
}

func (s *u64set) home(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> s.shift }

// add inserts k and reports whether it was new.
func (s *u64set) add(k uint64) bool {
	if k == 0 {
		if s.zero {
			return false
		}
		s.zero = true
		return true
	}
	mask := uint64(len(s.slots) - 1)
	i := s.home(k)
	for {
		e := s.slots[i]
		if e == k {
			return false
		}
		if e == 0 {
			break
		}
		i = (i + 1) & mask
	}
	s.slots[i] = k
	s.n++
	if 4*s.n > 3*len(s.slots) {
		s.grow()
	}
	return true
}

func (s *u64set) has(k uint64) bool {
	if k == 0 {
		return s.zero
	}
	mask := uint64(len(s.slots) - 1)
	for i := s.home(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

func (s *u64set) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	s.shift--
	mask := uint64(len(s.slots) - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := s.home(k)
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = k
	}
}
