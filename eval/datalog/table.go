package datalog

import "encoding/binary"

// table is a list of rows of interned ids, stored flat.
type table struct {
	arity int
	data  []uint32
	n     int // rows; tracked separately so that arity-0 tables work
}

func newTable(arity int) *table { return &table{arity: arity} }

func (t *table) len() int { return t.n }

func (t *table) row(i int) []uint32 { return t.data[i*t.arity : (i+1)*t.arity] }

func (t *table) append(row []uint32) {
	t.data = append(t.data, row...)
	t.n++
}

// tupleSet is an exact set of rows of one arity.
type tupleSet struct {
	arity int
	small map[uint64]struct{} // arity <= 2: packed exactly
	large map[string]struct{}
	buf   []byte
}

func newTupleSet(arity int) *tupleSet {
	s := &tupleSet{arity: arity}
	if arity <= 2 {
		s.small = map[uint64]struct{}{}
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
	if s.small != nil {
		k := pack(row)
		if _, ok := s.small[k]; ok {
			return false
		}
		s.small[k] = struct{}{}
		return true
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

func (s *tupleSet) has(row []uint32) bool {
	if s.small != nil {
		_, ok := s.small[pack(row)]
		return ok
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
	data   []uint32
	stride int
	cols   []int
	groups map[uint64]int32
	// dense, for one-column keys over a dense id space, maps a value to
	// its group plus one (0: no group); groups is then unused.
	dense []int32
	start []int32
	rows  []int32
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
// then uses an array instead of a hash map.
func buildIndex(data []uint32, stride, n int, cols []int, idSpace int) *index {
	ix := &index{data: data, stride: stride, cols: cols}
	gid := make([]int32, n)
	var counts []int32
	if len(cols) == 1 && idSpace > 0 && n*4 >= idSpace {
		ix.dense = make([]int32, idSpace)
		c := cols[0]
		for i := 0; i < n; i++ {
			v := data[i*stride+c]
			g := ix.dense[v] - 1
			if g < 0 {
				g = int32(len(counts))
				ix.dense[v] = g + 1
				counts = append(counts, 0)
			}
			gid[i] = g
			counts[g]++
		}
	} else {
		ix.groups = make(map[uint64]int32, n/4+1)
		for i := 0; i < n; i++ {
			k := keyOf(data[i*stride:(i+1)*stride], cols)
			g, ok := ix.groups[k]
			if !ok {
				g = int32(len(counts))
				ix.groups[k] = g
				counts = append(counts, 0)
			}
			gid[i] = g
			counts[g]++
		}
	}
	ix.start = make([]int32, len(counts)+1)
	for g, c := range counts {
		ix.start[g+1] = ix.start[g] + c
	}
	fill := make([]int32, len(counts))
	copy(fill, ix.start[:len(counts)])
	ix.rows = make([]int32, n)
	for i, g := range gid {
		ix.rows[fill[g]] = int32(i)
		fill[g]++
	}
	return ix
}

// lookup returns the row numbers whose key columns hold vals. For hashed
// keys the caller must verify the columns.
func (ix *index) lookup(vals []uint32) []int32 {
	if ix.dense != nil {
		if int(vals[0]) >= len(ix.dense) || ix.dense[vals[0]] == 0 {
			return nil
		}
		g := ix.dense[vals[0]] - 1
		return ix.rows[ix.start[g]:ix.start[g+1]]
	}
	g, ok := ix.groups[keyOfVals(vals)]
	if !ok {
		return nil
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
