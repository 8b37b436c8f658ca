package pact

// slab hands out pointers to values carved from shared chunks, so that a
// file's AST costs a few allocations per chunk instead of one per node.
// A chunk is never grown in place (that would move the values the handed
// out pointers point to): a full chunk is replaced by a new, larger one.
type slab[T any] struct{ buf []T }

// alloc stores v in s and returns a pointer to it.
func alloc[T any](s *slab[T], v T) *T {
	if len(s.buf) == cap(s.buf) {
		s.buf = make([]T, 0, min(max(1, 2*cap(s.buf)), 1024))
	}
	s.buf = append(s.buf, v)
	return &s.buf[len(s.buf)-1]
}

// arena holds the slabs of one parse: one query, or every query of a file.
type arena struct {
	query       slab[Query]
	time        slab[Time]
	atom        slab[TimeAtom]
	chain       slab[Chain]
	step        slab[Step]
	compound    slab[Compound]
	typeSel     slab[TypeSel]
	hash        slab[Hash]
	tag         slab[Tag]
	root        slab[Root]
	attr        slab[Attr]
	value       slab[Value]
	block       slab[Block]
	control     slab[Control]
	pseudo      slab[Pseudo]
	parg        slab[PseudoArg]
	depth       slab[DepthRef]
	hop         slab[Hop]
	position    slab[Position]
	legacy      slab[Legacy]
	comment     slab[Comment]
	stepPtrs    ptrSlab[Step]
	attrPtrs    ptrSlab[Attr]
	typePtrs    ptrSlab[TypeSel]
	hashPtrs    ptrSlab[Hash]
	pseudoPtrs  ptrSlab[Pseudo]
	controlPtrs ptrSlab[Control]
	hopPtrs     ptrSlab[Hop]
	fallback    slab[Fallback]
}

// ptrSlab carves small pointer slices (a chain's steps, a compound's
// filters) out of shared chunks. A slice handed out has its capacity
// clipped to its length, so a later append copies it instead of writing
// into the chunk.
type ptrSlab[T any] struct{ buf []*T }

// add appends x to xs; the first element of a nil xs gets room for n
// elements carved from the slab, so short lists cost no allocation of
// their own. Appends beyond that room copy the list, as append does.
func (s *ptrSlab[T]) add(xs []*T, x *T, n int) []*T {
	if xs == nil {
		if n > cap(s.buf)-len(s.buf) {
			s.buf = make([]*T, 0, max(n, min(max(16, 2*cap(s.buf)), 4096)))
		}
		k := len(s.buf)
		s.buf = s.buf[:k+n]
		xs = s.buf[k : k : k+n]
	}
	return append(xs, x)
}
