package datalog

import (
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// bodyItems parses a comma-separated list of body items. Inside a
// disjunction the list ends before "||" or "|".
func (p *parser) bodyItems() []BodyItem {
	base := len(p.items)
	for {
		p.items = p.bodyItem(p.items)
		if p.peek().Kind != TokComma {
			break
		}
		p.next()
	}
	var items []BodyItem
	if len(p.items) > base {
		items = p.itemList(p.items[base:])
	}
	clear(p.items[base:])
	p.items = p.items[:base]
	return items
}

// bodyItem parses one body item; an atom followed by "if" or "let"
// clauses without a comma ("r(x) if x > 1") gives several items.
func (p *parser) bodyItem(items []BodyItem) []BodyItem {
	t := p.peek()
	switch {
	case t.Kind == TokBang:
		bang := p.next()
		a := p.atom(false)
		a.Negated, a.Bang = true, bang.Span
		a.Sp.Start = bang.Span.Start
		return append(items, BodyItem{Atom: a})
	case t.Kind == TokIdent && (t.Text == "if" || t.Text == "let"):
		return append(items, p.condClause())
	case t.Kind == TokIdent && t.Text == "for":
		return append(items, p.forClause())
	case t.Kind == TokIdent && t.Text == "agg" && (p.peekAt(1).Kind != TokLParen || p.peekAt(2).Kind == TokRParen && p.peekAt(3).Kind == TokPunct):
		return append(items, p.aggClause())
	case t.Kind == TokLParen:
		return append(items, p.disjunction())
	case t.Kind == TokIdent && p.peekAt(1).Kind == TokBang && p.macros[t.Text] != nil && p.peekAt(2).Kind == TokLParen:
		return append(items, p.macroUse(p.macros[t.Text]))
	case t.Kind == TokIdent && p.peekAt(1).Kind == TokBang:
		p.refuse(syntax.Sp(t.Span.Start, p.peekAt(1).Span.End), fmt.Sprintf("macro invocations (%s!) are", t.Text))
	case t.Kind == TokIdent:
		items = append(items, BodyItem{Atom: p.atom(false)})
		for n := p.peek(); n.Kind == TokIdent && (n.Text == "if" || n.Text == "let"); n = p.peek() {
			items = append(items, p.condClause())
		}
		return items
	}
	p.fail(t, "expected a relation atom, '!', 'if', 'let', 'for', 'agg' or '(', found %s", describe(t))
	return items
}

// condClause parses "if EXPR" or "let VAR = EXPR".
func (p *parser) condClause() BodyItem {
	kw := p.next()
	if kw.Text == "if" {
		if n := p.peek(); n.Kind == TokIdent && n.Text == "let" {
			p.refuse(kw.Span, "if let patterns are")
		}
		if c, ok := p.simpleCond(kw); ok {
			return BodyItem{Cond: c}
		}
		x := p.expr()
		sp := syntax.Sp(kw.Span.Start, x.Span().End)
		if b, ok := x.(*Binary); ok && isComparison(b.Op) {
			l, lok := b.L.(*Term)
			r, rok := b.R.(*Term)
			if lok && rok && l.Kind != Computed && r.Kind != Computed && l.Kind != Tuple && r.Kind != Tuple && l.Dual.IsZero() && r.Dual.IsZero() {
				return BodyItem{Cond: &Cond{If: kw.Span, Left: l, Op: b.Op, OpSpan: b.OpSpan, Right: r, Sp: sp}}
			}
		}
		return BodyItem{If: &If{If: kw.Span, X: x, Sp: sp}}
	}
	v := p.bindVar("let")
	p.expectText(TokPunct, "=", "'=' after the let variable")
	x := p.expr()
	return BodyItem{Let: &Let{Let: kw.Span, Var: v, X: x, Sp: syntax.Sp(kw.Span.Start, x.Span().End)}}
}

// simpleCond parses the most frequent condition, "if A OP B" with A and
// B each a lone variable or number and "," or ";" after it, into the
// Cond the expression parser's comparison would give, and reports
// whether it did; otherwise it consumes nothing.
func (p *parser) simpleCond(kw Token) (*Cond, bool) {
	if p.pos+3 >= len(p.toks) {
		return nil, false
	}
	a, op, b, next := p.toks[p.pos], p.toks[p.pos+1], p.toks[p.pos+2], p.toks[p.pos+3].Kind
	if op.Kind != TokOp || next != TokComma && next != TokSemi || !plainOperand(a) || !plainOperand(b) {
		return nil, false
	}
	p.pos += 3
	l, r := p.operandTerm(a), p.operandTerm(b)
	return p.newCond(Cond{If: kw.Span, Left: l, Op: op.Text, OpSpan: op.Span, Right: r, Sp: syntax.Sp(kw.Span.Start, r.Sp.End)}), true
}

// plainOperand reports whether t alone is an operand primary makes a
// term of: a variable, "_" or a number.
func plainOperand(t Token) bool {
	return t.Kind == TokIdent && plainVar(t.Text) || t.Kind == TokNumber
}

// operandTerm returns the term of a plainOperand token, as primary
// makes it.
func (p *parser) operandTerm(t Token) *Term {
	switch {
	case t.Kind == TokNumber:
		return p.term(Term{Kind: Num, Text: t.Text, Value: CanonicalNumber(t.Text), Sp: t.Span})
	case t.Text == "_":
		return p.term(Term{Kind: Wildcard, Text: t.Text, Value: t.Text, Sp: t.Span})
	}
	return p.term(Term{Kind: Var, Text: t.Text, Value: t.Text, Sp: t.Span})
}

// expectText consumes a token of kind k and text text, or fails
// saying what was expected.
func (p *parser) expectText(k Kind, text, what string) {
	if t := p.peek(); t.Kind != k || t.Text != text {
		p.fail(t, "expected %s, found %s", what, describe(t))
	}
	p.next()
}

// bindVar parses the variable a let, for or agg binds.
func (p *parser) bindVar(what string) *Term {
	t := p.peek()
	switch {
	case t.Kind == TokLParen && (what == "let" || what == "for"):
		return p.tuplePattern(what)
	case t.Kind == TokLParen || (t.Kind == TokPunct && (t.Text == "&" || t.Text == "[")):
		p.refuse(t.Span, "destructuring patterns are")
	case t.Kind == TokIdent && (t.Text == "Some" || t.Text == "None" || t.Text == "Ok" || t.Text == "Err"):
		p.refuse(t.Span, fmt.Sprintf("Option and Result patterns (%s) are", t.Text))
	case t.Kind == TokIdent && t.Text == "mut":
		p.refuse(t.Span, "mutable bindings (mut) are")
	case t.Kind == TokIdent && strings.HasPrefix(t.Text, "$"):
		p.fail(t, "macro parameter %s outside a macro's body", t.Text)
	case t.Kind == TokIdent && !IsKeyword(t.Text):
		p.next()
		if n := p.peek(); n.Kind == TokLParen || (n.Kind == TokPunct && (n.Text == "{" || n.Text == "::")) {
			p.refuse(t.Span, "struct and enum patterns are")
		}
		if t.Text == "_" {
			return p.term(Term{Kind: Wildcard, Text: t.Text, Value: t.Text, Sp: t.Span})
		}
		return p.term(Term{Kind: Var, Text: t.Text, Value: t.Text, Sp: t.Span})
	}
	p.fail(t, "expected a variable after '%s', found %s", what, describe(t))
	return nil
}

// tuplePattern parses a tuple of variables, "_" and tuples: "(a, (b, _))".
func (p *parser) tuplePattern(what string) *Term {
	open := p.next()
	tup := &Term{Kind: Tuple}
	for p.peek().Kind != TokRParen {
		if p.peek().Kind == TokLParen {
			tup.Elems = append(tup.Elems, p.tuplePattern(what))
		} else {
			tup.Elems = append(tup.Elems, p.bindVar(what))
		}
		if p.peek().Kind != TokComma {
			break
		}
		p.next()
	}
	end := p.expect(TokRParen, "',' or ')' in a tuple pattern")
	if len(tup.Elems) == 0 {
		p.refuse(open.Span, "the unit value () is")
	}
	tup.Sp = syntax.Sp(open.Span.Start, end.Span.End)
	tup.Text = p.src[tup.Sp.Start:tup.Sp.End]
	return tup
}

// forClause parses "for VAR in LO..HI" or "for VAR in LO..=HI".
func (p *parser) forClause() BodyItem {
	kw := p.next()
	v := p.bindVar("for")
	p.expectText(TokIdent, "in", "'in' after the for variable")
	if t, n := p.peek(), p.peekAt(1); t.Kind == TokPunct && t.Text == "[" || t.Kind == TokIdent && t.Text == "vec" && n.Kind == TokBang && p.peekAt(2).Kind == TokPunct && p.peekAt(2).Text == "[" {
		f := &For{For: kw.Span, Var: v, Vec: t.Text == "vec", List: []Expr{}}
		if f.Vec {
			p.next()
			p.next()
		}
		p.next() // [
		saved := p.noOr
		p.noOr = false
		for {
			if e := p.peek(); e.Kind == TokPunct && e.Text == "]" {
				break
			}
			f.List = append(f.List, p.expr())
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
		p.noOr = saved
		end := p.peek()
		if end.Kind != TokPunct || end.Text != "]" {
			p.fail(end, "expected ',' or ']' in the list, found %s", describe(end))
		}
		p.next()
		f.Sp = syntax.Sp(kw.Span.Start, end.Span.End)
		return BodyItem{For: f}
	}
	if v.Kind == Tuple {
		p.refuse(p.peek().Span, "iterating over anything but an integer range (for x in lo..hi) or a list ([a, b], vec![a, b]) is")
	}
	lo := p.arith()
	rg := p.peek()
	if rg.Kind != TokPunct || (rg.Text != ".." && rg.Text != "..=") {
		p.refuse(lo.Span(), "iterating over anything but an integer range (for x in lo..hi) or a list ([a, b], vec![a, b]) is")
	}
	p.next()
	hi := p.arith()
	return BodyItem{For: &For{For: kw.Span, Var: v, Lo: lo, Hi: hi, Inclusive: rg.Text == "..=", Range: rg.Span, Sp: syntax.Sp(kw.Span.Start, hi.Span().End)}}
}

// aggClause parses "agg VAR = FUNC(ARGS) in ATOM".
func (p *parser) aggClause() BodyItem {
	kw := p.next()
	g := &Agg{Agg: kw.Span}
	if t := p.peek(); t.Kind == TokLParen && p.peekAt(1).Kind == TokRParen {
		p.next()
		p.next()
	} else {
		g.Var = p.bindVar("agg")
		if g.Var.Kind == Wildcard {
			g.Var = nil
		}
	}
	p.expectText(TokPunct, "=", "'=' after the aggregate's variable")
	fn := p.peek()
	if fn.Kind == TokLParen {
		p.refuse(fn.Span, "aggregator expressions are")
	}
	fn = p.expect(TokIdent, "an aggregator (count, sum, min, max, mean, not)")
	switch fn.Text {
	case AggCount, AggSum, AggMin, AggMax, AggMean, AggNot:
	default:
		if n := p.peek(); n.Kind == TokPunct && n.Text == "::" {
			p.refuse(fn.Span, "aggregator paths (a::b) are")
		}
		p.refuse(fn.Span, fmt.Sprintf("custom aggregators (%s) are", fn.Text))
	}
	g.Func = Ident{Name: fn.Text, Sp: fn.Span}
	p.expect(TokLParen, "'('")
	if p.peek().Kind != TokRParen {
		for {
			t := p.expect(TokIdent, "a variable")
			if IsKeyword(t.Text) || t.Text == "_" {
				p.fail(t, "expected a variable, found %s", describe(t))
			}
			g.Args = append(g.Args, &Term{Kind: Var, Text: t.Text, Value: t.Text, Sp: t.Span})
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
	}
	p.expect(TokRParen, "',' or ')'")
	p.expectText(TokIdent, "in", "'in' and the aggregated relation")
	g.Atom = p.atom(false)
	g.Sp = syntax.Sp(kw.Span.Start, g.Atom.Sp.End)
	return BodyItem{Agg: g}
}

// disjunction parses "(ITEMS || ITEMS ...)"; "|" is accepted for "||".
func (p *parser) disjunction() BodyItem {
	open := p.next()
	d := &Disj{}
	// Inside a disjunction "||" separates alternatives; a condition
	// using "||" needs parentheses there.
	saved := p.noOr
	p.noOr = true
	defer func() { p.noOr = saved }()
	for {
		d.Alts = append(d.Alts, p.bodyItems())
		t := p.peek()
		if (t.Kind == TokLogic && t.Text == "||") || (t.Kind == TokPunct && t.Text == "|") {
			p.next()
			continue
		}
		break
	}
	end := p.expect(TokRParen, "'||' or ')' in a disjunction")
	d.Sp = syntax.Sp(open.Span.Start, end.Span.End)
	return BodyItem{Disj: d}
}

func (p *parser) atom(head bool) *Atom {
	what := "a relation name"
	if head {
		what = "a rule head"
	}
	name := p.expect(TokIdent, what)
	if name.Text == "_" || IsKeyword(name.Text) && p.peekAt(0).Kind != TokLParen {
		p.fail(name, "expected %s, found %s", what, describe(name))
	}
	if n := p.peek(); n.Kind == TokBang {
		p.refuse(syntax.Sp(name.Span.Start, n.Span.End), fmt.Sprintf("macro invocations (%s!) are", name.Text))
	}
	if strings.HasPrefix(name.Text, "$") {
		p.fail(name, "macro parameter %s outside a macro's body", name.Text)
	}
	a := p.newAtom()
	a.Name = Ident{Name: name.Text, Sp: name.Span}
	p.expect(TokLParen, "'('")
	if p.peek().Kind != TokRParen {
		base := len(p.args)
		for {
			t := p.arg(head) // may push arguments of its own
			p.args = append(p.args, t)
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
		a.Args = p.argList(p.args[base:])
		clear(p.args[base:])
		p.args = p.args[:base]
	}
	end := p.expect(TokRParen, "',' or ')'")
	a.Sp = syntax.Sp(name.Span.Start, end.Span.End)
	return a
}

// arg parses an atom argument: a pattern "?x" or "?Dual(x)" (body
// only), "Dual(EXPR)", or an expression. A plain variable, "_" or
// literal is that term; anything else is a Computed term.
func (p *parser) arg(head bool) *Term {
	t := p.peek()
	if t.Kind == TokPunct && t.Text == "?" {
		if head {
			p.fail(t, "a rule head cannot hold a pattern ('?')")
		}
		p.next()
		n := p.peek()
		var term *Term
		if n.Kind == TokIdent && n.Text == "Dual" && p.peekAt(1).Kind == TokLParen {
			term = p.dual(func() *Term { return p.bindVar("?") })
		} else {
			term = p.bindVar("?")
		}
		term.Pattern = t.Span
		term.Sp.Start = t.Span.Start
		return term
	}
	if t.Kind == TokIdent && t.Text == "Dual" && p.peekAt(1).Kind == TokLParen {
		return p.dual(func() *Term { return toTerm(p.src, p.expr()) })
	}
	// The most frequent argument, a variable, "_" or a number before ","
	// or ")", is the term the expression parser would return for it.
	if n := p.peekAt(1).Kind; n == TokComma || n == TokRParen {
		switch {
		case t.Kind == TokIdent && plainVar(t.Text):
			p.next()
			k := Var
			if t.Text == "_" {
				k = Wildcard
			}
			return p.term(Term{Kind: k, Text: t.Text, Value: t.Text, Sp: t.Span})
		case t.Kind == TokNumber:
			p.next()
			return p.term(Term{Kind: Num, Text: t.Text, Value: CanonicalNumber(t.Text), Sp: t.Span})
		}
	}
	return toTerm(p.src, p.expr())
}

// plainVar reports whether an identifier standing alone is a variable
// (or "_") for primary: not a keyword, a macro parameter or a name it
// refuses.
func plainVar(s string) bool {
	if s == "" || s[0] == '$' || IsKeyword(s) {
		return false
	}
	switch s {
	case "Some", "None", "Ok", "Err", "match", "loop", "while", "return", "move":
		return false
	}
	return true
}

// dual parses "Dual(INNER)".
func (p *parser) dual(inner func() *Term) *Term {
	kw := p.next()
	p.next() // (
	term := inner()
	end := p.expect(TokRParen, "')' closing Dual(")
	term.Dual = kw.Span
	term.Sp = syntax.Sp(kw.Span.Start, end.Span.End)
	return term
}

// toTerm returns x itself when it is a term, else a Computed term
// wrapping it.
func toTerm(src string, x Expr) *Term {
	if t, ok := x.(*Term); ok {
		return t
	}
	sp := x.Span()
	return &Term{Kind: Computed, Text: src[sp.Start:sp.End], X: x, Sp: sp}
}

func isComparison(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// expr parses an expression with Rust's precedence: "||" below "&&"
// below the comparisons (which do not chain) below "+ -" below "* / %"
// below the prefix "-" and "!".
func (p *parser) expr() Expr { return p.orExpr() }

// The levels of the left-associative binary operators, loosest first.
const (
	levelOr = iota
	levelAnd
	levelAdd
	levelMul
)

// binaryOp reports whether t is an operator of the given level.
func (p *parser) binaryOp(level int, t Token) bool {
	switch level {
	case levelOr:
		return t.Kind == TokLogic && t.Text == "||" && !p.noOr
	case levelAnd:
		return t.Kind == TokLogic && t.Text == "&&"
	case levelAdd:
		return t.Kind == TokArith && (t.Text == "+" || t.Text == "-")
	}
	return t.Kind == TokArith && (t.Text == "*" || t.Text == "/" || t.Text == "%")
}

// operand parses an operand of the operators of the given level.
func (p *parser) operand(level int) Expr {
	switch level {
	case levelOr:
		return p.andExpr()
	case levelAnd:
		return p.cmpExpr()
	case levelAdd:
		return p.mulExpr()
	}
	return p.unary()
}

// leftAssoc parses "operand {op operand}" for the operators of a level
// and builds a left-associative tree.
func (p *parser) leftAssoc(level int) Expr {
	x := p.operand(level)
	for t := p.peek(); p.binaryOp(level, t); t = p.peek() {
		p.next()
		y := p.operand(level)
		x = p.binary(Binary{Op: t.Text, OpSpan: t.Span, L: x, R: y, Sp: syntax.Sp(x.Span().Start, y.Span().End)})
	}
	return x
}

func (p *parser) orExpr() Expr { return p.leftAssoc(levelOr) }

func (p *parser) andExpr() Expr { return p.leftAssoc(levelAnd) }

func (p *parser) cmpExpr() Expr {
	x := p.arith()
	if t := p.peek(); t.Kind == TokOp {
		p.next()
		y := p.arith()
		x = p.binary(Binary{Op: t.Text, OpSpan: t.Span, L: x, R: y, Sp: syntax.Sp(x.Span().Start, y.Span().End)})
		if n := p.peek(); n.Kind == TokOp {
			p.fail(n, "comparisons do not chain; use && between two comparisons")
		}
	}
	return x
}

// arith parses "+ -" and "* / %" expressions (a range's bounds).
func (p *parser) arith() Expr {
	return p.leftAssoc(levelAdd)
}

func (p *parser) mulExpr() Expr {
	return p.leftAssoc(levelMul)
}

func (p *parser) unary() Expr {
	t := p.peek()
	switch {
	case (t.Kind == TokArith && t.Text == "-") || t.Kind == TokBang:
		p.next()
		x := p.unary()
		sp := syntax.Sp(t.Span.Start, x.Span().End)
		if n, ok := x.(*Term); ok && n.Kind == Num && t.Text == "-" && n.Dual.IsZero() && !strings.HasPrefix(n.Value, "-") {
			// "-5" and "- (5)" are the number -5, as the lexer reads "-5".
			return &Term{Kind: Num, Text: p.src[sp.Start:sp.End], Value: CanonicalNumber("-" + n.Value), Sp: sp}
		}
		return &Unary{Op: t.Text, OpSpan: t.Span, X: x, Sp: sp}
	case t.Kind == TokArith && t.Text == "*":
		p.refuse(t.Span, "dereferences (*) are")
	case t.Kind == TokPunct && t.Text == "&":
		p.refuse(t.Span, "references (&) are")
	case t.Kind == TokLogic && t.Text == "&&":
		p.refuse(t.Span, "references (&) are")
	case (t.Kind == TokPunct && t.Text == "|") || (t.Kind == TokLogic && t.Text == "||"):
		p.refuse(t.Span, "closures are")
	case t.Kind == TokIdent && t.Text == "move":
		p.refuse(t.Span, "closures are")
	}
	return p.postfix(p.primary())
}

// postfix parses the calls of the functions on text and numbers after
// an operand ("s.len()", "s.parse::<i64>()", chained), and refuses what
// else Rust may write there: other method calls, field access, indexing
// and casts.
func (p *parser) postfix(x Expr) Expr {
	// "-5.abs()" is -(5.abs()) in Rust: a method binds tighter than the
	// sign the lexer reads into a number, unless it is parenthesized.
	var neg *Unary
	if t, ok := x.(*Term); ok && t.Kind == Num && strings.HasPrefix(t.Text, "-") && p.toks[p.pos-1].Kind != TokRParen && p.isCall() {
		neg = &Unary{Op: "-", OpSpan: syntax.Sp(t.Sp.Start, t.Sp.Start+1)}
		x = &Term{Kind: Num, Text: t.Text[1:], Value: CanonicalNumber(t.Text[1:]), Sp: syntax.Sp(t.Sp.Start+1, t.Sp.End)}
	}
	x = p.calls(x)
	if neg != nil {
		neg.X = x
		neg.Sp = syntax.Sp(neg.OpSpan.Start, x.Span().End)
		return neg
	}
	return x
}

// isCall reports whether a call of a function follows.
func (p *parser) isCall() bool {
	t, name, n := p.peek(), p.peekAt(1), p.peekAt(2)
	if t.Kind != TokDot || name.Kind != TokIdent || name.Span.Start != t.Span.End {
		return false
	}
	fn, ok := LookupFunction(name.Text)
	return ok && fn.Recv != "" && (n.Kind == TokLParen || n.Kind == TokPunct && n.Text == "::")
}

// calls parses the chain of calls after an operand.
func (p *parser) calls(x Expr) Expr {
	// A parenthesized receiver's call starts at its "(".
	start := x.Span().Start
	if last := p.toks[p.pos-1]; last.Kind == TokRParen && last.Span.End > x.Span().End {
		for i := p.pos - 2; i > 0 && p.toks[i].Span.Start >= start; i-- {
			if p.toks[i].Span.Start == start {
				if p.toks[i-1].Kind == TokLParen {
					start = p.toks[i-1].Span.Start
				}
				break
			}
		}
	}
	for {
		t := p.peek()
		if t.Kind != TokDot || p.peekAt(1).Kind != TokIdent || p.peekAt(1).Span.Start != t.Span.End {
			break
		}
		name := p.peekAt(1)
		n := p.peekAt(2)
		turbofish := n.Kind == TokPunct && n.Text == "::"
		if n.Kind != TokLParen && !turbofish {
			break
		}
		fn, ok := LookupFunction(name.Text)
		if !ok || fn.Recv == "" || turbofish != (fn.Name == "parse") {
			break
		}
		p.next()
		p.next()
		c := &Call{Recv: x, Name: Ident{Name: name.Text, Sp: name.Span}}
		if turbofish {
			p.next()
			p.expectText(TokOp, "<", "'<' after parse::")
			ty := p.expect(TokIdent, "an integer type")
			if !IntegerType(ty.Text) {
				p.fail(ty, "parse::<T> reads integers: T is one of i8…i128, u8…u128, isize, usize, not %s", ty.Text)
			}
			c.Type = &Ident{Name: ty.Text, Sp: ty.Span}
			p.expectText(TokOp, ">", "'>' closing parse::<T>")
		} else if fn.Name == "parse" {
			p.fail(n, "parse needs its type: s.parse::<i64>()")
		}
		c.Args = p.callArgs()
		c.Sp = syntax.Sp(start, p.toks[p.pos-1].Span.End)
		if len(c.Args) != fn.Args {
			p.fail(name, "%s takes %d argument(s), given %d", fn.Name, fn.Args, len(c.Args))
		}
		x = c
	}
	t := p.peek()
	adjacent := func(i int) bool { return p.peekAt(i).Span.Start == p.peekAt(i-1).Span.End }
	switch {
	case t.Kind == TokDot && adjacent(1) && p.peekAt(1).Kind == TokIdent && (p.peekAt(2).Kind == TokLParen || p.peekAt(2).Kind == TokPunct && p.peekAt(2).Text == "::"):
		p.refuse(syntax.Sp(x.Span().Start, p.peekAt(1).Span.End), "method calls are")
	case t.Kind == TokDot && adjacent(1) && (p.peekAt(1).Kind == TokIdent || p.peekAt(1).Kind == TokNumber):
		p.refuse(syntax.Sp(x.Span().Start, p.peekAt(1).Span.End), "field access is")
	case t.Kind == TokPunct && t.Text == "[":
		p.refuse(syntax.Sp(x.Span().Start, t.Span.End), "indexing is")
	case t.Kind == TokIdent && t.Text == "as":
		p.refuse(syntax.Sp(x.Span().Start, t.Span.End), "type casts (as) are")
	case t.Kind == TokPunct && t.Text == "?":
		p.refuse(syntax.Sp(x.Span().Start, t.Span.End), "the ? operator is")
	}
	return x
}

// callArgs parses "(EXPR, ...)".
func (p *parser) callArgs() []Expr {
	p.expect(TokLParen, "'('")
	saved := p.noOr
	p.noOr = false
	defer func() { p.noOr = saved }()
	var args []Expr
	if p.peek().Kind != TokRParen {
		for {
			args = append(args, p.expr())
			if p.peek().Kind != TokComma {
				break
			}
			p.next()
		}
	}
	p.expect(TokRParen, "',' or ')'")
	return args
}

// formatCall parses "format!(FMT, ARGS)": FMT is a string literal with
// one "{}" per argument.
func (p *parser) formatCall() Expr {
	t := p.next()
	bang := p.next()
	c := &Call{Name: Ident{Name: "format!", Sp: syntax.Sp(t.Span.Start, bang.Span.End)}}
	c.Args = p.callArgs()
	c.Sp = syntax.Sp(t.Span.Start, p.toks[p.pos-1].Span.End)
	if len(c.Args) == 0 {
		p.fail(p.toks[p.pos-1], "format! needs a format string")
	}
	f, ok := c.Args[0].(*Term)
	if !ok || f.Kind != Str {
		sp := c.Args[0].Span()
		p.diags = append(p.diags, syntax.Diagnostic{Span: sp, Severity: syntax.SeverityError, Code: CodeSyntax, Message: "format! takes a string literal first"})
		panic(parseError{})
	}
	pieces, ok := FormatPieces(f.Value)
	switch {
	case !ok:
		p.diags = append(p.diags, syntax.Diagnostic{Span: f.Sp, Severity: syntax.SeverityError, Code: CodeSyntax, Message: "format! strings take {} placeholders ({{ and }} for braces); other forms such as {:?} or {0} are not supported"})
		panic(parseError{})
	case len(pieces)-1 != len(c.Args)-1:
		p.diags = append(p.diags, syntax.Diagnostic{Span: f.Sp, Severity: syntax.SeverityError, Code: CodeSyntax, Message: fmt.Sprintf("the format string has %d placeholder(s) but format! is given %d argument(s)", len(pieces)-1, len(c.Args)-1)})
		panic(parseError{})
	}
	return c
}

func (p *parser) primary() Expr {
	t := p.peek()
	switch t.Kind {
	case TokIdent:
		n := p.peekAt(1)
		switch {
		case t.Text == "format" && n.Kind == TokBang && p.peekAt(2).Kind == TokLParen:
			return p.formatCall()
		case n.Kind == TokBang && (p.peekAt(2).Kind == TokLParen || (p.peekAt(2).Kind == TokPunct && (p.peekAt(2).Text == "[" || p.peekAt(2).Text == "{"))):
			p.refuse(syntax.Sp(t.Span.Start, n.Span.End), fmt.Sprintf("macro invocations (%s!) are", t.Text))
		case t.Text == "Some" || t.Text == "None" || t.Text == "Ok" || t.Text == "Err":
			p.refuse(t.Span, fmt.Sprintf("Option and Result values (%s) are", t.Text))
		case n.Kind == TokPunct && n.Text == "::":
			p.refuse(t.Span, "paths and enum variants (a::B) are")
		case n.Kind == TokLParen && t.Text == "Dual":
			p.refuse(t.Span, "Dual(...) inside an expression is")
		case n.Kind == TokLParen:
			p.refuse(t.Span, fmt.Sprintf("function calls and constructors (%s(...)) are", t.Text))
		case n.Kind == TokPunct && n.Text == "{" && t.Text != "in":
			p.refuse(t.Span, "struct literals are")
		case t.Text == "true" || t.Text == "false":
			p.next()
			return p.term(Term{Kind: Bool, Text: t.Text, Value: t.Text, Sp: t.Span})
		case t.Text == "if" || t.Text == "match" || t.Text == "loop" || t.Text == "while" || t.Text == "return":
			p.refuse(t.Span, fmt.Sprintf("%s expressions are", t.Text))
		case IsKeyword(t.Text):
			p.fail(t, "expected an expression, found keyword %q", t.Text)
		case strings.HasPrefix(t.Text, "$"):
			p.fail(t, "macro parameter %s outside a macro's body", t.Text)
		}
		p.next()
		if t.Text == "_" {
			return p.term(Term{Kind: Wildcard, Text: t.Text, Value: t.Text, Sp: t.Span})
		}
		return p.term(Term{Kind: Var, Text: t.Text, Value: t.Text, Sp: t.Span})
	case TokNumber:
		p.next()
		if n := p.peek(); n.Kind == TokIdent && n.Span.Start == t.Span.End {
			p.refuse(syntax.Sp(t.Span.Start, n.Span.End), "typed number literals ("+t.Text+n.Text+") are")
		}
		return p.term(Term{Kind: Num, Text: t.Text, Value: CanonicalNumber(t.Text), Sp: t.Span})
	case TokString:
		p.next()
		v, ok := Unquote(t.Text)
		if !ok {
			p.diags = append(p.diags, syntax.Diagnostic{Span: t.Span, Code: CodeBadEscape, Message: "invalid escape sequence in string literal"})
		}
		return p.term(Term{Kind: Str, Text: t.Text, Value: v, Sp: t.Span})
	case TokLParen:
		p.next()
		if p.peek().Kind == TokRParen {
			p.refuse(t.Span, "the unit value () is")
		}
		saved := p.noOr
		p.noOr = false
		x := p.expr()
		if c := p.peek(); c.Kind == TokComma {
			// A tuple: "(a, b)", "(a,)".
			tup := &Term{Kind: Tuple, Elems: []*Term{toTerm(p.src, x)}}
			for p.peek().Kind == TokComma {
				p.next()
				if p.peek().Kind == TokRParen {
					break
				}
				tup.Elems = append(tup.Elems, toTerm(p.src, p.expr()))
			}
			end := p.expect(TokRParen, "',' or ')' in a tuple")
			p.noOr = saved
			tup.Sp = syntax.Sp(t.Span.Start, end.Span.End)
			tup.Text = p.src[tup.Sp.Start:tup.Sp.End]
			return tup
		}
		p.noOr = saved
		p.expect(TokRParen, "')'")
		return x
	case TokPunct:
		switch t.Text {
		case "[":
			p.refuse(t.Span, "arrays are")
		case "{":
			p.refuse(t.Span, "blocks are")
		case "'":
			p.refuse(t.Span, "character literals are")
		}
	}
	p.fail(t, "expected a variable, '_', a string, a number or an expression, found %s", describe(t))
	return nil
}
