package datalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// SymbolKind says whether a symbol is a relation or a variable.
type SymbolKind uint8

// The symbol kinds.
const (
	Relation SymbolKind = iota + 1
	Variable
)

// Symbol is a relation, or a variable of one rule.
type Symbol struct {
	Kind SymbolKind
	Name string
	Rule *Rule // the rule a variable belongs to; nil for relations
}

// Occurrence is one place a symbol is written. Def marks definitions: a
// relation's declaration, or where no declaration exists the heads of the
// rules and facts deriving it; a variable's first occurrence in its rule.
type Occurrence struct {
	Span syntax.Span
	Def  bool
}

// SymbolAt returns the symbol written at off (a relation name or a
// variable), and its span there.
func SymbolAt(p *Program, off int) (Symbol, syntax.Span, bool) {
	touches := func(sp syntax.Span) bool { return sp.Start <= off && off <= sp.End && !sp.IsZero() }
	for _, d := range p.Decls {
		if touches(d.Name.Loc) {
			return Symbol{Kind: Relation, Name: d.Name.Name}, d.Name.Loc, true
		}
	}
	for _, r := range p.Rules {
		if !r.Loc.Touches(off) {
			continue
		}
		for _, a := range r.Atoms() {
			if touches(a.Name.Loc) {
				return Symbol{Kind: Relation, Name: a.Name.Name}, a.Name.Loc, true
			}
		}
		for _, t := range ruleTerms(r) {
			if t.Kind == Var && touches(t.Loc) {
				return Symbol{Kind: Variable, Name: t.Value, Rule: r}, t.Loc, true
			}
		}
	}
	return Symbol{}, syntax.Span{}, false
}

// Atoms returns the head and body atoms of a rule, head first.
func (r *Rule) Atoms() []*Atom {
	if r == nil {
		return nil
	}
	var out []*Atom
	if r.Head != nil {
		out = append(out, r.Head)
	}
	for _, b := range r.Body {
		if b.Atom != nil {
			out = append(out, b.Atom)
		}
	}
	return out
}

// ruleTerms returns the terms of a rule in source order.
func ruleTerms(r *Rule) []*Term {
	var out []*Term
	if r.Head != nil {
		out = append(out, r.Head.Args...)
	}
	for _, b := range r.Body {
		switch {
		case b.Atom != nil:
			out = append(out, b.Atom.Args...)
		case b.Cond != nil:
			for _, t := range []*Term{b.Cond.Left, b.Cond.Right} {
				if t != nil {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// Occurrences lists every place sym is written, in source order.
func Occurrences(p *Program, sym Symbol) []Occurrence {
	var out []Occurrence
	switch sym.Kind {
	case Relation:
		declared := false
		for _, d := range p.Decls {
			if d.Name.Name == sym.Name {
				declared = true
			}
		}
		for _, d := range p.Decls {
			if d.Name.Name == sym.Name {
				out = append(out, Occurrence{Span: d.Name.Loc, Def: true})
			}
		}
		for _, r := range p.Rules {
			for _, a := range r.Atoms() {
				if a.Name.Name == sym.Name && !a.Name.Loc.IsZero() {
					out = append(out, Occurrence{Span: a.Name.Loc, Def: !declared && a == r.Head})
				}
			}
		}
	case Variable:
		first := true
		for _, t := range ruleTerms(sym.Rule) {
			if t.Kind == Var && t.Value == sym.Name {
				out = append(out, Occurrence{Span: t.Loc, Def: first})
				first = false
			}
		}
	}
	sortOccurrences(out)
	return out
}

func sortOccurrences(o []Occurrence) {
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && o[j].Span.Start < o[j-1].Span.Start; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// Rename returns the edits renaming the symbol at off to name, or an error
// saying why it cannot: name is not an identifier, or it is already the
// name of another relation or of another variable of the rule.
func Rename(p *Program, off int, name string) ([]syntax.TextEdit, error) {
	sym, _, ok := SymbolAt(p, off)
	if !ok {
		return nil, fmt.Errorf("no relation or variable at this position")
	}
	if !isIdent(name) || name == "_" || name == "relation" || name == "if" {
		return nil, fmt.Errorf("%q is not a valid name", name)
	}
	if name == sym.Name {
		return nil, nil
	}
	switch sym.Kind {
	case Relation:
		if relationExists(p, name) {
			return nil, fmt.Errorf("a relation %q already exists", name)
		}
	case Variable:
		for _, t := range ruleTerms(sym.Rule) {
			if t.Kind == Var && t.Value == name {
				return nil, fmt.Errorf("the rule already has a variable %q", name)
			}
		}
	}
	var edits []syntax.TextEdit
	for _, o := range Occurrences(p, sym) {
		edits = append(edits, syntax.TextEdit{Span: o.Span, NewText: name})
	}
	return edits, nil
}

func relationExists(p *Program, name string) bool {
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
func isIdent(s string) bool {
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

// Describe explains the symbol at off in Markdown: a relation's signature
// (declared, or the types inferred from the rules deriving it), whether it
// is derived or read from data, and how often it is used; a variable's
// inferred type.
func Describe(p *Program, info *Info, off int) (string, syntax.Span, bool) {
	sym, sp, ok := SymbolAt(p, off)
	if !ok {
		return "", syntax.Span{}, false
	}
	occ := Occurrences(p, sym)
	switch sym.Kind {
	case Relation:
		var b strings.Builder
		sig := "?"
		if info != nil {
			if ri := info.Relations[sym.Name]; ri != nil {
				sig = strings.Join(ri.Types, ", ")
				fmt.Fprintf(&b, "**relation** `%s(%s)`", sym.Name, sig)
				switch {
				case ri.Derived && ri.InData:
					b.WriteString("\n\nDerived by rules and also given as facts.")
				case ri.Derived:
					b.WriteString("\n\nDerived by rules.")
				case ri.InData:
					b.WriteString("\n\nRead from data (facts or input).")
				}
			}
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "**relation** `%s`", sym.Name)
		}
		fmt.Fprintf(&b, "\n\n%d occurrence(s) in this program.", len(occ))
		return b.String(), sp, true
	case Variable:
		typ := "unknown"
		if info != nil {
			if vi, ok := info.TypeAt(sp.Start); ok && vi.Type != "" {
				typ = vi.Type
			}
		}
		return fmt.Sprintf("**variable** `%s`: %s\n\n%d occurrence(s) in this rule.", sym.Name, typ, len(occ)), sp, true
	}
	return "", syntax.Span{}, false
}

// Completion is one proposal: Text replaces Span (the word before the
// cursor). Snippet is Text with LSP snippet placeholders for the
// arguments of a relation.
type Completion struct {
	Label, Text, Snippet, Detail string
	Kind                         SymbolKind
	Span                         syntax.Span
}

// Complete proposes the relations (with their arity) and the variables of
// the rule around off that extend the word before the cursor.
func Complete(p *Program, info *Info, off int) []Completion {
	src := p.File.Text()
	off = min(max(off, 0), len(src))
	w := off
	for w > 0 && (isIdentByte(src[w-1])) {
		w--
	}
	typed := src[w:off]
	sp := syntax.Sp(w, off)
	var out []Completion
	if info != nil {
		names := make([]string, 0, len(info.Relations))
		for n := range info.Relations {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !strings.HasPrefix(n, typed) {
				continue
			}
			ri := info.Relations[n]
			var ph []string
			for i, t := range ri.Types {
				if t == "" {
					t = fmt.Sprintf("arg%d", i+1)
				}
				ph = append(ph, fmt.Sprintf("${%d:%s}", i+1, t))
			}
			out = append(out, Completion{Label: n, Text: n, Snippet: n + "(" + strings.Join(ph, ", ") + ")",
				Detail: fmt.Sprintf("%s(%s)", n, strings.Join(ri.Types, ", ")), Kind: Relation, Span: sp})
		}
	}
	for _, r := range p.Rules {
		if !r.Loc.Touches(off) {
			continue
		}
		seen := map[string]bool{}
		for _, t := range ruleTerms(r) {
			if t.Kind == Var && !seen[t.Value] && t.Value != typed && strings.HasPrefix(t.Value, typed) && !t.Loc.Touches(off) {
				seen[t.Value] = true
				out = append(out, Completion{Label: t.Value, Text: t.Value, Snippet: t.Value, Detail: "variable", Kind: Variable, Span: sp})
			}
		}
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
