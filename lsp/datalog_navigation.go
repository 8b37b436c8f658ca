package lsp

import (
	"fmt"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// The Datalog symbols, and where they are written, come from the language
// table (lang.Parsed.SymbolAt and Occurrences).
type (
	dlSymbol     = lang.Symbol
	dlOccurrence = lang.Occurrence
)

// The symbol kinds.
const (
	dlRelation = lang.SymbolRelation
	dlVariable = lang.SymbolVariable
)

// dlSymbolAt returns the symbol written at off (a relation name or a
// variable), and its span there.
func dlSymbolAt(p *datalog.Program, off int) (dlSymbol, syntax.Span, bool) {
	return (&lang.Parsed{AST: p}).SymbolAt(off)
}

// dlOccurrences lists every place sym is written, in source order.
func dlOccurrences(p *datalog.Program, sym dlSymbol) []dlOccurrence {
	return (&lang.Parsed{AST: p}).Occurrences(sym)
}

// dlRuleTerms returns the terms of a rule in source order.
func dlRuleTerms(r *datalog.Rule) []*datalog.Term {
	var out []*datalog.Term
	if r.Head != nil {
		out = append(out, r.Head.Args...)
	}
	for _, b := range r.Body {
		switch {
		case b.Atom != nil:
			out = append(out, b.Atom.Args...)
		case b.Cond != nil:
			for _, t := range []*datalog.Term{b.Cond.Left, b.Cond.Right} {
				if t != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// Rename returns the edits renaming the symbol at off to name, or an error
// saying why it cannot: name is not an identifier, or it is already the
// name of another relation or of another variable of the rule.
func dlRename(p *datalog.Program, off int, name string) ([]syntax.TextEdit, error) {
	sym, _, ok := dlSymbolAt(p, off)
	if !ok {
		return nil, fmt.Errorf("no relation or variable at this position")
	}
	if !isDLIdent(name) || name == "_" || name == "relation" || name == "if" {
		return nil, fmt.Errorf("%q is not a valid name", name)
	}
	if name == sym.Name {
		return nil, nil
	}
	switch sym.Kind {
	case dlRelation:
		if dlRelationExists(p, name) {
			return nil, fmt.Errorf("a relation %q already exists", name)
		}
	case dlVariable:
		for _, t := range dlRuleTerms(sym.Rule) {
			if t.Kind == datalog.Var && t.Value == name {
				return nil, fmt.Errorf("the rule already has a variable %q", name)
			}
		}
	}
	var edits []syntax.TextEdit
	for _, o := range dlOccurrences(p, sym) {
		edits = append(edits, syntax.TextEdit{Span: o.Span, NewText: name})
	}
	return edits, nil
}

func dlRelationExists(p *datalog.Program, name string) bool {
	for _, d := range p.Decls {
		if d.Name.Name == name {
			return true
		}
	}
	for _, r := range p.Rules {
		for _, a := range r.Atoms() {
			if a.Name.Name == name {
				return true
			}
		}
	}
	return false
}

// isIdent reports whether s is an identifier: a letter or "_", then
// letters, digits and "_".
func isDLIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isDLIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
