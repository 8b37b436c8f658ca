package lsp

import (
	"context"

	"github.com/ctxql/ctxql/syntax"
)

// Hover explains the token under the cursor (lang.Parsed.Describe), the
// rule behind a finding there, and the query's result count when the file
// has sample data.
func (l pactLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	p := parsedOf(s)
	if p == nil {
		return "", syntax.Span{}, false
	}
	desc, ok := p.Describe(off)
	md, sp := desc.Markdown, desc.Span
	md, sp, ok = withRuleDocs(linterFor(l.linter, s), l.Diagnostics(ctx, s), off, md, sp, ok)
	if _, inQuery := p.QueryAt(off); inQuery {
		md, sp, ok = withCount(ctx, s, off, md, sp, ok)
	}
	if !ok {
		return "", syntax.Span{}, false
	}
	text, sp, _ := withStep(ctx, s, l.Queries(s), off, pactTrace, md, sp, true)
	return text, sp, true
}
