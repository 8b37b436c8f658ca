package pact

import "sort"

// TokenAt returns the index of the token covering off, else of the token
// ending at off (the cursor just after a word), or -1.
func (f *File) TokenAt(off int) int {
	i := sort.Search(len(f.Tokens), func(i int) bool { return f.Tokens[i].Sp.End > off })
	if i < len(f.Tokens) && f.Tokens[i].Sp.Start <= off {
		return i
	}
	if i > 0 && f.Tokens[i-1].Sp.End == off {
		return i - 1
	}
	return -1
}

// QueryAt returns the query whose line holds off, or nil.
func (f *File) QueryAt(off int) *Query {
	line := f.Src.LineOf(off)
	for _, q := range f.Queries {
		if f.Src.LineOf(q.Sp.Start) == line {
			return q
		}
	}
	return nil
}
