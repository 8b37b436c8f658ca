package pact

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// CodeSyntax is the diagnostic code of every parse error.
const CodeSyntax = "pact-syntax"

// ParseQuery parses one selector (V1) or query (V2) occupying the whole of
// src. DialectUnset means V2. It always returns a non-nil Query, partial when
// the returned diagnostics contain errors (Query.Bad is then set). Spans are
// byte offsets into src.
func ParseQuery(src string, d Dialect) (*Query, []syntax.Diagnostic) {
	if d == DialectUnset {
		d = V2
	}
	toks := lex(src, false)
	all := append(toks, tok{kind: lEOF, start: len(src), end: len(src)})
	p := &parser{src: src, toks: all[:len(toks)], all: all, d: d, end: len(src), a: &arena{}}
	q := p.parseQuery()
	return q, p.diags
}

// parser is a recursive-descent parser over a slice of tokens belonging to
// one query. Whitespace tokens stay in the slice because they are
// significant: whitespace is the descendant combinator, and parts of a
// compound selector must be adjacent.
type parser struct {
	src     string
	toks    []tok // the query's tokens (no newlines, no comments)
	all     []tok // toks and, after them, an lEOF token at end
	pos     int
	d       Dialect
	end     int // offset reported for "end of query"
	diags   []syntax.Diagnostic
	diag0   int // diagnostics before this query's (files share one slice)
	q       *Query
	a       *arena // where the AST's nodes are allocated
	depth   int    // parentheses being parsed
	tooDeep bool   // the query nests beyond maxNesting
}

// maxNesting bounds how deeply parentheses nest in one query, so that a
// hostile query cannot exhaust the stack.
const maxNesting = 256

// nest enters one level of parentheses. Beyond maxNesting it reports an
// error, skips the rest of the query and returns false; the caller then
// returns nil without calling unnest.
func (p *parser) nest() bool {
	if p.depth >= maxNesting {
		t := p.cur()
		p.errorf(syntax.Sp(t.start, p.end), "parentheses nested deeper than %d levels", maxNesting)
		p.tooDeep = true
		p.pos = len(p.toks)
		return false
	}
	p.depth++
	return true
}

func (p *parser) unnest() { p.depth-- }

// cur returns the current token, or an lEOF token at the end.
func (p *parser) cur() tok { return p.all[p.pos] }

// peekAt returns the token k positions ahead.
func (p *parser) peekAt(k int) tok {
	if p.pos+k < len(p.toks) {
		return p.toks[p.pos+k]
	}
	return tok{kind: lEOF, start: p.end, end: p.end}
}

func (p *parser) is(k lexKind) bool { return p.all[p.pos].kind == k }

func (p *parser) next() tok {
	if p.pos < len(p.toks) {
		p.pos++
		return p.toks[p.pos-1]
	}
	return tok{kind: lEOF, start: p.end, end: p.end}
}

// mark sets the semantic kind of the token just before the cursor.
func (p *parser) mark(k TokenKind) {
	if p.pos > 0 && p.pos <= len(p.toks) {
		p.toks[p.pos-1].sem = k
	}
}

// take consumes the current token and gives it semantic kind k (at the
// end, the last token gets it). It returns the token as it was.
func (p *parser) take(k TokenKind) tok {
	if p.pos < len(p.toks) {
		t := p.toks[p.pos]
		p.toks[p.pos].sem = k
		p.pos++
		return t
	}
	p.mark(k)
	return tok{kind: lEOF, start: p.end, end: p.end}
}

// skipWS skips whitespace and reports whether there was any.
func (p *parser) skipWS() bool {
	any := false
	for p.is(lSpace) {
		p.pos++
		any = true
	}
	return any
}

func (p *parser) text(t tok) string { return p.src[t.start:t.end] }

// describe names a token for "found ..." in messages.
func (p *parser) describe(t tok) string {
	switch t.kind {
	case lEOF:
		return "end of query"
	case lSpace:
		return "whitespace"
	}
	s := p.text(t)
	if len(s) > 24 {
		s = s[:24] + "..."
	}
	return strconv.Quote(s)
}

func (p *parser) errorf(sp syntax.Span, format string, args ...any) {
	if p.q != nil {
		p.q.Bad = true
	}
	if p.tooDeep {
		return // the rest of the query was skipped; its errors would be noise
	}
	// One error per position: a failed rule's callers tend to report the
	// same token again.
	if n := len(p.diags); n > 0 && p.diags[n-1].Span.Start == sp.Start && n > p.diag0 {
		return
	}
	d := syntax.Errorf(sp, format, args...)
	d.Code = CodeSyntax
	p.diags = append(p.diags, d)
}

// expected reports "expected WHAT, found TOKEN" at the current token.
func (p *parser) expected(what string) {
	t := p.cur()
	p.errorf(t.span(), "expected %s, found %s", what, p.describe(t))
}

func (p *parser) legacy(kind LegacyKind, n Node, value string) {
	p.q.Legacy = append(p.q.Legacy, alloc(&p.a.legacy, Legacy{Sp: n.Span(), Kind: kind, Node: n, Value: value}))
}

// lastEnd returns the end of the last consumed non-space token.
func (p *parser) lastEnd(def int) int {
	for i := p.pos - 1; i >= 0; i-- {
		if p.toks[i].kind != lSpace {
			return p.toks[i].end
		}
	}
	return def
}

func (p *parser) v2() bool { return p.d != V1 }

// parseQuery parses the whole token slice as one query.
func (p *parser) parseQuery() *Query {
	q := alloc(&p.a.query, Query{Dialect: p.d})
	p.q = q
	p.skipWS()
	start := p.cur().start
	if k := p.cur().kind; k == lTime || k == lAtStar {
		q.Time = p.parseTime()
		if !p.skipWS() && !p.is(lEOF) {
			p.expected("whitespace after the time prefix")
		}
	}
	switch {
	case p.is(lEOF):
		p.expected("a selector")
	case p.v2() && (p.is(lControl) || p.is(lLBrack)):
		p.expected("a selector before filters and controls")
	default:
		q.Expr = p.parseExpr()
	}
	if p.v2() {
		p.parseTrailer(q)
	}
	p.skipWS()
	if !p.is(lEOF) {
		switch {
		case p.v2() && p.is(lQQ) && (q.Props != nil || q.Behavior != nil || len(q.Controls) > 0):
			t := p.cur()
			p.errorf(t.span(), "unexpected \"??\" after the query's filter blocks or controls: they apply to the whole query, so a fallback \"A ?? B\" comes before them")
		case p.v2():
			p.expected("a combinator, \"??\", a {...} or [...] filter block, or a control")
		default:
			p.expected("a combinator, \",\" or the end of the selector")
		}
		// Skip the rest: the query is already known to be bad.
		p.pos = len(p.toks)
	}
	q.Sp = syntax.Sp(start, max(start, p.lastEnd(start)))
	slices.SortStableFunc(q.Legacy, func(a, b *Legacy) int { return a.Sp.Start - b.Sp.Start })
	return q
}

// parseTime parses a snapshot reference or range at the current lTime/lAtStar token.
func (p *parser) parseTime() *Time {
	tm := alloc(&p.a.time, Time{})
	first := p.cur()
	if p.text(first) == "@history" {
		p.take(TokenTime)
		tm.History = true
		tm.Sp = first.span()
		if !p.v2() {
			p.errorf(first.span(), "@history is a v2 form; v1 selectors use @t0..@tN ranges")
		}
		if k := p.cur().kind; (k == lDotDot || k == lColon) && p.adjacent() {
			op := p.take(TokenOperator)
			p.errorf(op.span(), "@history is already the range @t0..@t-*; expected whitespace and a selector after it, found %s", p.describe(op))
			if k := p.cur().kind; k == lTime || k == lAtStar || k == lMinus || k == lNumber || k == lPlus {
				p.parseTimeAtom(true)
			}
			tm.Sp.End = p.lastEnd(tm.Sp.End)
		}
		return tm
	}
	tm.From = p.parseTimeAtom(false)
	tm.Sp = tm.From.Sp
	if k := p.cur().kind; k == lDotDot || k == lColon {
		op := p.take(TokenOperator)
		tm.RangeOp = p.text(op)
		tm.OpSpan = op.span()
		tm.To = p.parseTimeAtom(true)
		tm.Sp = syntax.Sp(tm.From.Sp.Start, max(tm.To.Sp.End, op.end))
		p.checkRange(tm)
	}
	return tm
}

// parseTimeAtom parses "@t0", "@t-1", "@c42", "@*", or (as a range end) a
// bare "-1", "3" or "+2".
func (p *parser) parseTimeAtom(rangeEnd bool) *TimeAtom {
	t := p.cur()
	a := alloc(&p.a.atom, TimeAtom{Sp: t.span()})
	switch t.kind {
	case lAtStar:
		p.take(TokenTime)
		a.Kind = TimeAll
		return a
	case lTime:
		p.take(TokenTime)
		s := p.text(t)
		if s == "@history" {
			p.errorf(t.span(), "@history cannot be a range endpoint")
			a.Invalid = true
			return a
		}
		if t.bad {
			p.errorf(t.span(), "expected a snapshot offset after \"@t\" (as in @t0 or @t-1), found %s", p.describe(t))
			a.Invalid = true
			return a
		}
		if s[1] == 'c' {
			a.Kind = TimeCycle
			a.Value = p.atoi(s[2:], t.span())
			return a
		}
		rel := s[2:]
		if rel == "-*" || rel == "*" || rel == "+*" {
			a.Oldest = true
			if rel != "-*" {
				p.errorf(t.span(), "expected \"@t-*\" for the oldest snapshot, found %s", p.describe(t))
			}
			if !p.v2() {
				p.errorf(t.span(), "\"@t-*\" is a v2 form")
			}
			return a
		}
		if rel[0] == '+' {
			if !p.v2() {
				p.errorf(t.span(), "expected \"@t0\" or \"@t-N\", found %s (v1 has no future snapshots)", p.describe(t))
			}
		}
		a.Value = p.atoi(rel, t.span())
		return a
	case lMinus, lPlus, lNumber:
		if rangeEnd {
			sign := 1
			start := t.start
			if t.kind != lNumber {
				p.take(TokenOperator)
				if t.kind == lMinus {
					sign = -1
				}
				if !p.is(lNumber) || p.cur().start != t.end {
					p.expected("a snapshot offset digit")
					a.Invalid = true
					a.Bare = true
					return a
				}
			}
			n := p.take(TokenNumber)
			a.Sp = syntax.Sp(start, n.end)
			a.Bare = true
			a.Value = sign * p.atoi(p.text(n), n.span())
			if t.kind == lPlus && !p.v2() {
				p.errorf(a.Sp, "expected \"-N\" or \"0\" as a range end, found %s (v1 has no future snapshots)", strconv.Quote(p.src[a.Sp.Start:a.Sp.End]))
			}
			return a
		}
	}
	p.expected("a snapshot reference (@t0, @t-1, @cN)")
	a.Invalid = true
	a.Sp = syntax.Sp(t.start, t.start)
	return a
}

// checkRange enforces the range endpoint constraints of both dialects.
func (p *parser) checkRange(tm *Time) {
	from, to := tm.From, tm.To
	if from.Invalid || to.Invalid {
		return
	}
	if from.Kind == TimeAll || to.Kind == TimeAll {
		sp := from.Sp
		if to.Kind == TimeAll {
			sp = to.Sp
		}
		p.errorf(sp, "\"@*\" cannot appear inside a snapshot range; expected @tN or @cN endpoints")
		return
	}
	if from.Oldest && !to.Oldest {
		p.errorf(from.Sp, "\"@t-*\" can only end a range")
	}
	if to.Bare {
		to.Kind = from.Kind
		return
	}
	if from.Kind != to.Kind {
		p.errorf(syntax.Sp(from.Sp.Start, to.Sp.End), "range endpoints must be the same kind (@t..@t or @c..@c), found %s", strconv.Quote(p.src[from.Sp.Start:to.Sp.End]))
	}
}

func (p *parser) atoi(s string, sp syntax.Span) int {
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<31 || n < -(1<<31) {
		p.errorf(sp, "number %s is out of range", strconv.Quote(s))
		return 0
	}
	return n
}

// parseExpr parses a fallback of unions of primaries:
//
//	expr    = union { "??" union }
//	union   = primary { "," primary }
func (p *parser) parseExpr() Expr {
	left := p.parseUnion()
	for {
		save := p.pos
		p.skipWS()
		if !p.is(lQQ) {
			p.pos = save
			return left
		}
		op := p.take(TokenOperator)
		if !p.v2() {
			p.errorf(op.span(), "\"??\" fallback is a v2 form")
		}
		p.skipWS()
		var right Expr
		if p.isPrimaryStart() {
			right = p.parseUnion()
		} else {
			p.expected("a selector after \"??\"")
		}
		f := alloc(&p.a.fallback, Fallback{Left: left, Right: right, OpSpan: op.span()})
		f.Sp = spanOf(left, op.span()).Union(spanOf(right, op.span()))
		left = f
	}
}

func spanOf(e Expr, def syntax.Span) syntax.Span {
	if e == nil {
		return def
	}
	return e.Span()
}

func (p *parser) parseUnion() Expr {
	first := p.parsePrimary()
	var u *Union
	for {
		save := p.pos
		p.skipWS()
		if !p.is(lComma) {
			p.pos = save
			break
		}
		comma := p.take(TokenPunct)
		if p.v2() {
			p.errorf(comma.span(), "comma groups are a v1 form; expected \"??\" or a filter block")
		}
		if u == nil {
			u = &Union{Items: []Expr{first}}
		}
		u.Commas = append(u.Commas, comma.span())
		p.skipWS()
		if !p.isPrimaryStart() {
			p.expected("a selector after \",\"")
			break
		}
		u.Items = append(u.Items, p.parsePrimary())
	}
	if u == nil {
		return first
	}
	u.Items = slices.DeleteFunc(u.Items, func(e Expr) bool { return e == nil })
	sp := syntax.Span{}
	for _, it := range u.Items {
		sp = sp.Union(it.Span())
	}
	for _, c := range u.Commas {
		sp = sp.Union(c)
	}
	u.Sp = sp
	return u
}

func (p *parser) isPrimaryStart() bool {
	if p.v2() && p.is(lLBrace) {
		return true
	}
	return p.isStepStart()
}

// isStepStart reports whether the current token can begin a step.
func (p *parser) isStepStart() bool {
	t := p.cur()
	switch t.kind {
	case lDot, lHash, lCaret, lStar, lColon:
		return true
	case lLBrack:
		return !p.v2() // in v2 a spaced "[" starts the behavior block
	case lLParen:
		return p.v2()
	case lPlus:
		return p.v2() && p.peekAt(1).kind == lIdent && p.peekAt(1).start == t.end
	case lIdent:
		return p.v2() && p.isDepthStart()
	}
	return false
}

// isDepthStart reports whether the current identifier starts a depth
// reference: "dN", "d-1", "dA..dB" or "depth(".
func (p *parser) isDepthStart() bool {
	t := p.cur()
	if t.kind != lIdent {
		return false
	}
	s := p.text(t)
	if s == "depth" {
		n := p.peekAt(1)
		return n.kind == lLParen && n.start == t.end
	}
	return isDepthIdent(s)
}

func isDepthIdent(s string) bool {
	if len(s) < 2 || s[0] != 'd' {
		return false
	}
	s = s[1:]
	if s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parsePrimary parses a chain or a standalone "{...}" property search.
func (p *parser) parsePrimary() Expr {
	if p.v2() && p.is(lLBrace) {
		b := p.parseBlock(BlockBrace)
		return &PropSearch{Sp: b.Sp, Block: b}
	}
	if !p.isStepStart() {
		if p.v2() {
			p.expected("a selector (a type anchor \".seg\", \"#key\", \"+tag\", a root \"^seq\", a depth \"d1\", \"*\", a position \"(d1, ...)\" or \"{...}\")")
		} else {
			p.expected("a selector (a root \"^seq\", \"#id\", a type \".mt\", \"*\", \"[attr]\" or \":pseudo\")")
		}
		return nil
	}
	return p.parseChain()
}

// parseChain parses "[scope] step { combinator step }".
func (p *parser) parseChain() Expr {
	c := alloc(&p.a.chain, Chain{})
	start := p.cur().start
	if p.v2() && p.isDepthStart() {
		save := p.pos
		d := p.parseDepth()
		after := p.pos
		hadSpace := p.skipWS()
		if hadSpace && !p.is(lGt) && p.isStepStart() {
			c.Scope = d
		} else {
			// Not a scope: the depth is the first step ("depth(0) > .cont").
			p.pos = save
			_ = after
		}
	}
	comb := CombNone
	combSpan := syntax.Span{}
	for {
		st := p.parseStep(comb, combSpan)
		if st != nil {
			c.Steps = p.a.stepPtrs.add(c.Steps, st, 4)
		}
		save := p.pos
		hadSpace := p.skipWS()
		if p.is(lGt) {
			gt := p.take(TokenCombinator)
			p.skipWS()
			if !p.isStepStart() {
				p.expected("a selector step after \">\"")
				break
			}
			comb, combSpan = CombChild, gt.span()
			continue
		}
		if hadSpace && p.isStepStart() {
			comb, combSpan = CombDescendant, syntax.Span{}
			continue
		}
		p.pos = save
		break
	}
	c.Sp = syntax.Sp(start, max(start, p.lastEnd(start)))
	if c.Scope == nil && len(c.Steps) == 0 {
		return nil
	}
	return c
}

// parseStep parses one step: a compound selector or, in v2, a parenthesised
// group. It returns nil (after reporting) when nothing could be parsed.
func (p *parser) parseStep(comb Combinator, combSpan syntax.Span) *Step {
	st := alloc(&p.a.step, Step{Comb: comb, CombSpan: combSpan})
	start := p.cur().start
	if combSpan != (syntax.Span{}) {
		start = combSpan.Start
	}
	if p.is(lLParen) && p.v2() {
		st.Group = p.parseGroup()
		if st.Group == nil {
			return nil
		}
		st.Sp = syntax.Sp(start, st.Group.Span().End)
		return st
	}
	sel := p.parseCompound(false)
	if sel == nil {
		p.expected("a selector step")
		return nil
	}
	st.Sel = sel
	st.Sp = syntax.Sp(start, sel.Sp.End)
	return st
}

// knownPseudo reports whether name is a pseudo-class; a ":" followed by one
// starts a pseudo, any other ":" continues a namespaced name.
func knownPseudo(name string) bool {
	switch name {
	case "pre", "core", "post", "first", "last", "nth", "depth":
		return true
	}
	return false
}

// adjacent reports whether the current token starts where the previous one ended.
func (p *parser) adjacent() bool {
	return p.pos > 0 && p.pos < len(p.toks) && p.toks[p.pos-1].end == p.toks[p.pos].start
}

// parseCompound parses adjacent compound parts. In a position hop (hop set)
// a bare identifier is a type name ("seg", "cont[offset=0]"). It returns nil
// when the current token starts no part.
func (p *parser) parseCompound(hop bool) *Compound {
	c := alloc(&p.a.compound, Compound{})
	start := p.cur().start
	parts := 0
	for {
		if parts > 0 && !p.adjacent() {
			break
		}
		t := p.cur()
		ok := true
		switch t.kind {
		case lStar:
			p.take(TokenType)
			if c.Universal {
				p.errorf(t.span(), "duplicate \"*\"")
			}
			c.Universal = true
			c.UnivSpan = t.span()
			if p.is(lAt) && p.adjacent() {
				p.parseOffsetAt(c, t)
			}
		case lCaret:
			p.parseRoot(c, parts)
		case lDot:
			p.parseType(c)
		case lHash:
			p.parseHash(c)
		case lPlus:
			n := p.peekAt(1)
			if !p.v2() || n.kind != lIdent || n.start != t.end {
				ok = false
				break
			}
			p.take(TokenTag)
			name := p.take(TokenTag)
			c.Tags = append(c.Tags, alloc(&p.a.tag, Tag{Sp: syntax.Sp(t.start, name.end), Name: p.text(name), NameSpan: name.span()}))
		case lLBrack:
			if parts == 0 && p.v2() && !hop {
				ok = false
				break
			}
			b := p.parseBlock(BlockBracket)
			if c.Attrs == nil {
				c.Attrs = b.Items // the block's own list: no copy needed
			} else {
				c.Attrs = append(c.Attrs, b.Items...)
			}
		case lLParen:
			if len(c.Types) == 0 || p.toks[p.pos-1].sem != TokenType {
				ok = false // grouped filters follow a type name directly
				break
			}
			p.parseGrouped(c)
		case lColon:
			n := p.peekAt(1)
			if n.kind == lIdent && n.start == t.end && !knownPseudo(p.text(n)) && c.Universal && len(c.Types) == 0 && p.v2() {
				// "*:block": any node of type block.
				p.take(TokenType)
				name := p.take(TokenType)
				c.Types = p.a.typePtrs.add(c.Types, alloc(&p.a.typeSel, TypeSel{Sp: syntax.Sp(t.start, name.end), Name: p.text(name), Base: p.text(name), BaseSpan: name.span()}), 2)
				break
			}
			p.parsePseudo(c)
		case lIdent:
			switch {
			case parts == 0 && p.v2() && p.isDepthStart():
				c.Depth = p.parseDepth()
			case parts == 0 && hop:
				name := p.take(TokenType)
				c.Types = p.a.typePtrs.add(c.Types, alloc(&p.a.typeSel, TypeSel{Sp: name.span(), Name: p.text(name), Base: p.text(name), BaseSpan: name.span()}), 2)
			default:
				ok = false
			}
		default:
			ok = false
		}
		if !ok {
			break
		}
		parts++
	}
	if parts == 0 {
		return nil
	}
	c.Sp = syntax.Sp(start, max(start, p.lastEnd(start)))
	return c
}

// parseOffsetAt parses the legacy "*@+" / "*@-" after the "*".
func (p *parser) parseOffsetAt(c *Compound, star tok) {
	at := p.take(TokenInvalid)
	sign := p.cur()
	if (sign.kind == lPlus || sign.kind == lMinus) && sign.start == at.end {
		p.take(TokenOperator)
		sp := syntax.Sp(star.start, sign.end)
		p.q.Legacy = append(p.q.Legacy, alloc(&p.a.legacy, Legacy{Sp: sp, Kind: LegacyOffsetAt, Node: c, Value: p.text(sign)}))
		if !p.v2() {
			p.errorf(sp, "\"*@%s\" is not a v1 form", p.text(sign))
		}
		return
	}
	p.errorf(at.span(), "expected \"+\" or \"-\" after \"*@\", found %s", p.describe(sign))
}

func (p *parser) parseRoot(c *Compound, parts int) {
	caret := p.take(TokenRoot)
	if !p.is(lIdent) || !p.adjacent() {
		p.expected("a root name after \"^\" (sys, seq, ah or root)")
		return
	}
	name := p.take(TokenRoot)
	r := alloc(&p.a.root, Root{Sp: syntax.Sp(caret.start, name.end), Name: p.text(name)})
	switch r.Name {
	case "sys", "seq", "ah", "root":
	default:
		p.errorf(name.span(), "expected a root name (sys, seq, ah or root), found %s", p.describe(name))
	}
	if c.Root != nil {
		p.errorf(r.Sp, "a step has at most one root")
	} else if parts > 0 {
		p.errorf(r.Sp, "a root must start its step")
	}
	c.Root = r
}

// parseType parses ".name" and ".base:sub" (v1 namespaced type, v2 type sugar).
func (p *parser) parseType(c *Compound) {
	dot := p.take(TokenType)
	if !p.is(lIdent) || !p.adjacent() {
		p.expected("a type name after \".\"")
		return
	}
	base := p.take(TokenType)
	ts := alloc(&p.a.typeSel, TypeSel{Base: p.text(base), BaseSpan: base.span()})
	end := base.end
	subStart := -1
	for p.is(lColon) && p.adjacent() {
		n := p.peekAt(1)
		if n.start != p.cur().end || !(n.kind == lIdent || n.kind == lNumber) || knownPseudo(p.text(n)) {
			break
		}
		p.take(TokenType)
		if subStart < 0 {
			subStart = n.start
		}
		end = p.take(TokenType).end
	}
	ts.Sp = syntax.Sp(dot.start, end)
	ts.Name = p.src[base.start:end]
	if subStart >= 0 {
		ts.Sub = p.src[subStart:end]
		ts.SubSpan = syntax.Sp(subStart, end)
		if p.v2() {
			p.legacy(LegacyBaseTypeSugar, ts, ts.Sub)
		}
	}
	c.Types = p.a.typePtrs.add(c.Types, ts, 2)
}

// parseHash parses "#id" (v1) or "#key" / "#'quoted key'" (v2). Unquoted
// values join adjacent identifiers, numbers and ":"-separated parts, so
// "#cb:u2" is one id; a ":" followed by a pseudo-class name ends the value.
func (p *parser) parseHash(c *Compound) {
	hash := p.take(TokenHash)
	h := alloc(&p.a.hash, Hash{})
	if p.is(lString) && p.adjacent() {
		s := p.take(TokenHash)
		h.Quoted = true
		h.ValueSpan = s.span()
		h.Value = p.unquote(s)
		if !p.v2() {
			p.errorf(s.span(), "quoted ids are a v2 form (quoted keys)")
		}
	} else {
		start := p.cur().start
		end := -1
		for p.adjacent() {
			k := p.cur().kind
			if k == lIdent || k == lNumber || k == lMinus {
				end = p.take(TokenHash).end
				continue
			}
			if k == lColon && end >= 0 {
				n := p.peekAt(1)
				if n.start == p.cur().end && (n.kind == lIdent || n.kind == lNumber) && !knownPseudo(p.text(n)) {
					p.take(TokenHash)
					continue
				}
			}
			break
		}
		if end < 0 {
			if p.v2() {
				p.expected("a key after \"#\"")
			} else {
				p.expected("an id after \"#\"")
			}
			end = hash.end
			start = hash.end
		}
		h.ValueSpan = syntax.Sp(start, end)
		h.Value = p.src[start:end]
	}
	h.Sp = syntax.Sp(hash.start, max(hash.end, h.ValueSpan.End))
	c.Hashes = p.a.hashPtrs.add(c.Hashes, h, 1)
}

// unquote resolves the escapes of a string token.
func (p *parser) unquote(t tok) string {
	raw := p.text(t)
	if t.bad {
		p.errorf(t.span(), "unterminated string; expected a closing %s", raw[:1])
		raw = raw[1:]
	} else {
		raw = raw[1 : len(raw)-1]
	}
	if !strings.Contains(raw, "\\") {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// parsePseudo parses ":name" or ":name(args)".
func (p *parser) parsePseudo(c *Compound) {
	colon := p.take(TokenPseudo)
	if !p.is(lIdent) || !p.adjacent() {
		p.expected("a pseudo-class name after \":\" (pre, core, post, first, last, nth or depth)")
		return
	}
	name := p.take(TokenPseudo)
	ps := alloc(&p.a.pseudo, Pseudo{Name: p.text(name), NameSpan: name.span()})
	if !knownPseudo(ps.Name) {
		p.errorf(name.span(), "expected a pseudo-class (pre, core, post, first, last, nth or depth), found %s", p.describe(name))
	}
	end := name.end
	var first tok // the first token inside the parentheses
	argErr := false
	if p.is(lLParen) && p.adjacent() {
		lp := p.take(TokenPunct)
		ps.HasParens = true
		save := p.pos
		p.skipWS()
		first = p.cur()
		p.pos = save
		nd := len(p.diags)
		p.parsePseudoArgs(ps)
		argErr = len(p.diags) > nd
		p.skipWS()
		if !p.is(lRParen) {
			p.expected(fmt.Sprintf("\")\" to close :%s(", ps.Name))
			argErr = true
			p.skipTo(lRParen)
		}
		if p.is(lRParen) {
			rp := p.take(TokenPunct)
			ps.ArgsSpan = syntax.Sp(lp.end, rp.start)
			end = rp.end
		} else {
			end = p.lastEnd(lp.end)
			ps.ArgsSpan = syntax.Sp(lp.end, end)
		}
	}
	ps.Sp = syntax.Sp(colon.start, end)
	switch ps.Name {
	case "depth":
		if !ps.HasParens {
			p.errorf(ps.Sp, "expected a depth list after :depth, as in :depth(1) or :depth(1-3)")
		} else if len(ps.Args) == 0 && !argErr {
			p.errorf(first.span(), "expected a depth list inside :depth(), found %s", p.describe(first))
		}
		if p.v2() {
			p.legacy(LegacyDepthPseudo, ps, p.src[ps.ArgsSpan.Start:ps.ArgsSpan.End])
		}
	case "nth":
		if !ps.HasParens || len(ps.Args) == 0 {
			if !ps.HasParens {
				p.errorf(ps.Sp, "expected an index after :nth, as in :nth(2)")
			} else if !argErr {
				p.errorf(first.span(), "expected an index inside :nth(), found %s", p.describe(first))
			}
		} else if len(ps.Args) > 1 || ps.Args[0].Hi != nil || ps.Args[0].Value.Kind != ValueNumber {
			p.errorf(ps.ArgsSpan, "expected one integer index inside :nth()")
		}
	default:
		if ps.HasParens {
			p.errorf(ps.ArgsSpan, "expected no arguments: :%s takes none", ps.Name)
		}
	}
	if ps.Name == "depth" || ps.Name == "nth" {
		for _, a := range ps.Args {
			for _, v := range []*Value{a.Value, a.Hi} {
				if v != nil && (v.Kind != ValueNumber || v.Num != float64(int(v.Num))) {
					p.errorf(v.Sp, "expected an integer, found %s", strconv.Quote(v.Raw))
				}
			}
		}
	}
	c.Pseudos = p.a.pseudoPtrs.add(c.Pseudos, ps, 1)
}

// parsePseudoArgs parses "v {, v}" where v is a value or a range "1-3".
func (p *parser) parsePseudoArgs(ps *Pseudo) {
	for {
		p.skipWS()
		if p.is(lRParen) || p.is(lEOF) {
			if len(ps.Args) > 0 {
				p.expected("a value after \",\"")
			}
			return
		}
		v := p.parseValue()
		if v == nil {
			if len(ps.Args) > 0 || (ps.Name != "depth" && ps.Name != "nth") {
				p.expected(fmt.Sprintf("a value inside :%s()", ps.Name))
			} else if ps.Name == "depth" {
				p.expected("a depth list inside :depth()")
			} else {
				p.expected("an index inside :nth()")
			}
			p.skipTo(lRParen)
			return
		}
		a := alloc(&p.a.parg, PseudoArg{Sp: v.Sp, Value: v})
		if p.is(lMinus) && p.adjacent() {
			p.take(TokenOperator)
			hi := p.parseValue()
			if hi == nil {
				p.expected("the end of the range")
			} else {
				a.Hi = hi
				a.Sp = syntax.Sp(v.Sp.Start, hi.Sp.End)
			}
		}
		ps.Args = append(ps.Args, a)
		p.skipWS()
		if !p.is(lComma) {
			return
		}
		p.take(TokenPunct)
	}
}

// parseValue parses a literal: a signed number, a string or an identifier
// (identifiers join ":"-separated parts, as in cb:summary). It returns nil
// without consuming when none starts here.
func (p *parser) parseValue() *Value {
	t := p.cur()
	switch t.kind {
	case lNumber:
		p.take(TokenNumber)
		return p.number(t.start, t.end)
	case lMinus, lPlus:
		n := p.peekAt(1)
		if n.kind != lNumber || n.start != t.end {
			return nil
		}
		p.take(TokenNumber)
		p.take(TokenNumber)
		return p.number(t.start, n.end)
	case lString:
		p.take(TokenString)
		return alloc(&p.a.value, Value{Sp: t.span(), Kind: ValueString, Raw: p.text(t), Text: p.unquote(t)})
	case lIdent:
		p.take(TokenIdent)
		end := t.end
		for p.is(lColon) && p.adjacent() {
			n := p.peekAt(1)
			if n.start != p.cur().end || !(n.kind == lIdent || n.kind == lNumber) {
				break
			}
			p.take(TokenIdent)
			end = p.take(TokenIdent).end
		}
		s := p.src[t.start:end]
		return alloc(&p.a.value, Value{Sp: syntax.Sp(t.start, end), Kind: ValueIdent, Raw: s, Text: s})
	}
	return nil
}

// smallInt returns the value of s, an optionally signed run of at most 15
// decimal digits, as strconv.ParseFloat does (every such integer is exact
// in a float64, and "-0" is negative zero); ok is false for other text.
func smallInt(s string) (float64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	f := float64(n)
	if neg {
		f = -f
	}
	return f, true
}

func (p *parser) number(start, end int) *Value {
	s := p.src[start:end]
	v := alloc(&p.a.value, Value{Sp: syntax.Sp(start, end), Kind: ValueNumber, Raw: s, Text: s})
	if f, ok := smallInt(s); ok {
		v.Num = f
		return v
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.errorf(v.Sp, "number %s is out of range", strconv.Quote(s))
	}
	v.Num = f
	return v
}

// parseDepth parses "dN", "d-1", "dA..dB", "dA..B" or "depth(N)".
func (p *parser) parseDepth() *DepthRef {
	t := p.take(TokenDepth)
	s := p.text(t)
	d := alloc(&p.a.depth, DepthRef{Sp: t.span()})
	if s == "depth" {
		d.Keyword = true
		p.take(TokenPunct) // "("
		p.skipWS()
		v := p.parseValue()
		if v == nil || v.Kind != ValueNumber || v.Num != float64(int(v.Num)) {
			if v == nil {
				p.expected("a depth inside depth()")
			} else {
				p.errorf(v.Sp, "expected an integer depth, found %s", strconv.Quote(v.Raw))
			}
		} else {
			d.From = int(v.Num)
		}
		d.To = d.From
		p.skipWS()
		if p.is(lRParen) {
			d.Sp.End = p.take(TokenPunct).end
		} else {
			p.expected("\")\" to close depth(")
			d.Sp.End = p.lastEnd(t.end)
		}
		p.checkDepth(d, d.From)
		return d
	}
	d.From = p.atoi(s[1:], t.span())
	d.To = d.From
	p.checkDepth(d, d.From)
	if p.is(lDotDot) && p.adjacent() {
		op := p.take(TokenDepth)
		d.Range = true
		n := p.cur()
		switch {
		case n.kind == lIdent && n.start == op.end && isDepthIdent(p.text(n)):
			p.take(TokenDepth)
			d.To = p.atoi(p.text(n)[1:], n.span())
			d.Sp.End = n.end
		case (n.kind == lNumber || n.kind == lMinus) && n.start == op.end:
			v := p.parseValue()
			if v != nil {
				d.To = int(v.Num)
				d.Sp.End = v.Sp.End
			} else {
				p.expected("a depth after \"..\"")
			}
		default:
			p.expected("a depth after \"..\" (as in d1..d3)")
			d.Sp.End = op.end
		}
		p.checkDepth(d, d.To)
		if d.To < d.From {
			p.errorf(d.Sp, "depth range %s is reversed; expected the smaller depth first", strconv.Quote(p.src[d.Sp.Start:d.Sp.End]))
		}
	}
	return d
}

func (p *parser) checkDepth(d *DepthRef, n int) {
	if n < -1 {
		p.errorf(d.Sp, "depth %d is below -1 (d-1 is the system container)", n)
	}
}

// parseGrouped parses the grouped shorthand ".type(a=1 b=2)".
func (p *parser) parseGrouped(c *Compound) {
	lp := p.take(TokenPunct)
	b := alloc(&p.a.block, Block{Kind: BlockGroup})
	p.parseItems(b, lRParen)
	end := lp.end
	if p.is(lRParen) {
		end = p.take(TokenPunct).end
	} else {
		p.expected("\")\" to close the grouped filters")
		end = p.lastEnd(end)
	}
	b.Sp = syntax.Sp(lp.start, end)
	c.Attrs = append(c.Attrs, b.Items...)
	if p.v2() {
		p.legacy(LegacyGrouped, b, "")
	} else {
		p.errorf(b.Sp, "grouped filters \"(...)\" are a v2 form; v1 uses [key=value]")
	}
}

// parseBlock parses "{...}" or "[...]" at the current token.
func (p *parser) parseBlock(kind BlockKind) *Block {
	open := p.take(TokenPunct)
	closer, closeText := lRBrack, "]"
	if kind == BlockBrace {
		closer, closeText = lRBrace, "}"
	}
	b := alloc(&p.a.block, Block{Kind: kind})
	p.parseItems(b, closer)
	end := open.end
	if p.is(closer) {
		end = p.take(TokenPunct).end
	} else {
		p.expected(fmt.Sprintf("%q to close the filter block", closeText))
		// Recover: skip to the closer on this query if there is one.
		for !p.is(lEOF) && !p.is(closer) {
			p.next()
		}
		if p.is(closer) {
			end = p.take(TokenPunct).end
		} else {
			end = p.lastEnd(end)
		}
	}
	b.Sp = syntax.Sp(open.start, end)
	return b
}

// parseItems parses filters separated by commas or whitespace up to closer.
func (p *parser) parseItems(b *Block, closer lexKind) {
	for {
		p.skipWS()
		if p.is(closer) || p.is(lEOF) {
			if len(b.Items) == 0 {
				p.expected("a filter (key, key=value)")
			}
			return
		}
		a := p.parseAttr(b.Kind)
		if a == nil {
			return
		}
		b.Items = p.a.attrPtrs.add(b.Items, a, 4)
		if !p.v2() {
			return // a v1 attribute filter holds one condition
		}
		p.skipWS()
		if p.is(lComma) {
			p.take(TokenPunct)
			p.skipWS()
			if p.is(closer) {
				p.expected("a filter after \",\"")
				return
			}
		}
	}
}

// parseAttr parses "key", "key op value", "key in [v, ...]" or "key = [v, ...]".
func (p *parser) parseAttr(kind BlockKind) *Attr {
	key := p.cur()
	if key.kind != lIdent {
		p.expected("a filter key")
		return nil
	}
	p.take(TokenAttrKey)
	a := alloc(&p.a.attr, Attr{Key: p.text(key), KeySpan: key.span(), Kind: kind, Sp: key.span()})
	save := p.pos
	p.skipWS()
	opTok := p.cur()
	op := OpExists
	switch opTok.kind {
	case lEq:
		op = OpEq
	case lNe:
		op = OpNe
	case lLt:
		op = OpLt
	case lLe:
		op = OpLe
	case lGt:
		op = OpGt
	case lGe:
		op = OpGe
	case lTilde:
		op = OpMatch
	case lIdent:
		if p.text(opTok) == "in" && p.v2() {
			op = OpIn
		}
	}
	if op == OpExists {
		p.pos = save
		if kind == BlockBrace {
			p.skipWS()
			p.expected(fmt.Sprintf("an operator after %q (=, !=, <, <=, >, >=, ~ or in)", a.Key))
		}
		p.markLegacyProp(a)
		return a
	}
	if op == OpIn {
		p.take(TokenKeyword)
	} else {
		p.take(TokenOperator)
	}
	a.OpSpan = opTok.span()
	if op == OpMatch && !p.v2() {
		p.errorf(opTok.span(), "\"~\" is a v2 operator")
	}
	p.skipWS()
	if (op == OpIn || op == OpEq) && p.is(lLBrack) && p.v2() {
		a.Op = OpIn
		lb := p.take(TokenPunct)
		for {
			p.skipWS()
			v := p.parseValue()
			if v == nil {
				p.expected("a value in the list")
				break
			}
			a.Values = append(a.Values, v)
			p.skipWS()
			if !p.is(lComma) {
				break
			}
			p.take(TokenPunct)
		}
		p.skipWS()
		end := p.lastEnd(lb.end)
		if p.is(lRBrack) {
			end = p.take(TokenPunct).end
		} else {
			p.expected("\"]\" to close the value list")
		}
		a.Sp = syntax.Sp(key.start, end)
		p.markLegacyProp(a)
		return a
	}
	if op == OpIn {
		p.expected("a list [\"a\", \"b\"] after \"in\"")
		a.Op = OpIn
		a.Sp = syntax.Sp(key.start, opTok.end)
		return a
	}
	a.Op = op
	v := p.parseValue()
	if v == nil {
		p.expected(fmt.Sprintf("a value after %q", p.text(opTok)))
		a.Sp = syntax.Sp(key.start, opTok.end)
		return a
	}
	a.Value = v
	a.Sp = syntax.Sp(key.start, v.Sp.End)
	p.markLegacyProp(a)
	return a
}

func (p *parser) markLegacyProp(a *Attr) {
	if a.Kind == BlockBrace && (a.Key == "ttl" || a.Key == "cad") {
		p.legacy(LegacyBehaviorInProps, a, a.Key)
	}
}

// parseGroup parses a v2 parenthesised group at "(": a coordinate set
// "((d1,0),(d2,0,1))", a chain "( .seg .cont > .block )" or a position
// "(d1, seg, cont[offset=0], *:block)", with an optional "?" suffix.
func (p *parser) parseGroup() Expr {
	if !p.nest() {
		return nil
	}
	defer p.unnest()
	save := p.pos
	p.next()
	p.skipWS()
	t := p.cur()
	isSet := t.kind == lLParen
	isChain := false
	switch t.kind {
	case lDot, lHash, lCaret, lColon, lLBrace:
		isChain = true
	case lPlus:
		isChain = p.peekAt(1).kind == lIdent
	}
	p.pos = save
	var e Expr
	switch {
	case isSet:
		e = p.parseCoordSet()
	case isChain:
		lp := p.take(TokenPunct)
		p.skipWS()
		inner := p.parseExpr()
		p.skipWS()
		end := p.lastEnd(lp.end)
		if p.is(lRParen) {
			end = p.take(TokenPunct).end
		} else {
			p.expected("\")\" to close the parenthesised selector")
			p.skipTo(lRParen)
			if p.is(lRParen) {
				end = p.take(TokenPunct).end
			}
		}
		e = &Paren{Sp: syntax.Sp(lp.start, end), Inner: inner}
	default:
		e = p.parsePosition()
	}
	return e
}

// skipTo skips tokens up to (not including) the next k at nesting level 0.
func (p *parser) skipTo(k lexKind) {
	depth := 0
	for !p.is(lEOF) {
		switch p.cur().kind {
		case lLParen, lLBrack, lLBrace:
			depth++
		case lRParen, lRBrack, lRBrace:
			if depth == 0 {
				if p.is(k) {
					return
				}
				return
			}
			depth--
		case k:
			if depth == 0 {
				return
			}
		}
		p.next()
	}
}

func (p *parser) parseCoordSet() *CoordSet {
	lp := p.take(TokenPunct)
	cs := &CoordSet{}
	for {
		p.skipWS()
		if !p.is(lLParen) {
			p.expected("a coordinate \"(dK, ...)\"")
			p.skipTo(lRParen)
			break
		}
		pos := p.parsePosition()
		if !pos.IsCoordinate() {
			p.errorf(pos.Sp, "expected a coordinate (dK, offset, ...) in a coordinate set")
		}
		cs.Coords = append(cs.Coords, pos)
		p.skipWS()
		if !p.is(lComma) {
			break
		}
		p.take(TokenPunct)
	}
	p.skipWS()
	end := p.lastEnd(lp.end)
	if p.is(lRParen) {
		end = p.take(TokenPunct).end
	} else {
		p.expected("\")\" to close the coordinate set")
	}
	cs.Sp = syntax.Sp(lp.start, end)
	return cs
}

// parsePosition parses "(hop, hop, ...)" with an optional "?" suffix.
func (p *parser) parsePosition() *Position {
	lp := p.take(TokenPunct)
	pos := alloc(&p.a.position, Position{})
	var lastComma tok // the comma just consumed, if hasComma
	hasComma := false
	for {
		p.skipWS()
		if p.is(lRParen) || p.is(lEOF) {
			if hasComma {
				pos.Hops = p.a.hopPtrs.add(pos.Hops, alloc(&p.a.hop, Hop{Sp: lastComma.span(), Kind: HopInsert, Insert: InsertStart}), 4)
			} else if len(pos.Hops) == 0 {
				p.expected("a hop inside the position (as in (d1, 0) or (d1, seg, *:block))")
			}
			break
		}
		h := p.parseHop()
		if h == nil {
			p.expected("a hop (a depth dN, an offset, a type name, \"end\", \"+N\" or \"-N\")")
			p.skipHop()
		} else {
			pos.Hops = p.a.hopPtrs.add(pos.Hops, h, 4)
		}
		hasComma = false
		p.skipWS()
		if p.is(lComma) {
			lastComma, hasComma = p.take(TokenPunct), true
			continue
		}
		if !p.is(lRParen) {
			p.expected("\",\" or \")\" in the position")
			p.skipHop()
			if p.is(lComma) {
				lastComma, hasComma = p.take(TokenPunct), true
				continue
			}
		}
	}
	end := p.lastEnd(lp.end)
	if p.is(lRParen) {
		end = p.take(TokenPunct).end
	} else {
		p.expected("\")\" to close the position")
	}
	pos.Sp = syntax.Sp(lp.start, end)
	if len(pos.Hops) > 0 && pos.Hops[0].Kind != HopDepth {
		h := pos.Hops[0]
		p.errorf(h.Sp, "expected a depth dK as the first hop of the position, as in (d1, 0), found %s", strconv.Quote(p.src[h.Sp.Start:h.Sp.End]))
	}
	p.resolveSentinels(pos)
	save := p.pos
	p.skipWS()
	if p.is(lQuest) {
		q := p.take(TokenOperator)
		pos.Optional = true
		pos.OptSpan = q.span()
		pos.Sp.End = q.end
	} else {
		p.pos = save
	}
	return pos
}

// skipHop skips to the next "," or ")" of the current position. Stray
// "]" and "}" are skipped.
func (p *parser) skipHop() {
	depth := 0
	for !p.is(lEOF) {
		switch p.cur().kind {
		case lLParen, lLBrack, lLBrace:
			depth++
		case lRParen, lRBrack, lRBrace:
			if depth == 0 {
				if p.is(lRParen) {
					return
				}
				break
			}
			depth--
		case lComma:
			if depth == 0 {
				return
			}
		}
		p.next()
	}
}

// resolveSentinels decides what "-N" means and checks that insertion
// sentinels come last. "-N" is an insertion point (before child N) when it
// ends a position that navigates by steps; in a coordinate (depth then
// offsets only) it is a negative offset.
func (p *parser) resolveSentinels(pos *Position) {
	hasStep := false
	for _, h := range pos.Hops {
		if h.Kind == HopStep {
			hasStep = true
		}
	}
	for i, h := range pos.Hops {
		last := i == len(pos.Hops)-1
		if h.Kind == HopOffset && h.Offset < 0 && last && hasStep && p.src[h.Sp.Start] == '-' {
			h.Kind = HopInsert
			h.Insert = InsertBefore
			h.Offset = -h.Offset
		}
		if h.Kind == HopInsert && !last {
			p.errorf(h.Sp, "an insertion point (trailing \",\", \"end\", \"+N\", \"-N\") must be the last hop")
		}
	}
}

// parseHop parses one element of a position.
func (p *parser) parseHop() *Hop {
	t := p.cur()
	switch t.kind {
	case lIdent:
		s := p.text(t)
		switch {
		case p.isDepthStart():
			d := p.parseDepth()
			return alloc(&p.a.hop, Hop{Sp: d.Sp, Kind: HopDepth, Depth: d})
		case s == "end" && !p.nextAdjacentContinues():
			p.take(TokenKeyword)
			return alloc(&p.a.hop, Hop{Sp: t.span(), Kind: HopInsert, Insert: InsertEnd})
		case s == "c" && p.peekAt(1).kind == lAt && p.peekAt(1).start == t.end:
			return p.parseCycleAt()
		}
	case lNumber, lMinus:
		v := p.parseValue()
		if v == nil {
			return nil
		}
		h := alloc(&p.a.hop, Hop{Sp: v.Sp, Kind: HopOffset})
		if v.Num != float64(int(v.Num)) {
			p.errorf(v.Sp, "expected an integer offset, found %s", strconv.Quote(v.Raw))
		} else {
			h.Offset = int(v.Num)
		}
		return h
	case lPlus:
		n := p.peekAt(1)
		if n.kind == lNumber && n.start == t.end {
			p.take(TokenKeyword)
			p.take(TokenNumber)
			h := alloc(&p.a.hop, Hop{Sp: syntax.Sp(t.start, n.end), Kind: HopInsert, Insert: InsertAfter})
			h.Offset = p.atoi(p.text(n), n.span())
			return h
		}
	}
	c := p.parseCompound(true)
	if c == nil {
		return nil
	}
	h := alloc(&p.a.hop, Hop{Sp: c.Sp, Kind: HopStep, Step: c})
	if c.Depth != nil && len(c.Types) == 0 && len(c.Attrs) == 0 {
		return alloc(&p.a.hop, Hop{Sp: c.Sp, Kind: HopDepth, Depth: c.Depth})
	}
	if len(c.Types) == 1 && c.Types[0].Name == "cont" && !c.Universal && len(c.Hashes) == 0 && len(c.Tags) == 0 && len(c.Pseudos) == 0 &&
		len(c.Attrs) == 1 && c.Attrs[0].Key == "offset" && c.Attrs[0].Op == OpEq && c.Attrs[0].Value != nil && c.Attrs[0].Value.Kind == ValueNumber && p.src[c.Sp.Start] != '.' {
		p.legacy(LegacyContOffset, h, c.Attrs[0].Value.Raw)
	}
	return h
}

// nextAdjacentContinues reports whether the token after the current one
// continues it (so "end" is a type name, as in "end[x=1]").
func (p *parser) nextAdjacentContinues() bool {
	n := p.peekAt(1)
	return n.start == p.cur().end && (n.kind == lLBrack || n.kind == lLParen || n.kind == lColon || n.kind == lHash || n.kind == lDot)
}

// parseCycleAt parses the legacy "c@N" hop, read as the offset N.
func (p *parser) parseCycleAt() *Hop {
	c := p.take(TokenInvalid)
	at := p.take(TokenInvalid)
	n := p.cur()
	if n.kind != lNumber || n.start != at.end {
		p.expected("a number after \"c@\"")
		return alloc(&p.a.hop, Hop{Sp: syntax.Sp(c.start, at.end), Kind: HopOffset})
	}
	p.take(TokenNumber)
	h := alloc(&p.a.hop, Hop{Sp: syntax.Sp(c.start, n.end), Kind: HopOffset, Offset: p.atoi(p.text(n), n.span())})
	p.legacy(LegacyCycleAt, h, p.text(n))
	return h
}

// parseTrailer parses the v2 trailing filter blocks and controls, in any
// order (canonical order is {props} [behavior] @controls).
func (p *parser) parseTrailer(q *Query) {
	for {
		save := p.pos
		p.skipWS()
		switch p.cur().kind {
		case lLBrace:
			b := p.parseBlock(BlockBrace)
			if q.Props != nil {
				p.errorf(b.Sp, "duplicate property block; expected one {...} per query")
				q.Props.Items = append(q.Props.Items, b.Items...)
				q.Props.Sp = q.Props.Sp.Union(b.Sp)
			} else {
				q.Props = b
			}
		case lLBrack:
			b := p.parseBlock(BlockBracket)
			if q.Behavior != nil {
				p.errorf(b.Sp, "duplicate behavior block; expected one [...] per query")
				q.Behavior.Items = append(q.Behavior.Items, b.Items...)
				q.Behavior.Sp = q.Behavior.Sp.Union(b.Sp)
			} else {
				q.Behavior = b
			}
		case lControl, lAtStar:
			q.Controls = p.a.controlPtrs.add(q.Controls, p.parseControl(), 2)
		default:
			p.pos = save
			return
		}
	}
}

// parseControl parses "@*" or "@name[=value]".
func (p *parser) parseControl() *Control {
	t := p.take(TokenControl)
	c := alloc(&p.a.control, Control{Sp: t.span(), NameSpan: syntax.Sp(t.start+1, t.end), Name: p.text(t)[1:]})
	if p.is(lEq) && p.adjacent() {
		eq := p.take(TokenOperator)
		v := p.cur()
		if (v.kind == lIdent || v.kind == lNumber) && v.start == eq.end {
			p.take(TokenIdent)
			c.Value, c.ValueSpan, c.HasValue = p.text(v), v.span(), true
			c.Sp.End = v.end
		} else if (v.kind == lMinus || v.kind == lPlus || v.kind == lString) && v.start == eq.end {
			val := p.parseValue()
			if val != nil {
				c.Value, c.ValueSpan, c.HasValue = val.Text, val.Sp, true
				c.Sp.End = val.Sp.End
			}
		}
		if !c.HasValue {
			p.expected(fmt.Sprintf("a value after \"@%s=\"", c.Name))
			c.Sp.End = eq.end
		}
	}
	return c
}
