package lsp

import (
	"context"
	"errors"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// datalogLanguage serves .dl files: parse diagnostics and one document
// symbol per rule, fact and relation declaration.
type datalogLanguage struct {
	linter *lint.Linter
}

func (datalogLanguage) ID() lang.ID { return lang.Datalog }

// Parse parses the program through the language table.
func (datalogLanguage) Parse(f *syntax.File) any {
	return lang.ByID(lang.Datalog).Parse(f.Name(), f.Text(), lang.DialectUnset).AST
}

func datalogProgram(s *Snapshot) *datalog.Program {
	p, _ := s.Parsed().(*datalog.Program)
	return p
}

// Diagnostics returns the parse errors, the front end's checks and the
// findings of every rule (parse errors only without a linter).
func (l datalogLanguage) Diagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	return analyzed(ctx, l.linter, s, p, p.Diagnostics)
}

// Symbols lists declarations, rules and facts in source order.
func (datalogLanguage) Symbols(_ context.Context, s *Snapshot) []Symbol {
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	var out []Symbol
	for _, d := range p.Decls {
		out = append(out, Symbol{Name: d.Name.Name, Detail: "relation", Kind: SymbolClass, Span: d.Sp, Selection: d.Name.Sp})
	}
	for _, r := range p.Rules {
		if r.Head == nil {
			continue
		}
		kind, detail := SymbolFunction, "rule"
		if r.IsFact() {
			kind, detail = SymbolConstant, "fact"
		}
		out = append(out, Symbol{Name: r.Head.Name.Name, Detail: detail, Kind: kind, Span: r.Sp, Selection: r.Head.Name.Sp})
	}
	sortSymbols(out)
	return out
}

// Definitions returns a relation's declaration (or, undeclared, the heads
// deriving it) or where a variable first occurs in its rule.
func (datalogLanguage) Definitions(_ context.Context, s *Snapshot, off int) []syntax.Span {
	var out []syntax.Span
	for _, o := range datalogOccurrences(s, off) {
		if o.Def {
			out = append(out, o.Span)
		}
	}
	return out
}

// References returns every occurrence of the relation or variable at off.
func (datalogLanguage) References(_ context.Context, s *Snapshot, off int, withDecl bool) []syntax.Span {
	var out []syntax.Span
	for _, o := range datalogOccurrences(s, off) {
		if withDecl || !o.Def {
			out = append(out, o.Span)
		}
	}
	return out
}

// Rename renames the relation or variable at off.
func (datalogLanguage) Rename(_ context.Context, s *Snapshot, off int, name string) ([]syntax.TextEdit, error) {
	p := datalogProgram(s)
	if p == nil {
		return nil, errors.New("the document does not parse")
	}
	return dlRename(p, off, name)
}

func datalogOccurrences(s *Snapshot, off int) []dlOccurrence {
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	sym, _, ok := dlSymbolAt(p, off)
	if !ok {
		return nil
	}
	return dlOccurrences(p, sym)
}

// datalogInfo checks the program once per snapshot.
func datalogInfo(s *Snapshot, p *datalog.Program) *datalog.Info {
	return s.derived("datalog-check", func() any { return datalog.Check(p, nil) }).(*datalog.Info)
}

// SemanticTokens classifies the program's tokens with the syntax tree:
// relation names (declarations marked), variables, parameter types,
// keywords, literals, operators and comments.
func (datalogLanguage) SemanticTokens(_ context.Context, s *Snapshot) []SemanticToken {
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	kind := map[int]SemanticToken{}
	for _, d := range p.Decls {
		kind[d.Name.Sp.Start] = SemanticToken{Type: "function", Modifiers: []string{"declaration"}}
		for _, t := range d.Types {
			kind[t.Sp.Start] = SemanticToken{Type: "type"}
		}
	}
	for _, r := range p.Rules {
		atoms := []*datalog.Atom{r.Head}
		for _, b := range r.Body {
			atoms = append(atoms, b.Atom)
			if b.Cond != nil {
				for _, t := range []*datalog.Term{b.Cond.Left, b.Cond.Right} {
					if t != nil && t.Kind == datalog.Var {
						kind[t.Sp.Start] = SemanticToken{Type: "variable"}
					}
				}
			}
		}
		for _, a := range atoms {
			if a == nil {
				continue
			}
			kind[a.Name.Sp.Start] = SemanticToken{Type: "function"}
			for _, t := range a.Args {
				if t.Kind == datalog.Var || t.Kind == datalog.Wildcard {
					kind[t.Sp.Start] = SemanticToken{Type: "variable"}
				}
			}
		}
	}
	var out []SemanticToken
	for _, t := range p.Tokens {
		tok := SemanticToken{Span: t.Span}
		switch t.Kind {
		case datalog.TokIdent:
			if k, ok := kind[t.Span.Start]; ok {
				tok.Type, tok.Modifiers = k.Type, k.Modifiers
			} else if t.Text == "relation" || t.Text == "if" {
				tok.Type = "keyword"
			} else {
				continue
			}
		case datalog.TokNumber:
			tok.Type = "number"
		case datalog.TokString:
			tok.Type = "string"
		case datalog.TokComment:
			tok.Type = "comment"
		case datalog.TokArrow, datalog.TokBang, datalog.TokOp:
			tok.Type = "operator"
		default:
			continue
		}
		out = append(out, tok)
	}
	return out
}

// CodeActions offers the rules' fixes (singleton variables), "fix all",
// suppression directives and, over sample data, the explanation of a
// rule's first result.
func (l datalogLanguage) CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	p := datalogProgram(s)
	if p == nil {
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
