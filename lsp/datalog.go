package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// datalogLanguage serves .dl files: parse diagnostics and one document
// symbol per rule, fact and relation declaration.
type datalogLanguage struct {
	tableFeatures
	tableNavigation
	linter *lint.Linter
}

func (datalogLanguage) ID() lang.ID { return lang.Datalog }

// Parse parses the program through the language table.
func (l datalogLanguage) Parse(f *syntax.File) any {
	return lang.ByID(l.ID()).Parse(f.Name(), f.Text(), lang.DialectUnset)
}

// ParseSnapshot parses the program and, when the document has sample data
// that loads, checks it against the data's schema as "ctxql check" does
// (lang.Parsed.WithData): the relations the data provides are known, and
// the rules that read the data's values run.
func (l datalogLanguage) ParseSnapshot(s *Snapshot) any {
	p := tableOf(s).Parse(s.File.Name(), s.File.Text(), lang.DialectUnset)
	if s.Workspace == nil {
		return p
	}
	path := s.Workspace.DataPath(s)
	if path == "" {
		return p
	}
	data, err := s.Workspace.loadData(context.Background(), tableOf(s), path)
	if err != nil {
		return p // DATA002 reports the data; the text is checked without it
	}
	return p.WithData(data)
}

// Diagnostics returns the parse errors, the front end's checks and the
// findings of every rule (parse errors only without a linter), against
// the sample data's schema when the document has data.
func (l datalogLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	if p.RuleInput != nil && l.linter != nil {
		return s.findingsOf(ctx, func() []syntax.Diagnostic { return linterFor(l.linter, s).AnalyzeParsed(ctx, p) })
	}
	return analyzed(ctx, l.linter, s, p.AST, p.Diagnostics)
}

// CodeActions offers the rules' fixes (singleton variables), "fix all",
// suppression directives and, over sample data, the explanation of a
// rule's first result.
func (l datalogLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	if parsedOf(s) == nil {
		return nil
	}
	var out []CodeAction
	if l.linter != nil {
		out = lintActions(ctx, linterFor(l.linter, s), s, l.Diagnostics(ctx, s), span, true)
	}
	return append(out, explainActions(ctx, s, span)...)
}

// Format formats the program with the canonical Datalog printer.
func (datalogLanguage) Format(_ context.Context, s *Snapshot) ([]syntax.TextEdit, error) {
	return formatWith(s)
}
