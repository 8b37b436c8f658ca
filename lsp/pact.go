package lsp

import (
	"context"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// pactLanguage serves .pact files: parse diagnostics, one document symbol
// per query and semantic tokens from the lexer.
type pactLanguage struct{}

func (pactLanguage) ID() string           { return "pact" }
func (pactLanguage) Extensions() []string { return []string{".pact"} }

// Parse parses the whole file; the dialect comes from the pragma (V2 when
// absent).
func (pactLanguage) Parse(f *syntax.File) any {
	return pact.ParseFile(f.Name(), f.Text(), pact.DialectUnset)
}

func pactFile(s *Snapshot) *pact.File {
	pf, _ := s.Parsed().(*pact.File)
	return pf
}

// Diagnostics returns the parse errors.
func (pactLanguage) Diagnostics(_ context.Context, s *Snapshot) []syntax.Diagnostic {
	pf := pactFile(s)
	if pf == nil {
		return nil
	}
	return append([]syntax.Diagnostic(nil), pf.Diagnostics...)
}

// Symbols lists one symbol per query, named by its text.
func (pactLanguage) Symbols(_ context.Context, s *Snapshot) []Symbol {
	pf := pactFile(s)
	if pf == nil {
		return nil
	}
	out := make([]Symbol, 0, len(pf.Queries))
	for _, q := range pf.Queries {
		name := strings.TrimSpace(s.File.Slice(q.Sp))
		detail := q.Dialect.String()
		if q.Bad {
			detail += " (errors)"
		}
		out = append(out, Symbol{Name: name, Detail: detail, Kind: SymbolString, Span: q.Sp, Selection: q.Sp})
	}
	return out
}

// pactTokenType maps the PACT token kinds to the legend.
func pactTokenType(k pact.TokenKind) string {
	switch k {
	case pact.TokenTime, pact.TokenControl:
		return "macro"
	case pact.TokenRoot:
		return "namespace"
	case pact.TokenType:
		return "type"
	case pact.TokenHash:
		return "variable"
	case pact.TokenTag:
		return "decorator"
	case pact.TokenPseudo:
		return "function"
	case pact.TokenAttrKey:
		return "property"
	case pact.TokenOperator, pact.TokenCombinator:
		return "operator"
	case pact.TokenString:
		return "string"
	case pact.TokenNumber, pact.TokenDepth:
		return "number"
	case pact.TokenComment, pact.TokenPragma:
		return "comment"
	case pact.TokenKeyword:
		return "keyword"
	}
	return "" // identifiers, punctuation and invalid bytes are not highlighted
}

// SemanticTokens classifies the lexer's tokens.
func (pactLanguage) SemanticTokens(_ context.Context, s *Snapshot) []SemanticToken {
	pf := pactFile(s)
	if pf == nil {
		return nil
	}
	out := make([]SemanticToken, 0, len(pf.Tokens))
	for _, t := range pf.Tokens {
		typ := pactTokenType(t.Kind)
		if typ == "" {
			continue
		}
		tok := SemanticToken{Span: t.Sp, Type: typ}
		if t.Kind == pact.TokenPragma {
			tok.Modifiers = []string{"documentation"}
		}
		out = append(out, tok)
	}
	return out
}
