package lsp

import (
	"context"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// jqlLanguage serves .jql and .jql.yaml files: parse diagnostics and one
// document symbol per query.
type jqlLanguage struct{}

func (jqlLanguage) ID() string           { return "jql" }
func (jqlLanguage) Extensions() []string { return []string{".jql", ".jql.yaml", ".jql.yml"} }

// Parse parses every query of the file; the form follows the file name.
func (jqlLanguage) Parse(f *syntax.File) any { return jql.ParseFile(f.Name(), f.Text()) }

func jqlFile(s *Snapshot) *jql.File {
	jf, _ := s.Parsed().(*jql.File)
	return jf
}

// Diagnostics returns the parse errors.
func (jqlLanguage) Diagnostics(_ context.Context, s *Snapshot) []syntax.Diagnostic {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	return append([]syntax.Diagnostic(nil), jf.Diagnostics...)
}

// Symbols lists one symbol per query, named after its "from" domain.
func (jqlLanguage) Symbols(_ context.Context, s *Snapshot) []Symbol {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	out := make([]Symbol, 0, len(jf.Queries))
	for _, q := range jf.Queries {
		name, sel := "query", q.Span
		if q.From != nil && q.From.Str != "" {
			name, sel = "from "+q.From.Str, q.From.Span
		}
		out = append(out, Symbol{Name: name, Kind: SymbolStruct, Span: q.Span, Selection: sel})
	}
	return out
}
