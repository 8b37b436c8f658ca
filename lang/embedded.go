package lang

import (
	"fmt"
	"sort"

	"github.com/ctxql/ctxql/syntax/host"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Embedded are the PACT queries embedded in a host source file: the
// string literals passed to the configured calls, each parsed as a PACT
// file of its own.
type Embedded struct {
	lits    []host.Literal
	queries []*pact.File
}

// FindEmbedded finds the literals of the calls in the host file name and
// parses each as PACT, in dialect d when it has no pragma.
func FindEmbedded(name, src string, calls []string, d Dialect) *Embedded {
	e := &Embedded{lits: host.Find(name, []byte(src), calls)}
	for _, l := range e.lits {
		e.queries = append(e.queries, pact.ParseFile(name, l.Value, d))
	}
	return e
}

// Len returns the number of embedded queries.
func (e *Embedded) Len() int { return len(e.lits) }

// Describe explains the construct of the embedded query at the host
// file's byte offset off, as Parsed.Describe does for a PACT file, with
// the call it is passed to; the span is in the host file.
func (e *Embedded) Describe(off int) (Description, bool) {
	for i, lit := range e.lits {
		if lit.Span.Start > off || off > lit.Span.End {
			continue
		}
		n := len(lit.Value)
		v := max(sort.Search(n+1, func(j int) bool { return lit.HostOffset(j) > off })-1, 0)
		md, sp, ok := describePACT(e.queries[i], v)
		if !ok {
			return Description{Markdown: md, Span: sp}, false
		}
		return Description{Markdown: fmt.Sprintf("Embedded PACT query (`%s`)\n\n%s", lit.Call, md), Span: lit.HostSpan(sp)}, true
	}
	return Description{}, false
}
