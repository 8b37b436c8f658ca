package datalog

// Arena is memory for parsing programs one after the other: a caller that
// is done with a program (its nodes, lists and tokens) before it parses
// the next can pass the same Arena to ParseProgramIn and save allocating,
// and collecting, the tokens and the most frequent nodes of each program.
// The zero value is ready to use; an Arena is not safe for concurrent use.
type Arena struct {
	toks, parsed []Token // the lexer's tokens; the parser's (without comments)
	terms        chunks[Term]
	atoms        chunks[Atom]
	binaries     chunks[Binary]
	rules        chunks[Rule]
	conds        chunks[Cond]
	// argLists, atomLists and itemLists hold the short lists of the
	// nodes (an atom's arguments, a rule's heads, a body's items).
	argLists  chunks[*Term]
	atomLists chunks[*Atom]
	itemLists chunks[BodyItem]
	vars      []VarInfo // the variable occurrences of CheckIn
}

// Reset frees everything parsed in ar for reuse: the programs parsed
// before must no longer be used. The memory is not cleared, so the
// strings of the old programs (parts of their sources) stay reachable
// until the next parses overwrite them or ar is dropped.
func (ar *Arena) Reset() {
	ar.terms.used, ar.atoms.used, ar.binaries.used = 0, 0, 0
	ar.rules.used, ar.conds.used = 0, 0
	ar.argLists.used, ar.atomLists.used, ar.itemLists.used = 0, 0, 0
}

// chunks are the node chunks of an arena, maxChunk nodes each; the first
// used of them are in use.
type chunks[T any] struct {
	all  [][]T
	used int
}

// next returns a chunk of maxChunk zero nodes: one of an earlier parse,
// cleared, or a new one.
func (c *chunks[T]) next() []T {
	if c.used < len(c.all) {
		ch := c.all[c.used]
		clear(ch)
		c.used++
		return ch
	}
	ch := make([]T, maxChunk)
	c.all = append(c.all, ch)
	c.used++
	return ch
}

// maxListInChunk is the longest list carved from a chunk; longer ones
// get their own allocation.
const maxListInChunk = maxChunk / 8

// list returns a copy of src, carved from the free part *free of the
// arena's chunks c when there is one (c not nil) and src is short, else
// allocated on its own. The copy's capacity is its length, so that an
// append to it never writes into its neighbours.
func list[T any](c *chunks[T], free *[]T, src []T) []T {
	n := len(src)
	if c == nil || n > maxListInChunk {
		out := make([]T, n)
		copy(out, src)
		return out
	}
	if len(*free) < n {
		*free = c.next()
	}
	out := (*free)[:n:n]
	*free = (*free)[n:]
	copy(out, src)
	return out
}
