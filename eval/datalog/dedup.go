package datalog

// maxGroupRun bounds the rows of a run of equal first values that
// dedupGrouped compares with each other.
const maxGroupRun = 32

// dedupGrouped deduplicates a loaded relation's rows (ar ≥ 2 values
// each, every value below idSpace) when the rows of each first value are
// adjacent, as in data written grouped by its first column: then equal
// rows lie in one run of equal first values, and the rows of a run are
// compared with each other rather than looked up in a hashed set, with
// one bit per first value to tell that no first value comes back after
// its run. It keeps the first of equal rows, in order, as dedup does,
// and returns the rows kept and true.
//
// It returns false when a first value comes back after its run, or a run
// has more than maxGroupRun rows: the rows it returns then (a prefix of
// them deduplicated, the rest as they were) deduplicate to what vals
// does, and are for dedup or dedupSplit. stop is called every stopEvery
// rows.
func dedupGrouped(ar, idSpace int, vals []uint32, stop func() error) ([]uint32, bool, error) {
	n := len(vals) / ar
	seen := make([]uint64, idSpace/64+1)
	w := 0 // the rows kept so far are vals[:w*ar]
	next := stopEvery
	for i := 0; i < n; {
		if i >= next {
			next = i + stopEvery
			if stop != nil {
				if err := stop(); err != nil {
					return nil, false, err
				}
			}
		}
		f := vals[i*ar]
		if int(f) >= idSpace || seen[f>>6]&(1<<(f&63)) != 0 {
			return compactRest(ar, vals, w, i), false, nil
		}
		seen[f>>6] |= 1 << (f & 63)
		j := i + 1
		for j < n && vals[j*ar] == f {
			j++
		}
		if j-i > maxGroupRun {
			return compactRest(ar, vals, w, i), false, nil
		}
		// The run's rows kept so far are vals[w0*ar : w*ar].
		w0 := w
		if ar == 2 {
			for k := i; k < j; k++ {
				b := vals[2*k+1]
				dup := false
				for m := w0; m < w; m++ {
					if vals[2*m+1] == b {
						dup = true
						break
					}
				}
				if !dup {
					vals[2*w], vals[2*w+1] = f, b
					w++
				}
			}
			i = j
			continue
		}
		for k := i; k < j; k++ {
			row := vals[k*ar : (k+1)*ar]
			dup := false
			for m := w0; m < w && !dup; m++ {
				dup = equalRows(vals[m*ar+1:(m+1)*ar], row[1:])
			}
			if !dup {
				if w != k {
					copy(vals[w*ar:(w+1)*ar], row)
				}
				w++
			}
		}
		i = j
	}
	return vals[:w*ar], true, nil
}

// compactRest returns the rows kept, vals[:w*ar], followed by the rows
// not looked at yet, from row i on.
func compactRest(ar int, vals []uint32, w, i int) []uint32 {
	if w == i {
		return vals
	}
	k := copy(vals[w*ar:], vals[i*ar:])
	return vals[:w*ar+k]
}

// equalRows reports whether a and b, of one length, hold the same values.
func equalRows(a, b []uint32) bool {
	for i, v := range a {
		if b[i] != v {
			return false
		}
	}
	return true
}

// newLoadSet is newTupleSetSized for deduplicating n loaded rows, its
// hashed set's memory written, one word a page, before dedup reads ahead
// in it (see interner.touch): n rows hashed over about 4n/3 slots reach
// every page.
func newLoadSet(ar, idSpace, n int) *tupleSet {
	s := newTupleSetSized(ar, idSpace, n)
	const perPage = 4096 / 8
	if s.small != nil {
		for i := 0; i < len(s.small.slots); i += perPage {
			s.small.slots[i] = 0
		}
	}
	// The bitmap is left alone: rows of a few values touch few of its
	// pages.
	return s
}
