package lsp

import (
	"context"

	"github.com/ctxql/ctxql/syntax"
)

// Hover explains the field path, domain, key or operator at off, with the
// query's result count over the sample data.
func (l jqlLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	p := parsedOf(s)
	if p == nil {
		return "", syntax.Span{}, false
	}
	desc, ok := p.Describe(off)
	md, sp := desc.Markdown, desc.Span
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	md, sp, ok = withStep(ctx, s, l.Queries(s), off, jqlTrace, md, sp, ok)
	return withCount(ctx, s, off, md, sp, ok)
}
