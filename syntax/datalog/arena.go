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
	ruleList  []*Rule   // Program.Rules
	vars      []VarInfo // the variable occurrences of CheckIn
	check     checkMem  // the working memory of CheckIn
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

// OmitVarTypes makes the checks of CheckIn in ar skip the variable
// occurrences, the hover types (Info.Vars stays empty), for a caller that
// reads only the findings, relations, head types and strata. The type
// check and its findings are unchanged.
func (ar *Arena) OmitVarTypes() { ar.check.omitVars = true }

// chunks are the node chunks of an arena, maxChunk nodes each; the first
// used of them are in use.
type chunks[T any] struct {
	all  [][]T
	used int
}

// next returns a chunk of maxChunk nodes: one of an earlier parse, not
// cleared (every taker overwrites what it takes), or a new one.
func (c *chunks[T]) next() []T {
	if c.used < len(c.all) {
		ch := c.all[c.used]
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

// checkMem is working memory of the checker that an Arena keeps from one
// check to the next: nothing a check returns points into it.
type checkMem struct {
	// omitVars makes the checks skip the variable occurrences
	// (OmitVarTypes).
	omitVars bool
	// The relations' numbers, names, entries, learnt steps and whether
	// heads define them; where each rule's numbers start, and the numbers.
	relOf          map[string]int
	relNames       []string
	relInfo        []*RelationInfo
	relLearnt      []int
	relHeadDefined []bool
	relAt, relIDs  []int32
	index          []int                    // stratify's node numbers, by relation number
	relations      map[string]*RelationInfo // Info.Relations
	rels           []RelationInfo           // entries of Info.Relations
	strs           []string                 // type lists of those and of Info.HeadTypes
	rules          []*Rule                  // the simple rules checked
	srcIndex       []int                    // their statements
	headTypes      [][]string               // their head types
	// Info.HeadTypes and Info.Strata, and the names of the latter.
	infoHeadTypes, infoStrata [][]string
	strataNames               []string
	kept                      []keptVar
	at                        [][2]int32
	computed                  []int
	// stratify's graph and the state of its walk.
	nodes                  []string
	adj                    [][]depEdge
	tarjan, stack, members []int
	on                     []bool
	strata                 [][]int
}

// relMap returns *m cleared, or a new map for about n keys.
func relMap(m *map[string]*RelationInfo, n int) map[string]*RelationInfo {
	if *m == nil {
		*m = make(map[string]*RelationInfo, n)
	} else {
		clear(*m)
	}
	return *m
}

// intMap returns *m cleared, or a new map for about n keys when there is
// none (mem nil: always a new one).
func intMap(mem *checkMem, m *map[string]int, n int) map[string]int {
	if mem == nil || *m == nil {
		out := make(map[string]int, n)
		if mem != nil {
			*m = out
		}
		return out
	}
	clear(*m)
	return *m
}

// scratchEmpty returns an empty slice with room for n elements, *s's
// memory when it has room (mem nil: new memory). Unlike scratch it clears
// nothing: the caller appends every element it reads.
func scratchEmpty[T any](mem *checkMem, s *[]T, n int) []T {
	if mem == nil || *s == nil || cap(*s) < n {
		return scratch(mem, s, n)[:0]
	}
	return (*s)[:0]
}

// scratchDirty returns a slice of n elements, *s's memory when it has
// room (mem nil: new memory), without clearing it: the caller writes each
// element before it reads it.
func scratchDirty[T any](mem *checkMem, s *[]T, n int) []T {
	if mem == nil || *s == nil || cap(*s) < n {
		return scratch(mem, s, n)
	}
	return (*s)[:n]
}

// scratch returns a zeroed slice of n elements, *s's memory when it has
// room (mem nil: new memory).
func scratch[T any](mem *checkMem, s *[]T, n int) []T {
	if mem == nil || *s == nil || cap(*s) < n { // never nil, as make's
		out := make([]T, n)
		if mem != nil {
			*s = out
		}
		return out
	}
	out := (*s)[:n]
	clear(out)
	return out
}
