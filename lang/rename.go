package lang

import (
	"errors"
	"fmt"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// ErrNoSymbol is the error of Rename at a position where nothing can be
// renamed.
var ErrNoSymbol = errors.New("no relation or variable at this position")

// Rename returns the edits that rename the Datalog relation or variable
// at off to name everywhere it is written: a relation in every
// declaration, head and body atom of the program, a variable in its rule.
// It refuses a name that is not an identifier, is a keyword, or is
// already taken (a relation of the program, a variable of the rule).
// Other languages have nothing to rename.
func (p *Parsed) Rename(off int, name string) ([]syntax.TextEdit, error) {
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return nil, ErrNoSymbol
	}
	sym, _, ok := dlSymbolAt(prog, off)
	if !ok {
		return nil, ErrNoSymbol
	}
	if !IsDatalogIdent(name) || name == "_" || datalog.IsKeyword(name) {
		return nil, fmt.Errorf("%q is not a valid name", name)
	}
	if name == sym.Name {
		return nil, nil
	}
	switch sym.Kind {
	case SymbolRelation:
		if dlRelationExists(prog, name) {
			return nil, fmt.Errorf("a relation %q already exists", name)
		}
	case SymbolVariable:
		for _, t := range dlRuleTerms(sym.Rule) {
			if t.Kind == datalog.Var && t.Value == name {
				return nil, fmt.Errorf("the rule already has a variable %q", name)
			}
		}
	}
	var edits []syntax.TextEdit
	for _, o := range dlOccurrences(prog, sym) {
		edits = append(edits, syntax.TextEdit{Span: o.Span, NewText: name})
	}
	return edits, nil
}

// dlRelationExists reports whether the program declares or uses a
// relation called name.
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

// IsDatalogIdent reports whether s is a Datalog identifier, a relation
// or variable name: a letter or an underscore, then letters, digits and
// underscores (ASCII).
func IsDatalogIdent(s string) bool {
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
