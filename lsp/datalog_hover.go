package lsp

import (
	"context"
	"fmt"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Hover shows a relation's signature or a variable's inferred type, with
// the number of tuples the rule's relation holds over the sample data.
func (l datalogLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	p := parsedOf(s)
	if p == nil {
		return "", syntax.Span{}, false
	}
	desc, ok := p.Describe(off)
	md, sp := desc.Markdown, desc.Span
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	// On a relation name: that relation's own count, not the count of the
	// rule the name appears in.
	if sym, symSpan, found := p.SymbolAt(off); found && sym.Kind == lang.SymbolRelation {
		run, has := l.evaluate(ctx, s)
		if !has {
			return md, sp, ok
		}
		line := ""
		switch n, known := run.relationCount(sym.Name); {
		case run.err != nil:
			line = fmt.Sprintf("Sample data: %v", run.err)
		case run.invalid:
			line = "Sample data: the program has errors"
		case known:
			line = fmt.Sprintf("Sample data: `%s` holds **%d** tuple(s)", sym.Name, n)
		default:
			line = fmt.Sprintf("Sample data: `%s` holds no tuples", sym.Name)
		}
		if !ok {
			return line, symSpan, true
		}
		return md + "\n\n---\n\n" + line, sp, true
	}
	return withCount(ctx, s, off, md, sp, ok)
}
