package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
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
func (jqlLanguage) Parse(f *syntax.File) any {
	return lang.ByID(lang.JQL).Parse(f.Name(), f.Text(), lang.DialectUnset)
}

func jqlFile(s *Snapshot) *jql.File {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	jf, _ := p.AST.(*jql.File)
	return jf
}

// Diagnostics returns the parse errors, the front end's checks and the
// findings of every rule (parse errors only without a linter).
func (l jqlLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	return analyzed(ctx, l.linter, s, jf, jf.Diagnostics)
}

// CodeActions offers the rules' fixes, "fix all" and, in the forms that
// have comments (object literal, YAML), suppression directives.
func (l jqlLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	jf := jqlFile(s)
	if jf == nil || l.linter == nil {
		return nil
	}
	comments := len(jf.Queries) > 0
	for _, q := range jf.Queries {
		if q == nil || q.Form == jql.FormJSON {
			comments = false
		}
	}
	lt := linterFor(l.linter, s)
	return lintActions(ctx, lt, s, l.Diagnostics(ctx, s), span, comments)
}

// Format formats the document with the canonical JQL printer.
func (jqlLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	return formatWith(s)
}
