package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// jqlLanguage serves .jql and .jql.yaml files: parse diagnostics and one
// document symbol per query.
type jqlLanguage struct {
	tableFeatures
	linter *lint.Linter
}

func (jqlLanguage) ID() lang.ID { return lang.JQL }

// Parse parses every query of the file through the language table; the
// form follows the file name.
func (l jqlLanguage) Parse(f *syntax.File) any {
	return lang.ByID(l.ID()).Parse(f.Name(), f.Text(), lang.DialectUnset)
}

// Diagnostics returns the parse errors, the front end's checks and the
// findings of every rule (parse errors only without a linter).
func (l jqlLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	return analyzed(ctx, l.linter, s, p.AST, p.Diagnostics)
}

// CodeActions offers the rules' fixes, "fix all" and, in the forms that
// have comments (object literal, YAML), suppression directives.
func (l jqlLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	p := parsedOf(s)
	if p == nil || l.linter == nil {
		return nil
	}
	return lintActions(ctx, linterFor(l.linter, s), s, l.Diagnostics(ctx, s), span, p.Commentable())
}

// Format formats the document with the canonical JQL printer.
func (jqlLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	return formatWith(s)
}
