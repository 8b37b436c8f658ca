package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// tableLanguage serves a language of the table through what the table
// answers alike for every language, with no code of its own here: the
// findings of its rules (DOC001 in Markdown, as "ctxql check" reports
// them) with their suppression actions, the outline, folding, selection
// ranges and semantic tokens. The server serves every table language it
// has no other implementation for this way (Markdown). A nil linter
// reports the parser's diagnostics only.
type tableLanguage struct {
	tableFeatures
	tl     *lang.Language
	linter *lint.Linter
}

func (l tableLanguage) ID() lang.ID { return l.tl.ID }

// Parse parses the document through the language table.
func (l tableLanguage) Parse(f *syntax.File) any {
	return l.tl.Parse(f.Name(), f.Text(), lang.DialectUnset)
}

// Diagnostics returns the parse errors and the findings of the language's
// rules, after suppression directives and the configuration.
func (l tableLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	return s.findingsOf(ctx, func() []syntax.Diagnostic {
		lt := linterFor(l.linter, s)
		if lt == nil {
			return append([]syntax.Diagnostic(nil), p.Diagnostics...)
		}
		return lt.AnalyzeParsed(ctx, p)
	})
}

// CodeActions offers the rules' fixes, "fix all" and, where the language
// has comments, suppression directives.
func (l tableLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	p := parsedOf(s)
	if p == nil || l.linter == nil {
		return nil
	}
	return lintActions(ctx, linterFor(l.linter, s), s, l.Diagnostics(ctx, s), span, p.Commentable())
}
