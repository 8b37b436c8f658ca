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
	Bool                     // "true" or "false"
	Computed                 // an expression (Term.X): arithmetic, a parenthesized or negated value
	Tuple                    // a tuple "(a, b)" of the terms Term.Elems: a value, or in a body atom or let a pattern
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
	case Bool:
		return "bool"
	case Computed:
		return "expr"
	case Tuple:
		return "tuple"
	}
	return "term"
}

// Term is an argument of an atom or an operand of a condition.
//
// The fields the checks read for every term (kind, value, expression,
// elements) come first, in the first 64 bytes of the term: in the
// arenas' aligned chunks the checks read one cache line of a term, not
// two.
type Term struct {
	Kind TermKind `json:"kind"`
	// Value is the variable name for Var, and the canonical string value
	// for constants: the unescaped contents of a string literal, or the
	// number in canonical decimal form (no leading zeros or "+").
	Value string `json:"value"`
	// X is the expression of a Computed term.
	X Expr `json:"expr,omitempty"`
	// Elems are the elements of a Tuple term.
	Elems []*Term `json:"elems,omitempty"`
	// Text is the exact source text of the term.
	Text string      `json:"text"`
	Sp   syntax.Span `json:"span"`
	// Pattern is the span of a leading "?" (Ascent's pattern marker);
	// zero when absent.
	Pattern syntax.Span `json:"pattern,omitzero"`
	// Dual is the span of "Dual" when the term is written "Dual(...)",
	// the lattice wrapper of a value; zero when absent. The term's Sp
	// then covers the whole wrapper.
	Dual syntax.Span `json:"dual,omitzero"`
}

// Span implements Node.
func (n *Term) Span() syntax.Span { return n.Sp }

// IsConst reports whether the term is a string, number or boolean literal.
func (n *Term) IsConst() bool { return n.Kind == Str || n.Kind == Num || n.Kind == Bool }

func (*Term) exprNode() {}

// Expr is an arithmetic or boolean expression: a *Term (a variable or a
// literal), a *Binary or a *Unary.
type Expr interface {
	Node
	exprNode()
}

// Binary is "L op R" with op one of + - * / % == != < <= > >= && ||.
type Binary struct {
	Op     string      `json:"op"`
	OpSpan syntax.Span `json:"opSpan"`
	L      Expr        `json:"l"`
	R      Expr        `json:"r"`
	Sp     syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Binary) Span() syntax.Span { return n.Sp }

func (*Binary) exprNode() {}

// Unary is "-X" or "!X".
type Unary struct {
	Op     string      `json:"op"`
	OpSpan syntax.Span `json:"opSpan"`
	X      Expr        `json:"x"`
	Sp     syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Unary) Span() syntax.Span { return n.Sp }

func (*Unary) exprNode() {}

// Call is a call of one of the functions on text and numbers (see
// Functions): a method call "RECV.NAME(ARGS)" ("s.len()", "x.max(y)",
// "s.parse::<i64>()"), or the macro "format!(FMT, ARGS)", whose Recv is
// nil and whose first argument is the format string.
type Call struct {
	Recv Expr `json:"recv,omitempty"`
	// Name is the method ("len") or the macro with its "!" ("format!").
	Name Ident `json:"name"`
	// Type is T of "parse::<T>"; nil otherwise.
	Type *Ident      `json:"type,omitempty"`
	Args []Expr      `json:"args"`
	Sp   syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Call) Span() syntax.Span { return n.Sp }

func (*Call) exprNode() {}

// Atom is a relation applied to arguments, possibly negated.
type Atom struct {
	Negated bool        `json:"negated,omitempty"`
	Bang    syntax.Span `json:"bang,omitzero"` // the "!" when Negated
	Name    Ident       `json:"name"`
	Args    []*Term     `json:"args"`
	Sp      syntax.Span `json:"span"`
	// Macro is the macro use a head atom comes from ("edge!(x, y) <--
	// …" whose macro expands to heads); nil otherwise.
	Macro *MacroUse `json:"-"`
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

// If is an "if EXPR" condition that is not a plain comparison of two
// terms (those are a *Cond): a boolean expression with &&, ||, !,
// arithmetic or a boolean constant or variable.
type If struct {
	If syntax.Span `json:"if"`
	X  Expr        `json:"x"`
	Sp syntax.Span `json:"span"`
}

// Span implements Node.
func (n *If) Span() syntax.Span { return n.Sp }

// Let is "let VAR = EXPR": it binds VAR to the expression's value (or,
// when VAR is already bound, requires it to equal that value).
type Let struct {
	Let syntax.Span `json:"let"`
	Var *Term       `json:"var"`
	X   Expr        `json:"x"`
	Sp  syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Let) Span() syntax.Span { return n.Sp }

// For is "for VAR in LO..HI" (HI excluded) or "for VAR in LO..=HI", or
// "for PATTERN in [X, …]" (or "vec![X, …]") over the values of a list
// of expressions, PATTERN a variable or a tuple pattern.
type For struct {
	For syntax.Span `json:"for"`
	Var *Term       `json:"var"`
	// List holds the expressions of a list ("[…]" or, with Vec set,
	// "vec![…]"); Lo and Hi are then nil.
	List      []Expr      `json:"list,omitempty"`
	Vec       bool        `json:"vec,omitempty"`
	Lo        Expr        `json:"lo"`
	Hi        Expr        `json:"hi"`
	Inclusive bool        `json:"inclusive,omitempty"`
	Range     syntax.Span `json:"range"` // the ".." or "..="
	Sp        syntax.Span `json:"span"`
}

// Span implements Node.
func (n *For) Span() syntax.Span { return n.Sp }

// Aggregate functions.
const (
	AggCount = "count"
	AggSum   = "sum"
	AggMin   = "min"
	AggMax   = "max"
	AggMean  = "mean"
	AggNot   = "not"
)

// Agg is "agg VAR = FUNC(ARGS) in ATOM": VAR is bound to FUNC over the
// tuples of ATOM that agree with the rule's other variables. Var is nil
// for the "()" or "_" pattern ("agg () = not() in r(x)").
type Agg struct {
	Agg  syntax.Span `json:"agg"`
	Var  *Term       `json:"var,omitempty"`
	Func Ident       `json:"func"`
	Args []*Term     `json:"args"`
	Atom *Atom       `json:"atom"`
	Sp   syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Agg) Span() syntax.Span { return n.Sp }

// Disj is a disjunction "(A, B || C)": the body holds when one of the
// alternatives (each a list of body items) holds.
type Disj struct {
	Alts [][]BodyItem `json:"alts"`
	Sp   syntax.Span  `json:"span"`
}

// Span implements Node.
func (n *Disj) Span() syntax.Span { return n.Sp }

// BodyItem is one element of a rule body: exactly one field is set.
type BodyItem struct {
	Atom *Atom `json:"atom,omitempty"`
	Cond *Cond `json:"cond,omitempty"`
	If   *If   `json:"if,omitempty"`
	Let  *Let  `json:"let,omitempty"`
	For  *For  `json:"for,omitempty"`
	Agg  *Agg  `json:"agg,omitempty"`
	Disj *Disj `json:"disj,omitempty"`
	// Macro is a use of a macro the program defines; Expand replaces
	// it with the items it expands to.
	Macro *MacroUse `json:"macro,omitempty"`
}

// MacroDef is an Ascent macro definition "macro name($x: expr, …) {
// body items }": a use "name!(a, …)" in a rule body stands for the body
// items with each parameter replaced by its argument.
type MacroDef struct {
	Keyword syntax.Span `json:"keyword"`
	Name    Ident       `json:"name"`
	// Params are the parameters ("$x") and Kinds their fragment kinds
	// ("expr", "ident").
	Params []Ident  `json:"params"`
	Kinds  []string `json:"kinds"`
	// Body holds the tokens between the braces.
	Body []Token     `json:"-"`
	Sp   syntax.Span `json:"span"`
}

// Span implements Node.
func (n *MacroDef) Span() syntax.Span { return n.Sp }

// MacroUse is "name!(ARGS)" in a rule body: Items are the body items it
// expands to (their spans lie in the macro's body or in the arguments).
type MacroUse struct {
	Name Ident `json:"name"`
	// Args are the tokens of each argument.
	Args  [][]Token   `json:"-"`
	Items []BodyItem  `json:"items"`
	Sp    syntax.Span `json:"span"`
}

// Span implements Node.
func (n *MacroUse) Span() syntax.Span { return n.Sp }

// Node returns the item's node.
func (b BodyItem) Node() Node {
	switch {
	case b.Atom != nil:
		return b.Atom
	case b.Cond != nil:
		return b.Cond
	case b.If != nil:
		return b.If
	case b.Let != nil:
		return b.Let
	case b.For != nil:
		return b.For
	case b.Agg != nil:
		return b.Agg
	case b.Disj != nil:
		return b.Disj
	case b.Macro != nil:
		return b.Macro
	}
	return nil
}

// Span returns the item's span.
func (b BodyItem) Span() syntax.Span {
	if n := b.Node(); n != nil {
		return n.Span()
	}
	return syntax.Span{}
}

// Rule is "head <-- body" or a fact "head" (no body). A statement with
// several heads ("a(x), b(x) <-- c(x);" or the facts "a(1), b(2);")
// lists them all in Heads; Head is the first.
type Rule struct {
	Head  *Atom   `json:"head"`
	Heads []*Atom `json:"heads,omitempty"`
	// Init is set for a fact that a relation initializer lists
	// ("relation r(u32) = vec![(1,)];"): its declaration holds it too.
	Init bool `json:"init,omitempty"`
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

// Decl is "relation name(T1, T2, ...);" or "lattice name(T1, ..., L);".
type Decl struct {
	Keyword syntax.Span `json:"keyword"`
	// Lattice is set for a "lattice" declaration: the last column holds
	// one value per combination of the others, the greatest derived
	// (the least for a "Dual<T>" column).
	Lattice bool    `json:"lattice,omitempty"`
	Name    Ident   `json:"name"`
	Types   []Ident `json:"types"`
	// Init lists the facts of an initializer "= vec![(1, 2), …]", in
	// order (each also in Program.Rules, marked Init); Eq is the span
	// of its "=", zero when there is none.
	Init []*Rule     `json:"init,omitempty"`
	Eq   syntax.Span `json:"eq,omitzero"`
	// DS is the data structure of an attribute "#[ds(path::eqrel)]" or
	// "#[ds(path::trrel)]" before the declaration: its last path
	// segment (DSEqrel or DSTrrel) with that segment's span; nil when
	// there is none. Attr is the attribute's span and DSPath its path
	// as written ("ascent_byods_rels::eqrel").
	DS     *Ident      `json:"ds,omitempty"`
	DSPath string      `json:"dsPath,omitempty"`
	Attr   syntax.Span `json:"attr,omitzero"`
	Sp     syntax.Span `json:"span"`
}

// The data structures a "#[ds(...)]" attribute may name.
const (
	// DSEqrel is an equivalence relation: reflexive over the elements
	// that appear in it, symmetric and transitive (two columns, or a
	// key column and two).
	DSEqrel = "eqrel"
	// DSTrrel is a transitive relation: the transitive closure of what
	// the rules derive (two columns, or a key column and two).
	DSTrrel = "trrel"
)

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

// Header is an Ascent program header, "struct Name<T, …> where …;":
// its type parameters are type names a declaration may use.
type Header struct {
	Keyword syntax.Span `json:"keyword"`
	Name    Ident       `json:"name"`
	Params  []Ident     `json:"params,omitempty"`
	// Tokens are the header's tokens, "struct" to ";" included.
	Tokens []Token     `json:"-"`
	Sp     syntax.Span `json:"span"`
}

// Span implements Node.
func (n *Header) Span() syntax.Span { return n.Sp }

// Program is a parsed .dl file or rule text.
type Program struct {
	File    *syntax.File `json:"-"`
	Headers []*Header    `json:"headers,omitempty"`
	Macros  []*MacroDef  `json:"macros,omitempty"`
	Rules   []*Rule      `json:"rules"`
	Decls   []*Decl      `json:"decls"`
	// Comments are the spans of "//" comments.
	Comments []syntax.Span `json:"comments,omitempty"`
	// Tokens are all tokens (comments included, EOF excluded), for highlighting.
	Tokens      []Token             `json:"-"`
	Diagnostics []syntax.Diagnostic `json:"diagnostics,omitempty"`
	// idents is the number of identifier tokens, as the lexer counted
	// them (0: not counted).
	idents int
}

// Span implements Node; it covers the whole source.
func (p *Program) Span() syntax.Span { return syntax.Sp(0, p.File.Len()) }

// Inspect walks the tree rooted at n in source order, calling f for each
// node; when f returns false the node's children are skipped.
func Inspect(n Node, f func(Node) bool) {
	if isNil(n) || !f(n) {
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
		if len(n.Heads) > 0 {
			for _, h := range n.Heads {
				Inspect(h, f)
			}
		} else if n.Head != nil {
			Inspect(n.Head, f)
		}
		inspectBody(n.Body, f)
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
	case *Term:
		if n.X != nil {
			Inspect(n.X, f)
		}
		for _, e := range n.Elems {
			Inspect(e, f)
		}
	case *Binary:
		inspectExprs(f, n.L, n.R)
	case *Unary:
		inspectExprs(f, n.X)
	case *Call:
		if n.Recv != nil {
			Inspect(n.Recv, f)
		}
		if n.Type != nil {
			Inspect(n.Type, f)
		}
		inspectExprs(f, n.Args...)
	case *If:
		inspectExprs(f, n.X)
	case *Let:
		if n.Var != nil {
			Inspect(n.Var, f)
		}
		inspectExprs(f, n.X)
	case *For:
		if n.Var != nil {
			Inspect(n.Var, f)
		}
		inspectExprs(f, n.List...)
		inspectExprs(f, n.Lo, n.Hi)
	case *Agg:
		if n.Var != nil {
			Inspect(n.Var, f)
		}
		for _, a := range n.Args {
			Inspect(a, f)
		}
		if n.Atom != nil {
			Inspect(n.Atom, f)
		}
	case *Disj:
		for _, alt := range n.Alts {
			inspectBody(alt, f)
		}
	}
}

// isNil reports whether n is nil or a nil pointer of a node type (a
// partial tree may hold them).
func isNil(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *Term:
		return n == nil
	case *Atom:
		return n == nil
	case *Rule:
		return n == nil
	case *Cond:
		return n == nil
	case *Binary:
		return n == nil
	case *Unary:
		return n == nil
	case *Call:
		return n == nil
	case *MacroUse:
		return n == nil
	case *If:
		return n == nil
	case *Let:
		return n == nil
	case *For:
		return n == nil
	case *Agg:
		return n == nil
	case *Disj:
		return n == nil
	case *Decl:
		return n == nil
	case *Program:
		return n == nil
	}
	return false
}

func inspectBody(items []BodyItem, f func(Node) bool) {
	for _, b := range items {
		if n := b.Node(); n != nil {
			Inspect(n, f)
		}
	}
}

func inspectExprs(f func(Node) bool, xs ...Expr) {
	for _, x := range xs {
		if x != nil {
			Inspect(x, f)
		}
	}
}

// AllHeads returns the rule's heads: Heads, or the one Head.
func (n *Rule) AllHeads() []*Atom {
	if len(n.Heads) > 0 {
		return n.Heads
	}
	if n.Head != nil {
		return []*Atom{n.Head}
	}
	return nil
}

// Terms returns every term of the rule in source order, those inside
// expressions, conditions, lets, generators, aggregates and disjunctions
// included: what an editor highlights, renames or hovers.
func (n *Rule) Terms() []*Term {
	var out []*Term
	Inspect(n, func(x Node) bool {
		if t, ok := x.(*Term); ok && t.Kind != Computed && t.Kind != Tuple {
			out = append(out, t)
		}
		return true
	})
	return out
}
