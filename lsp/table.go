package lsp

import (
	"context"
	"slices"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// parsedOf is the document's parse by the language table, nil when the
// document has none (not parsed, or a host file).
func parsedOf(s *Snapshot) *lang.Parsed {
	p, _ := s.Parsed().(*lang.Parsed)
	return p
}

// tableFeatures gives a served language the features the language table
// answers for every query language alike: the outline, semantic tokens
// and completion. A language embeds it.
type tableFeatures struct{}

// tableNavigation gives a language the table's navigation: definitions,
// references and rename of the symbol at a position (Datalog relations
// and variables). A language that has symbols embeds it.
type tableNavigation struct{}

// outlineKinds maps the table's outline kinds to LSP symbol kinds.
var outlineKinds = map[lang.OutlineKind]SymbolKind{
	lang.OutlineQuery:    SymbolString,
	lang.OutlineRelation: SymbolClass,
	lang.OutlineRule:     SymbolFunction,
	lang.OutlineFact:     SymbolConstant,
	lang.OutlineObject:   SymbolStruct,
	lang.OutlineHeading:  SymbolString,
}

// Symbols lists the document's outline (lang.Parsed.Outline).
func (tableFeatures) Symbols(_ context.Context, s *Snapshot) []Symbol {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	var out []Symbol
	for _, o := range p.Outline() {
		out = append(out, Symbol{Name: o.Name, Detail: o.Detail, Kind: outlineKinds[o.Kind], Span: o.Span, Selection: o.Selection})
	}
	return out
}

// SemanticTokens classifies the document's tokens (lang.Parsed.Tokens).
func (tableFeatures) SemanticTokens(_ context.Context, s *Snapshot) []SemanticToken {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	toks := p.Tokens()
	out := make([]SemanticToken, len(toks))
	for i, t := range toks {
		out[i] = SemanticToken{Span: t.Span, Type: t.Type, Modifiers: t.Modifiers}
	}
	return out
}

// completionKinds maps the table's completion kinds to LSP
// CompletionItemKinds.
var completionKinds = map[lang.CompletionKind]int{
	lang.CompleteRoot:      9,  // Module
	lang.CompleteType:      7,  // Class
	lang.CompletePseudo:    2,  // Method
	lang.CompleteAttribute: 10, // Property
	lang.CompleteControl:   14, // Keyword
	lang.CompleteSnapshot:  21, // Constant
	lang.CompleteDomain:    9,  // Module
	lang.CompleteField:     5,  // Field
	lang.CompleteKey:       14, // Keyword
	lang.CompleteOperator:  24, // Operator
	lang.CompleteRelation:  3,  // Function
	lang.CompleteVariable:  6,  // Variable
	lang.CompleteKeyword:   14, // Keyword
	lang.CompleteFunction:  2,  // Method
}

// Complete proposes what can be written at off (lang.Parsed.Complete),
// with the words of the document's sample data.
func (tableFeatures) Complete(ctx context.Context, s *Snapshot, off int) []CompletionItem {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	var out []CompletionItem
	for _, c := range p.Complete(off, completionData(ctx, s, p.Lang)) {
		edit := c.Edit
		out = append(out, CompletionItem{Label: c.Label, Kind: completionKinds[c.Kind], Detail: c.Detail, Edit: &edit, Snippet: c.Snippet})
	}
	return out
}

// completionData is what the document's sample data adds to completion
// (lang.DataCompletion), read once per data file version.
func completionData(ctx context.Context, s *Snapshot, l *lang.Language) lang.CompletionData {
	if s.Workspace == nil {
		return lang.CompletionData{}
	}
	path := s.Workspace.DataPath(s)
	if path == "" {
		return lang.CompletionData{}
	}
	v, err := s.Workspace.Load(ctx, "complete:"+string(l.ID), path, func(ctx context.Context, r *files.Reader, p string) (any, error) {
		d, err := l.Load(ctx, r, p)
		if err != nil {
			return nil, err
		}
		return lang.DataCompletion(context.Background(), d), nil
	})
	if err != nil {
		return lang.CompletionData{}
	}
	cd, _ := v.(lang.CompletionData)
	return cd
}

// Definitions returns a Datalog relation's declaration (or, undeclared,
// the heads deriving it) or where a variable first occurs in its rule.
func (tableNavigation) Definitions(_ context.Context, s *Snapshot, off int) []syntax.Span {
	var out []syntax.Span
	for _, o := range occurrencesAt(s, off) {
		if o.Def {
			out = append(out, o.Span)
		}
	}
	return out
}

// References returns every occurrence of the Datalog relation or
// variable at off.
func (tableNavigation) References(_ context.Context, s *Snapshot, off int, withDecl bool) []syntax.Span {
	var out []syntax.Span
	for _, o := range occurrencesAt(s, off) {
		if withDecl || !o.Def {
			out = append(out, o.Span)
		}
	}
	return out
}

// Rename renames the Datalog relation or variable at off
// (lang.Parsed.Rename).
func (tableNavigation) Rename(_ context.Context, s *Snapshot, off int, name string) ([]syntax.TextEdit, error) {
	p := parsedOf(s)
	if p == nil {
		return nil, lang.ErrNoSymbol
	}
	return p.Rename(off, name)
}

// occurrencesAt lists where the symbol at off is written.
func occurrencesAt(s *Snapshot, off int) []lang.Occurrence {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	sym, _, ok := p.SymbolAt(off)
	if !ok {
		return nil
	}
	return slices.Clone(p.Occurrences(sym))
}

// querySpans lists the spans of the queries the table finds in the
// document (PACT and JQL: one per query).
func querySpans(s *Snapshot) []syntax.Span {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	qs := p.Queries()
	out := make([]syntax.Span, 0, len(qs))
	for _, q := range qs {
		out = append(out, q.Span)
	}
	return out
}

// tableOf is the language table's row of the document's language: the
// served language's, else the table's language of its name; nil for a
// document of no table language.
func tableOf(s *Snapshot) *lang.Language {
	if s.Lang != nil {
		return lang.ByID(s.Lang.ID())
	}
	return lang.ForName(s.File.Name())
}
