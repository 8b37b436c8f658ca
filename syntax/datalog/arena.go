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
	vars         []VarInfo // the variable occurrences of CheckIn
}

// Reset frees everything parsed in ar for reuse: the programs parsed
// before must no longer be used. The memory is not cleared, so the
// strings of the old programs (parts of their sources) stay reachable
// until the next parses overwrite them or ar is dropped.
func (ar *Arena) Reset() {
	ar.terms.used, ar.atoms.used, ar.binaries.used = 0, 0, 0
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
