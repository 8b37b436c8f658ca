package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// Language is what the server needs from a language of the language
// table (package lang), which alone decides which language a document is.
// The server holds one implementation per table language it serves and
// dispatches every request to the document's. Parse is the only required
// feature: every other feature is a separate small interface (Diagnoser,
// Symbolizer, Highlighter, Hoverer, Completer, Formatter, CodeActioner,
// CodeLenser, Runner, InlayHinter, Navigator, Tracer, TupleExplainer,
// Folder, SelectionRanger, SignatureHelper) that
// an implementation has when the language supports it, and the server
// advertises a capability only when at least one of its languages has
// the matching interface.
//
// Implementations must be safe for concurrent use: a snapshot's parse result
// is shared by every request on that snapshot and must not be mutated.
type Language interface {
	// ID is the language's identifier in the table, also its LSP language
	// identifier.
	ID() lang.ID
	// Parse parses a document. The result is stored in the snapshot and handed
	// back to the other methods through Snapshot.Parsed; it may be nil.
	Parse(f *syntax.File) any
}

// Diagnoser reports the diagnostics of a parsed document: parse errors and
// any checks. ctx is cancelled when a newer version of the document arrives.
type Diagnoser interface {
	Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic
}

// SymbolKind is an LSP SymbolKind number (1 File ... 26 TypeParameter).
type SymbolKind int

// The symbol kinds the query languages use.
const (
	SymbolModule   SymbolKind = 2
	SymbolClass    SymbolKind = 5
	SymbolFunction SymbolKind = 12
	SymbolVariable SymbolKind = 13
	SymbolConstant SymbolKind = 14
	SymbolString   SymbolKind = 15
	SymbolKey      SymbolKind = 20
	SymbolStruct   SymbolKind = 23
	SymbolEvent    SymbolKind = 24
)

// Symbol is one entry of the document outline, with byte-offset spans.
type Symbol struct {
	Name      string
	Detail    string
	Kind      SymbolKind
	Span      syntax.Span // the whole construct
	Selection syntax.Span // the name or most interesting part, inside Span
	Children  []Symbol
}

// Symbolizer lists the outline of a document (textDocument/documentSymbol).
type Symbolizer interface {
	Symbols(ctx context.Context, s *Snapshot) []Symbol
}

// SemanticToken is one highlighted span. Type must be one of the names the
// server advertises in its legend (TokenTypes); Modifiers names from
// TokenModifiers. Spans may cover several lines; the server splits them.
type SemanticToken struct {
	Span      syntax.Span
	Type      string
	Modifiers []string
}

// Highlighter lists the semantic tokens of a document, in source order
// (textDocument/semanticTokens/full).
type Highlighter interface {
	SemanticTokens(ctx context.Context, s *Snapshot) []SemanticToken
}

// languageFor picks the served language of a document: the query test
// file language for a query test file's name, else the language table's
// for its name (lang.ForName, by the longest suffix, host files
// included), else the table's language of the client's language id; nil
// when the server serves none of them.
func languageFor(langs []Language, uri, languageID string) Language {
	name := FilePath(uri)
	if name == "" {
		name = uri
	}
	if l := testFileLanguage(langs, name); l != nil {
		return l
	}
	tl := lang.ForName(name)
	if tl == nil {
		tl = lang.ByID(lang.ID(languageID))
	}
	if tl == nil {
		return nil
	}
	for _, l := range langs {
		if l.ID() == tl.ID {
			return l
		}
	}
	return nil
}

// DefaultLanguages returns the languages the ctxql server serves: PACT,
// JQL, Datalog, the queries embedded in host source files, query test
// files, and every other language of the table through the table alone
// (tableLanguage: Markdown). Each call returns fresh values.
func DefaultLanguages() []Language {
	l, err := lint.New(lang.DialectUnset)
	if err != nil {
		l = nil // an invalid registry is caught by the lint tests; serve parse errors only
	}
	out := []Language{pactLanguage{linter: l}, jqlLanguage{linter: l}, datalogLanguage{linter: l}, hostLanguage{linter: l}, testLanguage{}}
	// Every other language of the table is served through the table alone.
	for _, tl := range lang.All() {
		served := false
		for _, sl := range out {
			served = served || sl.ID() == tl.ID
		}
		if !served {
			out = append(out, tableLanguage{tl: tl, linter: l})
		}
	}
	return out
}

// analyzed returns a document's findings, computed once per snapshot: the
// linter's (configured for the document) on the parsed ast, or the
// parser's own diagnostics when there is no linter.
func analyzed(ctx context.Context, l *lint.Linter, s *Snapshot, ast any, parsed []syntax.Diagnostic) []syntax.Diagnostic {
	return s.findingsOf(ctx, func() []syntax.Diagnostic {
		if l == nil {
			return append([]syntax.Diagnostic(nil), parsed...)
		}
		return linterFor(l, s).Analyze(ctx, s.File, ast)
	})
}
