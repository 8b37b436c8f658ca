package pact

// slab hands out pointers to values carved from shared chunks, so that a
// file's AST costs a few allocations per chunk instead of one per node.
// A chunk is never grown in place (that would move the values the handed
// out pointers point to): a full chunk is replaced by a new, larger one.
// After reset the full-size chunks are handed out again.
type slab[T any] struct {
	buf []T
	c   *chunks[T] // full-size chunks, once there is one
}

// chunks are the full-size chunks of a slab.
type chunks[T any] struct {
	full  [][]T // in use before the slab's current chunk
	spare [][]T // free for reuse
}

// slabChunk is the largest number of values in one chunk.
const slabChunk = 1024

// alloc stores v in s and returns a pointer to it.
func alloc[T any](s *slab[T], v T) *T {
	if len(s.buf) == cap(s.buf) {
		s.grow()
	}
	s.buf = append(s.buf, v)
	return &s.buf[len(s.buf)-1]
}

func (s *slab[T]) grow() {
	if cap(s.buf) == slabChunk {
		if s.c == nil {
			s.c = &chunks[T]{}
		}
		s.c.full = append(s.c.full, s.buf)
	}
	if s.c != nil {
		if n := len(s.c.spare); n > 0 {
			s.buf = s.c.spare[n-1][:0]
			s.c.spare = s.c.spare[:n-1]
			return
		}
	}
	s.buf = make([]T, 0, min(max(1, 2*cap(s.buf)), slabChunk))
}

// reset makes the full-size chunks, or the one smaller chunk in use, free
// for reuse; values handed out before must no longer be used. The chunks
// are not cleared: alloc writes a whole value before handing it out, and
// clearing a file's tree (about twenty times the size of its source) costs a
// pass over memory that the next parse writes again. Until then the old values
// keep what they point to (the old source's text) reachable.
func (s *slab[T]) reset() {
	if s.c == nil {
		// Only one chunk in use (smaller ones are dropped): keep it.
		s.buf = s.buf[:0]
		return
	}
	if cap(s.buf) == slabChunk {
		s.c.full = append(s.c.full, s.buf)
	}
	for _, c := range s.c.full {
		s.c.spare = append(s.c.spare, c[:0])
	}
	s.c.full, s.buf = s.c.full[:0], nil
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
type ptrSlab[T any] struct {
	buf []*T
	c   *chunks[*T] // full-size chunks, once there is one
}

// ptrChunk is the usual number of pointers in one chunk.
const ptrChunk = 4096

// add appends x to xs; the first element of a nil xs gets room for n
// elements carved from the slab, so short lists cost no allocation of
// their own. Appends beyond that room copy the list, as append does.
func (s *ptrSlab[T]) add(xs []*T, x *T, n int) []*T {
	if xs == nil {
		if n > cap(s.buf)-len(s.buf) {
			s.grow(n)
		}
		k := len(s.buf)
		s.buf = s.buf[:k+n]
		xs = s.buf[k : k : k+n]
	}
	return append(xs, x)
}

func (s *ptrSlab[T]) grow(n int) {
	if cap(s.buf) == ptrChunk {
		if s.c == nil {
			s.c = &chunks[*T]{}
		}
		s.c.full = append(s.c.full, s.buf)
	}
	if s.c != nil && n <= ptrChunk {
		if k := len(s.c.spare); k > 0 {
			s.buf = s.c.spare[k-1][:0]
			s.c.spare = s.c.spare[:k-1]
			return
		}
	}
	s.buf = make([]*T, 0, max(n, min(max(16, 2*cap(s.buf)), ptrChunk)))
}

// reset makes every full-size chunk free for reuse, as slab.reset does,
// without clearing them: add writes a list's elements before it is read.
func (s *ptrSlab[T]) reset() {
	if s.c == nil {
		s.buf = s.buf[:0]
		return
	}
	if cap(s.buf) == ptrChunk {
		s.c.full = append(s.c.full, s.buf)
	}
	for _, c := range s.c.full {
		s.c.spare = append(s.c.spare, c[:0])
	}
	s.c.full, s.buf = s.c.full[:0], nil
}

// reset makes the arena's memory free for reuse by the next parse.
func (a *arena) reset() {
	a.query.reset()
	a.time.reset()
	a.atom.reset()
	a.chain.reset()
	a.step.reset()
	a.compound.reset()
	a.typeSel.reset()
	a.hash.reset()
	a.tag.reset()
	a.root.reset()
	a.attr.reset()
	a.value.reset()
	a.block.reset()
	a.control.reset()
	a.pseudo.reset()
	a.parg.reset()
	a.depth.reset()
	a.hop.reset()
	a.position.reset()
	a.legacy.reset()
	a.comment.reset()
	a.stepPtrs.reset()
	a.attrPtrs.reset()
	a.typePtrs.reset()
	a.hashPtrs.reset()
	a.pseudoPtrs.reset()
	a.controlPtrs.reset()
	a.hopPtrs.reset()
	a.fallback.reset()
}

// Arena is memory for parsing files one after the other: a caller that is
// done with a file's tree (and every node, list and string of it) before
// it parses the next can pass the same Arena to ParseFileTreeIn and save
// allocating, and collecting, a tree per file. The zero value is ready to
// use; an Arena is not safe for concurrent use.
type Arena struct {
	a    arena
	toks []tok
}

// Reset frees everything parsed in ar for reuse: the trees parsed before
// must no longer be used. The memory is not cleared, so the strings of the
// old trees (parts of their sources) stay reachable until the next parses
// overwrite them or ar is dropped.
func (ar *Arena) Reset() {
	ar.a.reset()
}
