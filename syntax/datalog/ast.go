// Package datalog parses Datalog rules in Ascent syntax and checks them
// against a relation schema.
//
// A rule is "head(args) <-- body" with an optional ";" or "." terminator;
// a body is a comma-separated list of relation atoms, negated atoms ("!p(x)")
// and conditions ("if x != y"). Arguments are variables, the wildcard "_",
// string literals and numbers. A program (a .dl file) holds any number of
// rules, facts ("p(\"a\");") and declarations ("relation p(Proc, Proc);"),
// with "//" comments.
//
// The parser is hand-written recursive descent over a total lexer (Lex).
// A generated parser such as participle stops at the first error of a
// production and cannot resume at a rule boundary that is only implied (the
// terminator is optional, so a new rule may start right after the previous
// body); recursive descent lets the parser report one error per bad rule and
// carry on at the next terminator or at the next line that starts a rule.
// Every node carries its byte span.
package datalog

import "github.com/ctxql/ctxql/syntax"

// Node is implemented by every AST node.
type Node interface {
	// Span returns the byte range the node covers.
	Span() syntax.Span
}

// Ident is a name with its span.
type Ident struct {
	Name string      `json:"name"`
	Sp   syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Ident) Span() syntax.Span { return n.Sp }

// TermKind says what an argument is.
type TermKind uint8

// The term kinds.
const (
	Var      TermKind = iota // a variable name
	Wildcard                 // "_"
	Str                      // a string literal
	Num                      // a number literal
)

// String names the kind.
func (k TermKind) String() string {
	switch k {
	case Var:
		return "var"
	case Wildcard:
		return "wildcard"
	case Str:
		return "string"
	case Num:
		return "number"
	}
	return "term"
}

// Term is an argument of an atom or an operand of a condition.
type Term struct {
	Kind TermKind `json:"kind"`
	// Text is the exact source text of the term.
	Text string `json:"text"`
	// Value is the variable name for Var, and the canonical string value
	// for constants: the unescaped contents of a string literal, or the
	// number in canonical decimal form (no leading zeros or "+").
	Value string      `json:"value"`
	Sp    syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Term) Span() syntax.Span { return n.Sp }

// IsConst reports whether the term is a string or number literal.
func (n *Term) IsConst() bool { return n.Kind == Str || n.Kind == Num }

// Atom is a relation applied to arguments, possibly negated.
type Atom struct {
	Negated bool        `json:"negated,omitempty"`
	Bang    syntax.Span `json:"bang,omitzero"` // the "!" when Negated
	Name    Ident       `json:"name"`
	Args    []*Term     `json:"args"`
	Sp      syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Atom) Span() syntax.Span { return n.Sp }

// Cond is an "if LEFT OP RIGHT" condition.
type Cond struct {
	If     syntax.Span `json:"if"`
	Left   *Term       `json:"left"`
	Op     string      `json:"op"`
	OpSpan syntax.Span `json:"opSpan"`
	Right  *Term       `json:"right"`
	Sp     syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Cond) Span() syntax.Span { return n.Sp }

// BodyItem is one element of a rule body: exactly one of Atom and Cond is set.
type BodyItem struct {
	Atom *Atom `json:"atom,omitempty"`
	Cond *Cond `json:"cond,omitempty"`
}

// Span returns the item's span.
func (b BodyItem) Span() syntax.Span {
	if b.Atom != nil {
		return b.Atom.Sp
	}
	if b.Cond != nil {
		return b.Cond.Sp
	}
	return syntax.Span{}
}

// Rule is "head <-- body" or a fact "head" (no body).
type Rule struct {
	Head *Atom `json:"head"`
	// Arrow is the span of "<--"; zero for a fact.
	Arrow syntax.Span `json:"arrow,omitzero"`
	Body  []BodyItem  `json:"body,omitempty"`
	// Terminator is the span of the closing ";" or "."; zero when absent.
	Terminator syntax.Span `json:"terminator,omitzero"`
	Sp         syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Rule) Span() syntax.Span { return n.Sp }

// IsFact reports whether the rule has no body.
func (n *Rule) IsFact() bool { return n.Arrow.IsZero() && len(n.Body) == 0 }

// Decl is "relation name(T1, T2, ...);".
type Decl struct {
	Keyword syntax.Span `json:"keyword"`
	Name    Ident       `json:"name"`
	Types   []Ident     `json:"types"`
	Sp      syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Decl) Span() syntax.Span { return n.Sp }

// TypeNames returns the declared parameter types.
func (n *Decl) TypeNames() []string {
	out := make([]string, len(n.Types))
	for i, t := range n.Types {
		out[i] = t.Name
	}
	return out
}

// Program is a parsed .dl file or rule text.
type Program struct {
	File  *syntax.File `json:"-"`
	Rules []*Rule      `json:"rules"`
	Decls []*Decl      `json:"decls"`
	// Comments are the spans of "//" comments.
	Comments []syntax.Span `json:"comments,omitempty"`
	// Tokens are all tokens (comments included, EOF excluded), for highlighting.
	Tokens      []Token             `json:"-"`
	Diagnostics []syntax.Diagnostic `json:"diagnostics,omitempty"`
}

// Span implements Node; it covers the whole source.
func (p *Program) Span() syntax.Span { return syntax.Sp(0, p.File.Len()) }

// Inspect walks the tree rooted at n in source order, calling f for each
// node; when f returns false the node's children are skipped.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *Program:
		ri, di := 0, 0
		for ri < len(n.Rules) || di < len(n.Decls) {
			if di >= len(n.Decls) || (ri < len(n.Rules) && n.Rules[ri].Sp.Start < n.Decls[di].Sp.Start) {
				Inspect(n.Rules[ri], f)
				ri++
			} else {
				Inspect(n.Decls[di], f)
				di++
			}
		}
	case *Rule:
		if n.Head != nil {
			Inspect(n.Head, f)
		}
		for _, b := range n.Body {
			if b.Atom != nil {
				Inspect(b.Atom, f)
			} else if b.Cond != nil {
				Inspect(b.Cond, f)
			}
		}
	case *Decl:
		Inspect(&n.Name, f)
		for i := range n.Types {
			Inspect(&n.Types[i], f)
		}
	case *Atom:
		Inspect(&n.Name, f)
		for _, a := range n.Args {
			Inspect(a, f)
		}
	case *Cond:
		if n.Left != nil {
			Inspect(n.Left, f)
		}
		if n.Right != nil {
			Inspect(n.Right, f)
		}
	}
}
