package lsp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// dlSymbolKind says whether a symbol is a relation or a variable.
type dlSymbolKind uint8

// The symbol kinds.
const (
	dlRelation dlSymbolKind = iota + 1
	dlVariable
)

// dlSymbol is a relation, or a variable of one rule.
type dlSymbol struct {
	Kind dlSymbolKind
	Name string
	Rule *datalog.Rule // the rule a variable belongs to; nil for relations
}

// dlOccurrence is one place a symbol is written. Def marks definitions: a
// relation's declaration, or where no declaration exists the heads of the
// rules and facts deriving it; a variable's first occurrence in its rule.
type dlOccurrence struct {
	Span syntax.Span
	Def  bool
}

// SymbolAt returns the symbol written at off (a relation name or a
// variable), and its span there.
func dlSymbolAt(p *datalog.Program, off int) (dlSymbol, syntax.Span, bool) {
	touches := func(sp syntax.Span) bool { return sp.Start <= off && off <= sp.End && !sp.IsZero() }
	for _, d := range p.Decls {
		if touches(d.Name.Sp) {
			return dlSymbol{Kind: dlRelation, Name: d.Name.Name}, d.Name.Sp, true
		}
	}
	for _, r := range p.Rules {
		if !r.Sp.Touches(off) {
			continue
		}
		for _, a := range r.Atoms() {
			if touches(a.Name.Sp) {
				return dlSymbol{Kind: dlRelation, Name: a.Name.Name}, a.Name.Sp, true
			}
		}
		for _, t := range dlRuleTerms(r) {
			if t.Kind == datalog.Var && touches(t.Sp) {
				return dlSymbol{Kind: dlVariable, Name: t.Value, Rule: r}, t.Sp, true
			}
		}
	}
	return dlSymbol{}, syntax.Span{}, false
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

// Occurrences lists every place sym is written, in source order.
func dlOccurrences(p *datalog.Program, sym dlSymbol) []dlOccurrence {
	var out []dlOccurrence
	switch sym.Kind {
	case dlRelation:
		declared := false
		for _, d := range p.Decls {
			if d.Name.Name == sym.Name {
				declared = true
			}
		}
		for _, d := range p.Decls {
			if d.Name.Name == sym.Name {
				out = append(out, dlOccurrence{Span: d.Name.Sp, Def: true})
			}
		}
		for _, r := range p.Rules {
			for _, a := range r.Atoms() {
				if a.Name.Name == sym.Name && !a.Name.Sp.IsZero() {
					out = append(out, dlOccurrence{Span: a.Name.Sp, Def: !declared && a == r.Head})
				}
			}
		}
	case dlVariable:
		first := true
		for _, t := range dlRuleTerms(sym.Rule) {
			if t.Kind == datalog.Var && t.Value == sym.Name {
				out = append(out, dlOccurrence{Span: t.Sp, Def: first})
				first = false
			}
		}
	}
	sortDLOccurrences(out)
	return out
}

func sortDLOccurrences(o []dlOccurrence) {
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && o[j].Span.Start < o[j-1].Span.Start; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
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

// Describe explains the symbol at off in Markdown: a relation's signature
// (declared, or the types inferred from the rules deriving it), whether it
// is derived or read from data, and how often it is used; a variable's
// inferred type.
func describeDatalog(p *datalog.Program, info *datalog.Info, off int) (string, syntax.Span, bool) {
	sym, sp, ok := dlSymbolAt(p, off)
	if !ok {
		return "", syntax.Span{}, false
	}
	occ := dlOccurrences(p, sym)
	switch sym.Kind {
	case dlRelation:
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
	case dlVariable:
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

// dlCompletion is one proposal: Text replaces Span (the word before the
// cursor). Snippet is Text with LSP snippet placeholders for the
// arguments of a relation.
type dlCompletion struct {
	Label, Text, Snippet, Detail string
	Kind                         dlSymbolKind
	Span                         syntax.Span
}

// Complete proposes the relations (with their arity) and the variables of
// the rule around off that extend the word before the cursor.
func completeDatalog(p *datalog.Program, info *datalog.Info, off int) []dlCompletion {
	src := p.File.Text()
	off = min(max(off, 0), len(src))
	w := off
	for w > 0 && (isDLIdentByte(src[w-1])) {
		w--
	}
	typed := src[w:off]
	sp := syntax.Sp(w, off)
	var out []dlCompletion
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
			out = append(out, dlCompletion{Label: n, Text: n, Snippet: n + "(" + strings.Join(ph, ", ") + ")",
				Detail: fmt.Sprintf("%s(%s)", n, strings.Join(ri.Types, ", ")), Kind: dlRelation, Span: sp})
		}
	}
	for _, r := range p.Rules {
		if !r.Sp.Touches(off) {
			continue
		}
		seen := map[string]bool{}
		for _, t := range dlRuleTerms(r) {
			if t.Kind == datalog.Var && !seen[t.Value] && t.Value != typed && strings.HasPrefix(t.Value, typed) && !t.Sp.Touches(off) {
				seen[t.Value] = true
				out = append(out, dlCompletion{Label: t.Value, Text: t.Value, Snippet: t.Value, Detail: "variable", Kind: dlVariable, Span: sp})
			}
		}
	}
	return out
}

func isDLIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
