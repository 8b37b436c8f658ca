package datalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// Diagnostic codes reported by the parser.
const (
	CodeSyntax    = "datalog/syntax"
	CodeOneRule   = "datalog/one-rule"
	CodeBadEscape = "datalog/bad-escape"
	// CodeRust marks a construct of Ascent that needs the Rust host
	// (method calls, closures, structs, macros, ...), refused at its
	// first token.
	CodeRust = "datalog/rust"
)

type parser struct {
	src   string
	toks  []Token // without comments
	pos   int
	diags []syntax.Diagnostic
	// noOr stops expressions at "||" (the alternatives' separator inside
	// a disjunction).
	noOr bool
	// macros are the program's macro definitions, by name; depth is the
	// nesting of the macro expansion being parsed.
	macros map[string]*MacroDef
	depth  int
	// expanded counts the tokens macro uses produced, shared by the
	// parsers of nested expansions.
	expanded *int
	// args and items are stacks the lists being parsed grow on before
	// they are copied out at their exact length; nested lists push
	// above the ones that contain them.
	args  []*Term
	items []BodyItem
	// terms, atoms and binaries are the free parts of the chunks the parser
	// allocates its most frequent nodes from.
	terms    []Term
	atoms    []Atom
	binaries []Binary
	// rules, conds, argLists, atomLists and itemLists are the same for
	// the arena's (ar) rules, conditions and lists.
	rules     []Rule
	conds     []Cond
	argLists  []*Term
	atomLists []*Atom
	itemLists []BodyItem
	// chunk is the length of the next chunk.
	chunk int
	// ar, when not nil, gives the chunks (ParseProgramIn).
	ar *Arena
}

// maxChunk is the most nodes the parser allocates at once; chunks start
// small so that a short query holds little memory.
const maxChunk = 256

// term returns a pointer to a copy of t, allocated from a chunk.
func (p *parser) term(t Term) *Term {
	if len(p.terms) == 0 {
		if p.ar != nil {
			p.terms = p.ar.terms.next()
		} else {
			p.chunk = min(max(2*p.chunk, 4), maxChunk)
			p.terms = make([]Term, p.chunk)
		}
	}
	n := &p.terms[0]
	*n = t
	p.terms = p.terms[1:]
	return n
}

// binary returns a pointer to a copy of b, allocated from a chunk.
func (p *parser) binary(b Binary) *Binary {
	if len(p.binaries) == 0 {
		if p.ar != nil {
			p.binaries = p.ar.binaries.next()
		} else {
			p.chunk = min(max(2*p.chunk, 4), maxChunk)
			p.binaries = make([]Binary, p.chunk)
		}
	}
	n := &p.binaries[0]
	*n = b
	p.binaries = p.binaries[1:]
	return n
}

// newAtom returns a new zero atom, allocated from a chunk.
func (p *parser) newAtom() *Atom {
	if len(p.atoms) == 0 {
		if p.ar != nil {
			p.atoms = p.ar.atoms.next()
		} else {
			p.chunk = min(max(2*p.chunk, 4), maxChunk)
			p.atoms = make([]Atom, p.chunk)
		}
	}
	n := &p.atoms[0]
	*n = Atom{} // a chunk's memory may hold an earlier parse's atom
	p.atoms = p.atoms[1:]
	return n
}

// newRule returns a new zero rule, from the arena's chunks when there is
// one.
func (p *parser) newRule() *Rule {
	if p.ar == nil {
		return new(Rule)
	}
	if len(p.rules) == 0 {
		p.rules = p.ar.rules.next()
	}
	n := &p.rules[0]
	*n = Rule{} // a chunk's memory may hold an earlier parse's rule
	p.rules = p.rules[1:]
	return n
}

// newCond returns a pointer to a copy of c, from the arena's chunks when
// there is one.
func (p *parser) newCond(c Cond) *Cond {
	if p.ar == nil {
		n := new(Cond)
		*n = c
		return n
	}
	if len(p.conds) == 0 {
		p.conds = p.ar.conds.next()
	}
	n := &p.conds[0]
	*n = c
	p.conds = p.conds[1:]
	return n
}

// argList, atomList and itemList return a copy of a list being parsed
// at its exact length (see list).
func (p *parser) argList(src []*Term) []*Term {
	if p.ar == nil {
		return list(nil, nil, src)
	}
	return list(&p.ar.argLists, &p.argLists, src)
}

func (p *parser) atomList(src []*Atom) []*Atom {
	if p.ar == nil {
		return list(nil, nil, src)
	}
	return list(&p.ar.atomLists, &p.atomLists, src)
}

func (p *parser) itemList(src []BodyItem) []BodyItem {
	if p.ar == nil {
		return list(nil, nil, src)
	}
	return list(&p.ar.itemLists, &p.itemLists, src)
}

type parseError struct{}

// ParseProgram parses a whole .dl text: rules, facts and declarations.
// It returns a partial program and every syntax error (one per bad rule).
func ParseProgram(name, src string) *Program { return ParseProgramIn(nil, name, src) }

// ParseProgramIn is ParseProgram for a caller that is done with the
// program before it parses the next one: its tokens and most frequent
// nodes are allocated in ar (nil: on the heap), and it must not be used
// once ar is reset.
func ParseProgramIn(ar *Arena, name, src string) *Program {
	var buf []Token
	if ar != nil {
		buf = ar.toks
	}
	all, counts := lexInto(buf, src) // ends with the one TokEOF
	// The program's tokens are the lexer's but the end; the parser's are
	// those without the comments, the same slice when there are none.
	prog := &Program{File: syntax.NewFile(name, src), Tokens: all[: len(all)-1 : len(all)-1], idents: counts.idents}
	p := &parser{src: src, toks: all, ar: ar}
	if ar != nil {
		ar.toks = all
	}
	if counts.comments > 0 {
		for _, t := range all {
			if t.Kind == TokComment {
				prog.Comments = append(prog.Comments, t.Span)
			}
		}
	}
	if len(prog.Comments) > 0 {
		if n := len(all) - len(prog.Comments); ar != nil && cap(ar.parsed) >= n {
			p.toks = ar.parsed[:0]
		} else {
			p.toks = make([]Token, 0, n)
		}
		for _, t := range all {
			if t.Kind != TokComment {
				p.toks = append(p.toks, t)
			}
		}
		if ar != nil {
			ar.parsed = p.toks
		}
	}
	p.macros, p.expanded = map[string]*MacroDef{}, new(int)
	for i := range p.toks {
		if counts.macros == 0 {
			break // no "macro" identifier: no definition
		}
		if p.startsMacro(i) {
			q := &parser{src: src, toks: p.toks, pos: i}
			if d, ok := q.item(q.macroDef).(*MacroDef); ok && d != nil {
				p.macros[d.Name.Name] = d
			}
		}
	}
	if ar != nil {
		prog.Rules = ar.ruleList[:0]
	}
	for p.peek().Kind != TokEOF {
		start := p.pos
		if p.startsMacro(p.pos) {
			if d, ok := p.item(p.macroDef).(*MacroDef); ok && d != nil {
				prog.Macros = append(prog.Macros, d)
			}
		} else if p.startsDecl(p.pos) {
			if d := p.item(p.decl); d != nil {
				prog.Decls = append(prog.Decls, d.(*Decl))
				prog.Rules = append(prog.Rules, d.(*Decl).Init...)
			}
		} else if t := p.peek(); t.Kind == TokIdent && t.Text == "struct" && p.peekAt(1).Kind == TokIdent {
			if h := p.item(p.header); h != nil {
				prog.Headers = append(prog.Headers, h.(*Header))
			}
		} else if p.startsDS() {
			if d := p.item(p.dsDecl); d != nil {
				prog.Decls = append(prog.Decls, d.(*Decl))
				prog.Rules = append(prog.Rules, d.(*Decl).Init...)
			}
		} else if p.rustItem() {
			p.item(p.refuseItem)
		} else if r := p.item(p.rule); r != nil {
			prog.Rules = append(prog.Rules, r.(*Rule))
		}
		if p.pos == start { // never loop without progress
			p.pos++
		}
	}
	if ar != nil {
		ar.ruleList = prog.Rules
		if len(prog.Rules) == 0 {
			prog.Rules = nil // as without an arena
		}
	}
	prog.Diagnostics = p.diags
	return prog
}

// ParseRule parses text holding exactly one rule, the form the query
// interpreter accepts. It returns the (possibly partial) rule, or nil when
// none could be parsed, and every error.
func ParseRule(src string) (*Rule, []syntax.Diagnostic) {
	prog := ParseProgram("rule", src)
	diags := prog.Diagnostics
	for _, d := range prog.Decls {
		diags = append(diags, syntax.Diagnostic{Span: d.Sp, Code: CodeOneRule, Message: "a query is a single rule; declarations are not allowed here"})
	}
	var r *Rule
	switch {
	case len(prog.Rules) == 0:
		if !syntax.HasErrors(diags) {
			diags = append(diags, syntax.Diagnostic{Span: syntax.Sp(len(src), len(src)), Code: CodeOneRule, Message: "expected a rule: head(args) <-- body"})
		}
	default:
		r = prog.Rules[0]
		for _, extra := range prog.Rules[1:] {
			diags = append(diags, syntax.Diagnostic{Span: extra.Sp, Code: CodeOneRule, Message: "a query is a single rule; found another rule"})
		}
		if r.IsFact() && !syntax.HasErrors(diags) {
			diags = append(diags, syntax.Diagnostic{Span: r.Sp, Code: CodeOneRule, Message: "expected '<--' and a rule body"})
		}
	}
	syntax.SortDiagnostics(diags)
	return r, diags
}

func (p *parser) peek() Token { return p.toks[p.pos] }

func (p *parser) peekAt(n int) Token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() Token {
	t := p.toks[p.pos]
	if t.Kind != TokEOF {
		p.pos++
	}
	return t
}

func describe(t Token) string {
	switch t.Kind {
	case TokEOF:
		return "end of input"
	case TokInvalid:
		return fmt.Sprintf("invalid token %q", t.Text)
	}
	return fmt.Sprintf("%q", t.Text)
}

func (p *parser) fail(t Token, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if t.Kind == TokInvalid && strings.HasPrefix(t.Text, "\"") {
		msg = "unterminated string literal"
	}
	p.diags = append(p.diags, syntax.Diagnostic{Span: t.Span, Severity: syntax.SeverityError, Code: CodeSyntax, Message: msg})
	panic(parseError{})
}

// refuse reports a construct that needs the Rust host, at span (which
// starts at the construct's first token), and abandons the item.
func (p *parser) refuse(span syntax.Span, what string) {
	p.diags = append(p.diags, syntax.Diagnostic{Span: span, Severity: syntax.SeverityError, Code: CodeRust,
		Message: what + " Rust code; ctxql evaluates Datalog only"})
	panic(parseError{})
}

// startsDecl reports whether the token at i starts a declaration.
func (p *parser) startsDecl(i int) bool {
	t := p.peekAt(i - p.pos)
	return t.Kind == TokIdent && (t.Text == "relation" || t.Text == "lattice") && p.peekAt(i-p.pos+1).Kind == TokIdent
}

// rustItems are the Rust keywords that start an item at the top level of
// an Ascent program.
var rustItems = map[string]string{
	"struct": "struct declarations are", "enum": "enum declarations are", "fn": "function definitions are",
	"use": "use declarations are", "type": "type aliases are", "impl": "impl blocks are", "pub": "struct declarations are",
	"macro": "macro definitions are", "const": "constants are", "static": "statics are",
}

// rustItem reports whether the next tokens start a top-level construct
// that needs the Rust host: an attribute, a macro invocation or a Rust
// item.
func (p *parser) rustItem() bool {
	t := p.peek()
	switch {
	case t.Kind == TokPunct && t.Text == "#":
		return true
	case t.Kind == TokIdent && p.peekAt(1).Kind == TokBang:
		// A use of the program's own macro heads a rule.
		return p.macros[t.Text] == nil || p.peekAt(2).Kind != TokLParen
	case t.Kind == TokIdent && rustItems[t.Text] != "" && p.peekAt(1).Kind == TokIdent:
		return true
	}
	return false
}

// refuseItem refuses the top-level construct rustItem recognized.
func (p *parser) refuseItem() Node {
	t := p.peek()
	switch {
	case t.Kind == TokPunct && t.Text == "#":
		p.refuse(t.Span, "attributes (#[...]) are")
	case t.Kind == TokIdent && p.peekAt(1).Kind == TokBang:
		p.refuse(syntax.Sp(t.Span.Start, p.peekAt(1).Span.End), fmt.Sprintf("macro invocations (%s!) are", t.Text))
	}
	p.refuse(t.Span, rustItems[t.Text])
	return nil
}

func (p *parser) expect(k Kind, what string) Token {
	t := p.toks[p.pos]
	if t.Kind != k {
		p.unexpected(t, what)
	}
	if t.Kind != TokEOF {
		p.pos++
	}
	return t
}

// unexpected fails at token t, which is not the expected what. It is
// expect's slow path, apart so that expect stays short.
func (p *parser) unexpected(t Token, what string) {
	p.fail(t, "expected %s, found %s", what, describe(t))
}

// item runs one production, recovering from a syntax error by skipping to
// the next terminator or to the next line that starts a rule or declaration.
func (p *parser) item(f func() Node) (n Node) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(parseError); !ok {
				panic(r)
			}
			n = nil
			p.recoverItem()
		}
	}()
	return f()
}

func (p *parser) startsLine(i int) bool {
	off := p.toks[i].Span.Start
	for off > 0 {
		c := p.src[off-1]
		if c == '\n' {
			return true
		}
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
		off--
	}
	return true
}

// inExpr reports whether the "." at the current token sits between two
// tokens it touches ("y.0", "v.len"): part of a refused expression, not
// a rule's end.
func (p *parser) inExpr() bool {
	t := p.peek()
	return p.pos > 0 && p.toks[p.pos-1].Span.End == t.Span.Start && p.peekAt(1).Span.Start == t.Span.End && p.peekAt(1).Kind != TokEOF
}

func (p *parser) recoverItem() {
	first := true
	for {
		t := p.peek()
		switch {
		case t.Kind == TokEOF:
			return
		case t.Kind == TokSemi || (t.Kind == TokDot && !p.inExpr()):
			p.next()
			return
		case !first && t.Kind == TokIdent && p.startsLine(p.pos) &&
			(p.peekAt(1).Kind == TokLParen || p.startsDecl(p.pos)):
			return
		}
		first = false
		p.next()
	}
}

func (p *parser) decl() Node {
	kw := p.next()
	name := p.expect(TokIdent, "a relation name")
	d := &Decl{Keyword: kw.Span, Name: Ident{Name: name.Text, Sp: name.Span}}
	d.Lattice = kw.Text == "lattice"
	p.expect(TokLParen, "'('")
	if p.peek().Kind != TokRParen {
		for {
			d.Types = append(d.Types, p.typeName())
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
	}
	end := p.expect(TokRParen, "',' or ')'")
	d.Sp = syntax.Sp(kw.Span.Start, end.Span.End)
	if d.Lattice && len(d.Types) == 0 {
		p.fail(end, "a lattice needs at least one column")
	}
	if t := p.peek(); t.Kind == TokPunct && t.Text == "=" {
		d.Eq = t.Span
		p.next()
		if n := p.peek(); n.Kind != TokIdent || n.Text != "vec" || p.peekAt(1).Kind != TokBang || p.peekAt(2).Kind != TokPunct || p.peekAt(2).Text != "[" {
			p.refuse(t.Span, "relation initializers other than vec![(…), …] of literal tuples are")
		}
		p.next()
		p.next()
		p.next()
		for p.peek().Kind != TokPunct || p.peek().Text != "]" {
			open := p.expect(TokLParen, "'(' starting a tuple of the initializer")
			a := &Atom{Name: Ident{Name: d.Name.Name, Sp: d.Name.Sp}}
			for p.peek().Kind != TokRParen {
				a.Args = append(a.Args, p.arg(true))
				if p.peek().Kind != TokComma {
					break
				}
				p.next()
			}
			end := p.expect(TokRParen, "',' or ')' in a tuple of the initializer")
			a.Sp = syntax.Sp(open.Span.Start, end.Span.End)
			d.Init = append(d.Init, &Rule{Head: a, Init: true, Sp: a.Sp})
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
		end := p.peek()
		if end.Kind != TokPunct || end.Text != "]" {
			p.fail(end, "expected ',' or ']' in the initializer, found %s", describe(end))
		}
		p.next()
		d.Sp.End = end.Span.End
	}
	if k := p.peek().Kind; k == TokSemi || k == TokDot {
		d.Sp.End = p.next().Span.End
	}
	return d
}

// startsDS reports whether the next tokens start a data structure
// attribute "#[ds(".
func (p *parser) startsDS() bool {
	t, b, ds, l := p.peek(), p.peekAt(1), p.peekAt(2), p.peekAt(3)
	return t.Kind == TokPunct && t.Text == "#" && b.Kind == TokPunct && b.Text == "[" &&
		ds.Kind == TokIdent && ds.Text == "ds" && l.Kind == TokLParen
}

// dsDecl parses "#[ds(path::eqrel)] relation ..." (or trrel): the
// attribute and the declaration it applies to. Other data structures
// are refused.
func (p *parser) dsDecl() Node {
	hash := p.next()
	p.next() // [
	p.next() // ds
	p.next() // (
	var path []string
	var last Token
	for {
		last = p.expect(TokIdent, "a data structure path (eqrel or trrel)")
		path = append(path, last.Text)
		if n := p.peek(); n.Kind == TokPunct && n.Text == "::" {
			p.next()
			continue
		}
		break
	}
	if last.Text != DSEqrel && last.Text != DSTrrel {
		p.refuse(last.Span, fmt.Sprintf("data structures other than eqrel and trrel (%s) are", last.Text))
	}
	if n := p.peek(); n.Kind != TokRParen {
		p.refuse(n.Span, "data structure arguments are")
	}
	p.next()
	end := p.peek()
	if end.Kind != TokPunct || end.Text != "]" {
		p.fail(end, "expected ']' closing the attribute, found %s", describe(end))
	}
	p.next()
	if t := p.peek(); !p.startsDecl(p.pos) || t.Text != "relation" {
		p.fail(t, "expected a relation declaration after #[ds(%s)], found %s", strings.Join(path, "::"), describe(t))
	}
	d := p.decl().(*Decl)
	d.DS = &Ident{Name: last.Text, Sp: last.Span}
	d.DSPath = strings.Join(path, "::")
	d.Attr = syntax.Sp(hash.Span.Start, end.Span.End)
	d.Sp.Start = hash.Span.Start
	return d
}

// header parses an Ascent program header "struct Name<T: Bound, …>
// where …;": its type parameters are the names right after "<" or a
// "," at the first level of the angle brackets.
func (p *parser) header() Node {
	kw := p.next()
	name := p.expect(TokIdent, "the program's name")
	h := &Header{Keyword: kw.Span, Name: Ident{Name: name.Text, Sp: name.Span}}
	start := p.pos - 2
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.Kind == TokEOF:
			p.fail(t, "expected ';' ending the program header, found %s", describe(t))
		case t.Kind == TokSemi:
			p.next()
			h.Tokens = append([]Token(nil), p.toks[start:p.pos]...)
			h.Sp = syntax.Sp(kw.Span.Start, t.Span.End)
			return h
		case t.Kind == TokPunct && (t.Text == "{" || t.Text == "("), t.Kind == TokLParen:
			p.refuse(t.Span, "struct fields are")
		case t.Kind == TokOp && t.Text == "<":
			depth++
			if n := p.peekAt(1); depth == 1 && n.Kind == TokIdent {
				h.Params = append(h.Params, Ident{Name: n.Text, Sp: n.Span})
			}
		case t.Kind == TokOp && t.Text == ">":
			depth--
		case t.Kind == TokComma && depth == 1:
			if n := p.peekAt(1); n.Kind == TokIdent {
				h.Params = append(h.Params, Ident{Name: n.Text, Sp: n.Span})
			}
		}
		p.next()
	}
}

// startsMacro reports whether the token at i starts a macro definition.
func (p *parser) startsMacro(i int) bool {
	return i+2 < len(p.toks) && p.toks[i].Kind == TokIdent && p.toks[i].Text == "macro" &&
		p.toks[i+1].Kind == TokIdent && p.toks[i+2].Kind == TokLParen
}

// macroDef parses "macro name($x: expr, $y: ident) { tokens }".
func (p *parser) macroDef() Node {
	kw := p.next()
	name := p.expect(TokIdent, "the macro's name")
	d := &MacroDef{Keyword: kw.Span, Name: Ident{Name: name.Text, Sp: name.Span}}
	p.expect(TokLParen, "'('")
	for p.peek().Kind != TokRParen {
		t := p.expect(TokIdent, "a macro parameter ($x)")
		if !strings.HasPrefix(t.Text, "$") {
			p.fail(t, "expected a macro parameter ($x), found %s", describe(t))
		}
		p.expectText(TokPunct, ":", "':' and the parameter's kind (expr or ident)")
		k := p.expect(TokIdent, "expr or ident")
		if k.Text != "expr" && k.Text != "ident" {
			p.fail(k, "macro parameters are expr or ident, not %s", k.Text)
		}
		d.Params = append(d.Params, Ident{Name: t.Text, Sp: t.Span})
		d.Kinds = append(d.Kinds, k.Text)
		if p.peek().Kind != TokComma {
			break
		}
		p.next()
	}
	p.expect(TokRParen, "',' or ')'")
	p.expectText(TokPunct, "{", "'{' starting the macro's body")
	start := p.pos
	for depth := 1; ; {
		t := p.peek()
		switch {
		case t.Kind == TokEOF:
			p.fail(t, "expected '}' ending the macro's body, found %s", describe(t))
		case t.Kind == TokPunct && t.Text == "{":
			depth++
		case t.Kind == TokPunct && t.Text == "}":
			depth--
		}
		if depth == 0 {
			break
		}
		p.next()
	}
	d.Body = append([]Token(nil), p.toks[start:p.pos]...)
	end := p.next()
	d.Sp = syntax.Sp(kw.Span.Start, end.Span.End)
	if k := p.peek().Kind; k == TokSemi {
		d.Sp.End = p.next().Span.End
	}
	return d
}

// maxMacroDepth bounds nested macro expansions (a macro that uses
// itself never ends).
const maxMacroDepth = 16

// maxExpanded bounds the tokens all the macro uses of a program expand
// to (nested uses multiply).
const maxExpanded = 1 << 20

// macroUse parses "name!(ARGS)" in a rule body and the body items it
// expands to: the definition's tokens with each parameter replaced by
// its argument's tokens (an expr argument of several tokens in
// parentheses), each taking the parameter's span.
func (p *parser) macroUse(d *MacroDef) BodyItem {
	u, _ := p.expandMacro(d, false)
	return BodyItem{Macro: u}
}

// headMacro parses "name!(ARGS)" in a rule head: the head atoms the
// macro's body expands to, each pointing back at the use.
func (p *parser) headMacro(d *MacroDef) []*Atom {
	u, heads := p.expandMacro(d, true)
	for _, h := range heads {
		h.Macro = u
	}
	return heads
}

// expandMacro parses a macro use and what it expands to: body items,
// or the comma-separated head atoms when head is set.
func (p *parser) expandMacro(d *MacroDef, head bool) (*MacroUse, []*Atom) {
	name := p.next()
	p.next() // !
	p.expect(TokLParen, "'('")
	var args [][]Token
	var cur []Token
	depth := 0
	for {
		t := p.peek()
		if t.Kind == TokEOF {
			p.fail(t, "expected ')' closing the macro's arguments, found %s", describe(t))
		}
		if depth == 0 && (t.Kind == TokComma || t.Kind == TokRParen) {
			if len(cur) > 0 || t.Kind == TokComma || len(args) > 0 {
				args = append(args, cur)
			}
			cur = nil
			p.next()
			if t.Kind == TokRParen {
				break
			}
			continue
		}
		switch {
		case t.Kind == TokLParen || t.Kind == TokPunct && (t.Text == "[" || t.Text == "{"):
			depth++
		case t.Kind == TokRParen || t.Kind == TokPunct && (t.Text == "]" || t.Text == "}"):
			depth--
		}
		cur = append(cur, t)
		p.next()
	}
	end := p.toks[p.pos-1]
	u := &MacroUse{Name: Ident{Name: name.Text, Sp: name.Span}, Args: args, Sp: syntax.Sp(name.Span.Start, end.Span.End)}
	if len(args) != len(d.Params) {
		p.fail(name, "macro %s takes %d argument(s), given %d", d.Name.Name, len(d.Params), len(args))
	}
	for i, a := range args {
		if len(a) == 0 {
			p.fail(name, "argument %d of macro %s is empty", i+1, d.Name.Name)
		}
		if d.Kinds[i] == "ident" && (len(a) != 1 || a[0].Kind != TokIdent) {
			p.fail(a[0], "argument %d of macro %s is an identifier", i+1, d.Name.Name)
		}
	}
	if p.depth >= maxMacroDepth {
		p.fail(name, "macro expansion deeper than %d (a macro using itself?)", maxMacroDepth)
	}
	var toks []Token
	for _, t := range d.Body {
		if t.Kind != TokIdent || !strings.HasPrefix(t.Text, "$") {
			toks = append(toks, t)
			continue
		}
		i := slices.IndexFunc(d.Params, func(x Ident) bool { return x.Name == t.Text })
		if i < 0 {
			p.fail(t, "macro %s has no parameter %s", d.Name.Name, t.Text)
		}
		wrap := d.Kinds[i] == "expr" && len(args[i]) > 1
		if wrap {
			toks = append(toks, Token{Kind: TokLParen, Text: "(", Span: syntax.Sp(t.Span.Start, t.Span.Start)})
		}
		for _, a := range args[i] {
			a.Span = t.Span
			toks = append(toks, a)
		}
		if wrap {
			toks = append(toks, Token{Kind: TokRParen, Text: ")", Span: syntax.Sp(t.Span.End, t.Span.End)})
		}
	}
	bodyEnd := d.Sp.End
	if len(d.Body) > 0 {
		bodyEnd = d.Body[len(d.Body)-1].Span.End
	}
	toks = append(toks, Token{Kind: TokEOF, Span: syntax.Sp(bodyEnd, bodyEnd)})
	if *p.expanded += len(toks); *p.expanded > maxExpanded {
		p.fail(name, "macro expansions of more than %d tokens in all", maxExpanded)
	}
	q := &parser{src: p.src, toks: toks, macros: p.macros, depth: p.depth + 1, expanded: p.expanded}
	var heads []*Atom
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(parseError); !ok {
					panic(r)
				}
			}
		}()
		if head {
			heads = q.headAtoms()
		} else {
			u.Items = q.bodyItems()
		}
		if t := q.peek(); t.Kind != TokEOF {
			q.fail(t, "expected ',' or the end of the macro's body, found %s", describe(t))
		}
	}()
	if len(q.diags) > 0 {
		for i := range q.diags {
			if !strings.Contains(q.diags[i].Message, " (in macro ") {
				q.diags[i].Message += fmt.Sprintf(" (in macro %s)", d.Name.Name)
				q.diags[i].Related = append(q.diags[i].Related, syntax.RelatedInfo{Span: u.Sp, Message: "the macro is used here"})
			}
		}
		p.diags = append(p.diags, q.diags...)
		panic(parseError{})
	}
	return u, heads
}

// typeName parses a column type: a name with optional generic
// arguments ("Dual<u32>"), kept as written without spaces.
func (p *parser) typeName() Ident {
	t := p.peek()
	if t.Kind == TokPunct && t.Text == "&" {
		p.refuse(t.Span, "reference types (&) are")
	}
	if t.Kind == TokLParen {
		// A tuple type "(T1, T2)", "(T,)".
		p.next()
		var elems []string
		for p.peek().Kind != TokRParen {
			elems = append(elems, p.typeName().Name)
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
		end := p.expect(TokRParen, "',' or ')' in a tuple type")
		if len(elems) == 0 {
			p.refuse(t.Span, "the unit type () is")
		}
		return Ident{Name: tupleTypeName(elems), Sp: syntax.Sp(t.Span.Start, end.Span.End)}
	}
	t = p.expect(TokIdent, "a type name")
	id := Ident{Name: t.Text, Sp: t.Span}
	if n := p.peek(); n.Kind == TokPunct && n.Text == "::" {
		p.refuse(t.Span, "type paths (a::B) are")
	}
	if n := p.peek(); n.Kind == TokOp && n.Text == "<" {
		p.next()
		var args []string
		for {
			a := p.typeName()
			args = append(args, a.Name)
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
		end := p.peek()
		if end.Kind != TokOp || end.Text != ">" {
			p.fail(end, "expected '>' closing the type arguments, found %s", describe(end))
		}
		p.next()
		id.Name += "<" + strings.Join(args, ",") + ">"
		id.Sp.End = end.Span.End
	}
	return id
}

func (p *parser) rule() Node {
	if t := p.peek(); t.Kind == TokPunct && t.Text == "{" {
		p.refuse(t.Span, "head blocks ({...}) are")
	}
	start := p.peek().Span.Start
	heads := p.headAtoms()
	r := p.newRule()
	*r = Rule{Head: heads[0], Sp: syntax.Sp(start, p.toks[p.pos-1].Span.End)}
	if len(heads) > 1 {
		r.Heads = heads
	}
	if p.peek().Kind == TokArrow {
		r.Arrow = p.next().Span
		r.Body = p.bodyItems()
		if n := len(r.Body); n > 0 {
			r.Sp.End = r.Body[n-1].Span().End
		}
	}
	switch t := p.peek(); {
	case t.Kind == TokSemi || t.Kind == TokDot:
		r.Terminator = p.next().Span
		r.Sp.End = r.Terminator.End
	case t.Kind == TokEOF:
	case t.Kind == TokIdent && p.startsLine(p.pos) && (p.peekAt(1).Kind == TokLParen || p.startsDecl(p.pos)):
		// The next rule starts on a new line without a terminator in
		// between. On the same line it is more likely a missing comma.
	case t.Kind == TokInvalid && t.Text == ":-":
		p.diags = append(p.diags, syntax.Diagnostic{Span: t.Span, Severity: syntax.SeverityError, Code: CodeSyntax,
			Message:        "Ascent rules use '<--', not ':-'",
			SuggestedFixes: []syntax.SuggestedFix{{Message: "replace ':-' with '<--'", TextEdits: []syntax.TextEdit{{Span: t.Span, NewText: "<--"}}}}})
		panic(parseError{})
	default:
		if r.Arrow.IsZero() {
			p.fail(t, "expected '<--', ';' or '.', found %s", describe(t))
		}
		p.fail(t, "expected ',', ';' or '.' after a body item, found %s", describe(t))
	}
	return r
}

// headAtoms parses the comma-separated atoms of a rule head, macro uses
// among them expanded.
func (p *parser) headAtoms() []*Atom {
	var buf [4]*Atom
	heads := buf[:0]
	for {
		t := p.peek()
		if d := p.macros[t.Text]; t.Kind == TokIdent && d != nil && p.peekAt(1).Kind == TokBang && p.peekAt(2).Kind == TokLParen {
			heads = append(heads, p.headMacro(d)...)
		} else {
			heads = append(heads, p.atom(true))
		}
		if p.peek().Kind != TokComma {
			return p.atomList(heads)
		}
		p.next()
	}
}

// CanonicalNumber returns the canonical decimal form of a number literal:
// integers without leading zeros ("007" → "7", "-0" → "0"); decimals as
// written. Relation values are compared with it as strings.
func CanonicalNumber(text string) string {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return text
}

// Unquote decodes a double-quoted string literal with the escapes
// \" \\ \n \t \r \0 and \u{HEX}. It reports false (and keeps the raw
// text between the quotes) on an invalid escape.
func Unquote(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return lit, false
	}
	body := lit[1 : len(lit)-1]
	if !strings.Contains(body, `\`) {
		return body, true
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(body) {
			return body, false
		}
		i++
		switch body[i] {
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case '\'':
			b.WriteByte('\'')
		case 'u':
			end := strings.IndexByte(body[i:], '}')
			if i+1 >= len(body) || body[i+1] != '{' || end < 0 {
				return body, false
			}
			n, err := strconv.ParseUint(body[i+2:i+end], 16, 32)
			if err != nil || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF) {
				return body, false
			}
			b.WriteRune(rune(n))
			i += end
		default:
			return body, false
		}
	}
	return b.String(), true
}

// Quote renders s as a string literal that Unquote decodes back to s.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
