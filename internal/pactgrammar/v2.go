package pactgrammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// V2 is the v2 §4 grammar as a participle grammar, the executable
// reference for syntax/pact's v2 parser:
//
//	selector       := temporal_opt selector_body attributes_opt behavior_opt controls_opt
//	selector_body  := coordinate | coordinate_set | chain_selector | prop_search
//	chain_selector := scope_opt? selector_chain
//	simple_sel     := anchor ( "." ident )*
//	anchor         := "." ident | "#" key_token | "+" ident
//	combinator     := ">" | WS
//	prop           := ident cmp value | ident "=" array | ident "=" value
//	bprop          := ident bcmp bval | "ephemeral" | "sticky"
//	control        := "@" "*" | "@" ident ( "=" ident )?
//
// with the forms of v2 §3 the section-4 grammar leaves out (the "??"
// fallback of §3.6, positions with type hops and insertion sentinels of
// §3.8–3.9, grouped shorthand of §3.5.1, "[...]" filters on a step,
// "@history", "dA..B") and the parser decisions of docs/spec-notes.md
// ("PACT syntax": trailing blocks in any order, "," or whitespace between
// filters, a depth before a step is a scope). It covers the queries
// without roots, pseudo-classes, "*", ":" and legacy "@" tokens; the
// agreement test and fuzz target draw their queries from that alphabet
// (see InV2Alphabet). The constraints stated in prose are checked by
// checkV2 on the tree.
type V2 struct {
	Time    *V2Time      `parser:"WS? ( @@ WS )?"`
	Body    *V2Expr      `parser:"@@"`
	Trailer []*V2Trailer `parser:"@@* WS?"`
}

// V2Time is a snapshot, a range or @history.
type V2Time struct {
	From string   `parser:"@( Time | AtStar )"`
	Op   string   `parser:"( @DotDot"`
	To   *TimeEnd `parser:"  @@ )?"`
}

// V2Expr is a fallback chain "A ?? B ?? C".
type V2Expr struct {
	Items []*V2Primary `parser:"@@ ( WS? QQ WS? @@ )*"`
}

// V2Primary is a standalone property search or a selector chain.
type V2Primary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Search *Items   `parser:"  '{' @@ '}'"`
	Chain  *V2Chain `parser:"| @@"`
}

// V2Chain is an optional depth scope and steps joined by combinators.
type V2Chain struct {
	Scope *DepthRef `parser:"( @@ WS (?= '.' | '#' | '(' | DepthIdent | '+' ( Ident | PseudoName | DepthIdent ) ) )?"`
	Head  *V2Step   `parser:"@@"`
	Rest  []*V2Link `parser:"@@*"`
}

// V2Link is a combinator and the step after it.
type V2Link struct {
	Child bool    `parser:"( WS? @'>' WS? | WS )"`
	Step  *V2Step `parser:"@@"`
}

// V2Step is a parenthesised group or a compound selector.
type V2Step struct {
	Pos      lexer.Position
	EndPos   lexer.Position
	CoordSet *CoordSet   `parser:"  @@"`
	Paren    *Paren      `parser:"| @@"`
	Position *Position   `parser:"| @@"`
	Comp     *V2Compound `parser:"| (?! '[' | Ident | PseudoName ) @@"`
}

// CoordSet is "((d1,0), (d2,0,1))".
type CoordSet struct {
	Items []*Position `parser:"'(' WS? (?= '(' ) @@ WS? ( ',' WS? @@ WS? )* ')'"`
}

// Paren is a parenthesised selector "( .seg .cont > .block )".
type Paren struct {
	Inner *V2Expr `parser:"'(' WS? (?= '.' | '#' | '{' | '+' ( Ident | DepthIdent ) ) @@ WS? ')'"`
}

// Position is "(hop, hop, ...)" with an optional "?" suffix; a trailing
// comma is the insertion point.
type Position struct {
	Pos      lexer.Position
	EndPos   lexer.Position
	Hops     []*Hop `parser:"'(' WS? @@ WS? ( ',' WS? @@ WS? )*"`
	Trailing bool   `parser:"@( ',' WS? )? ')'"`
	Optional bool   `parser:"( WS? @'?' )?"`
}

// Hop is one element of a position.
type Hop struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Depth  *DepthRef   `parser:"  @@"`
	End    bool        `parser:"| @'end' (?! '[' | '(' | '#' | '.' )"`
	After  string      `parser:"| '+' @Number"`
	Offset string      `parser:"| @'-'? @Number"`
	Step   *V2Compound `parser:"| @@"`
}

// DepthRef is "dN" or "dA..dB" (also "dA..B").
type DepthRef struct {
	Pos    lexer.Position
	EndPos lexer.Position
	From   string `parser:"@DepthIdent"`
	ToD    string `parser:"( DotDot ( @DepthIdent"`
	ToN    string `parser:"  | @'-'? @Number ) )?"`
}

// V2Compound is adjacent parts that must all match one node. In a
// chain its first part is not a "[...]" filter (a spaced "[" starts the
// behavior block); in a position hop a bare name is a type.
type V2Compound struct {
	Parts []*V2Part `parser:"@@+"`
}

// V2Part is one part of a compound selector.
type V2Part struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Depth   *DepthRef `parser:"  @@"`
	Type    string    `parser:"| ( '.' @( Ident | PseudoName | DepthIdent )"`
	Bare    string    `parser:"  | @( Ident | PseudoName ) )"`
	Grouped *Items    `parser:"  ( '(' @@ ')' )?"`
	Quoted  string    `parser:"| '#' ( @String"`
	Hash    *HashVal  `parser:"  | @@ )"`
	Tag     string    `parser:"| '+' @( Ident | PseudoName | DepthIdent )"`
	Filters *Items    `parser:"| '[' @@ ']'"`
}

// Items is the filters of a "{...}", "[...]" or grouped "(...)" block,
// separated by "," or whitespace (or nothing, after a value).
type Items struct {
	Items []*V2Item `parser:"WS? @@ ( WS? ( ',' WS? )? @@ )* WS?"`
}

// V2Item is one filter "key", "key op value" or "key in [v, ...]".
type V2Item struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Key    string     `parser:"@( Ident | PseudoName | DepthIdent )"`
	Op     string     `parser:"( WS? @( Op2 | '=' | '<' | '>' | '~' | 'in' ) WS?"`
	List   []*Literal `parser:"  ( '[' WS? @@ WS? ( ',' WS? @@ WS? )* ']'"`
	Value  *Literal   `parser:"  | @@ ) )?"`
}

// V2Trailer is a trailing "{...}", "[...]" or control.
type V2Trailer struct {
	Pos      lexer.Position
	EndPos   lexer.Position
	Props    *Items  `parser:"WS? ( '{' @@ '}'"`
	Behavior *Items  `parser:"    | '[' @@ ']'"`
	Star     bool    `parser:"    | @AtStar"`
	Control  string  `parser:"    | @Control"`
	Value    *CtlVal `parser:"      ( '=' @@ )? )"`
}

// CtlVal is a control's value.
type CtlVal struct {
	Word string   `parser:"  @( Ident | PseudoName | DepthIdent | Number )"`
	Lit  *Literal `parser:"| @@"`
}

// NewV2 builds the v2 reference parser.
func NewV2() (*participle.Parser[V2], error) {
	return participle.Build[V2](participle.Lexer(refDef{}), participle.UseLookahead(-1))
}

// ParseV2 parses a v2 query and returns its shape.
func (r *Reference) ParseV2(src string) (string, error) {
	q, err := r.v2.ParseString("", src)
	if err != nil {
		return "", err
	}
	c := &v2checker{src: src}
	c.query(q)
	if c.err != nil {
		return "", c.err
	}
	return c.b.String(), nil
}

// v2checker checks the constraints stated in prose and writes the shape.
type v2checker struct {
	src string
	b   strings.Builder
	err error
}

func (c *v2checker) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

func (c *v2checker) text(from, to lexer.Position) string { return c.src[from.Offset:to.Offset] }

func (c *v2checker) query(q *V2) {
	if t := q.Time; t != nil {
		if t.From == "@history" && t.To != nil {
			c.fail("@history is already a range")
		}
		c.fail2(checkTimeAtom(t.From, false, false))
		if t.To != nil {
			switch {
			case t.From == "@*" || t.To.Atom == "@*":
				c.fail("@* inside a range")
			case t.To.Atom != "":
				c.fail2(checkTimeAtom(t.To.Atom, true, false))
				if t.From == "@t-*" && t.To.Atom != "@t-*" {
					c.fail("@t-* only ends a range")
				}
				if t.From[1] != t.To.Atom[1] {
					c.fail("range endpoints of different kinds")
				}
			default:
				if t.From == "@t-*" {
					c.fail("@t-* only ends a range")
				}
				c.fail2(checkInt(strings.TrimLeft(t.To.Bare, "+-")))
			}
			fmt.Fprintf(&c.b, "time %s%s%s%s\n", t.From, t.Op, t.To.Atom, t.To.Bare)
		} else {
			fmt.Fprintf(&c.b, "time %s\n", t.From)
		}
	}
	c.expr(q.Body, "")
	props, behavior := 0, 0
	for _, t := range q.Trailer {
		switch {
		case t.Props != nil:
			props++
			c.items("props", t.Props, true, "")
		case t.Behavior != nil:
			behavior++
			c.items("behavior", t.Behavior, false, "")
		default:
			if t.Value != nil && t.Value.Lit != nil {
				c.fail2(t.Value.Lit.check())
			}
			fmt.Fprintf(&c.b, "control %s\n", strings.TrimLeft(c.text(t.Pos, t.EndPos), " \t\r\f\v"))
		}
	}
	if props > 1 || behavior > 1 {
		c.fail("duplicate block")
	}
}

func (c *v2checker) fail2(err error) {
	if err != nil && c.err == nil {
		c.err = err
	}
}

func (c *v2checker) expr(e *V2Expr, ind string) {
	if len(e.Items) > 1 {
		fmt.Fprintf(&c.b, "%sfallback\n", ind)
		ind += "  "
	}
	for _, p := range e.Items {
		if p.Search != nil {
			fmt.Fprintf(&c.b, "%ssearch\n", ind)
			c.items("", p.Search, true, ind+"  ")
			continue
		}
		c.chain(p.Chain, ind)
	}
}

func (c *v2checker) chain(ch *V2Chain, ind string) {
	fmt.Fprintf(&c.b, "%schain\n", ind)
	ind += "  "
	if ch.Scope != nil {
		c.depthRef(ch.Scope)
		fmt.Fprintf(&c.b, "%sscope %s\n", ind, c.text(ch.Scope.Pos, ch.Scope.EndPos))
	}
	c.step(ch.Head, "", ind)
	for _, l := range ch.Rest {
		comb := "desc"
		if l.Child {
			comb = "child"
		}
		c.step(l.Step, comb, ind)
	}
}

func (c *v2checker) step(s *V2Step, comb, ind string) {
	if comb != "" {
		comb = " " + comb
	}
	switch {
	case s.CoordSet != nil:
		fmt.Fprintf(&c.b, "%sstep%s coordset\n", ind, comb)
		for _, p := range s.CoordSet.Items {
			c.position(p, ind+"  ", true)
		}
	case s.Paren != nil:
		fmt.Fprintf(&c.b, "%sstep%s paren\n", ind, comb)
		c.expr(s.Paren.Inner, ind+"  ")
	case s.Position != nil:
		fmt.Fprintf(&c.b, "%sstep%s\n", ind, comb)
		c.position(s.Position, ind+"  ", false)
	default:
		if p := s.Comp.Parts[0]; p.Filters != nil || p.Bare != "" {
			c.fail("a step starts with a type, key, tag or depth")
		}
		fmt.Fprintf(&c.b, "%sstep%s\n", ind, comb)
		c.compound(s.Comp, ind+"  ")
	}
}

func (c *v2checker) position(p *Position, ind string, coord bool) {
	kinds := make([]string, len(p.Hops))
	hasStep := false
	for i, h := range p.Hops {
		switch {
		case h.Depth != nil:
			kinds[i] = "depth"
			c.depthRef(h.Depth)
		case h.End:
			kinds[i] = "insert"
		case h.After != "":
			kinds[i] = "insert"
			c.fail2(checkInt(h.After))
		case h.Offset != "":
			kinds[i] = "offset"
			lit := &Literal{Num: h.Offset}
			c.fail2(lit.check())
			if !lit.isInt() {
				c.fail("an offset is an integer")
			}
		default:
			kinds[i] = "step"
			hasStep = true
			if pt := h.Step.Parts[0]; pt.Depth != nil {
				c.fail("a depth hop stands alone")
			}
		}
	}
	if p.Trailing {
		kinds = append(kinds, "insert")
	}
	if kinds[0] != "depth" {
		c.fail("a position starts with a depth")
	}
	last := len(p.Hops) - 1
	if !p.Trailing && kinds[last] == "offset" && hasStep && strings.HasPrefix(p.Hops[last].Offset, "-") {
		kinds[last] = "insert"
	}
	for i, k := range kinds {
		if k == "insert" && i != len(kinds)-1 {
			c.fail("an insertion point is the last hop")
		}
	}
	if coord {
		if len(p.Hops) > 0 && p.Hops[0].Depth != nil && p.Hops[0].Depth.isRange() {
			c.fail("a coordinate has one depth")
		}
		for _, k := range kinds[1:] {
			if k != "offset" {
				c.fail("a coordinate holds offsets only")
			}
		}
	}
	opt := ""
	if p.Optional {
		opt = " optional"
	}
	fmt.Fprintf(&c.b, "%sposition%s\n", ind, opt)
	for i, h := range p.Hops {
		fmt.Fprintf(&c.b, "%s  %s %s\n", ind, kinds[i], c.text(h.Pos, h.EndPos))
		if h.Step != nil {
			c.compound(h.Step, ind+"    ")
		}
	}
	if p.Trailing {
		fmt.Fprintf(&c.b, "%s  insert ,\n", ind)
	}
}

func (d *DepthRef) isRange() bool {
	if d.ToD == "" && d.ToN == "" {
		return false
	}
	return true
}

func (c *v2checker) depthRef(d *DepthRef) {
	from, err := strconv.Atoi(d.From[1:])
	if err != nil || from > 1<<31 || from < -(1<<31) {
		c.fail("depth out of range")
		return
	}
	if from < -1 {
		c.fail("depth below -1")
	}
	to := from
	switch {
	case d.ToD != "":
		n, err := strconv.Atoi(d.ToD[1:])
		if err != nil || n > 1<<31 || n < -(1<<31) {
			c.fail("depth out of range")
			return
		}
		to = n
	case d.ToN != "":
		f, err := strconv.ParseFloat(d.ToN, 64)
		if err != nil {
			c.fail("depth out of range")
			return
		}
		to = int(f)
	}
	if to < -1 {
		c.fail("depth below -1")
	}
	if to < from {
		c.fail("reversed depth range")
	}
}

func (c *v2checker) compound(comp *V2Compound, ind string) {
	for i, p := range comp.Parts {
		text := c.text(p.Pos, p.EndPos)
		switch {
		case p.Depth != nil:
			if i > 0 {
				c.fail("a depth starts its step")
			}
			c.depthRef(p.Depth)
			fmt.Fprintf(&c.b, "%sdepth %s\n", ind, text)
		case p.Type != "" || p.Bare != "":
			if p.Bare != "" && i > 0 {
				c.fail("a bare type starts its hop")
			}
			name := text
			if p.Grouped != nil {
				name = text[:strings.IndexByte(text, '(')]
			}
			fmt.Fprintf(&c.b, "%stype %s\n", ind, name)
			if p.Grouped != nil {
				c.items("gattr", p.Grouped, false, ind)
			}
		case p.Quoted != "" || p.Hash != nil:
			fmt.Fprintf(&c.b, "%shash %s\n", ind, text)
		case p.Tag != "":
			fmt.Fprintf(&c.b, "%stag %s\n", ind, text)
		case p.Filters != nil:
			c.items("attr", p.Filters, false, ind)
		}
	}
}

// items checks the filters of a block (a property block needs an operator
// on every filter) and writes one line per filter.
func (c *v2checker) items(kind string, it *Items, brace bool, ind string) {
	if kind == "props" || kind == "behavior" {
		fmt.Fprintf(&c.b, "%s%s\n", ind, kind)
		ind += "  "
		kind = "item"
	}
	if kind == "" {
		kind = "item"
	}
	for _, x := range it.Items {
		if brace && x.Op == "" {
			c.fail("a property filter needs an operator")
		}
		if x.Op == "" && c.opFollows(x.EndPos.Offset) {
			c.fail("an operator after a key needs its value")
		}
		if x.Op == "in" && x.List == nil {
			c.fail("in needs a list")
		}
		if x.List != nil && x.Op != "in" && x.Op != "=" {
			c.fail("a list follows in or =")
		}
		if x.Op == "=" && x.List == nil && x.Value == nil {
			c.fail("a value after =")
		}
		for _, l := range x.List {
			c.fail2(l.check())
		}
		c.fail2(x.Value.check())
		fmt.Fprintf(&c.b, "%s%s %s\n", ind, kind, c.text(x.Pos, x.EndPos))
	}
}

// InV2Alphabet reports whether src uses only the tokens the v2 reference
// grammar covers: no roots "^", pseudo-classes or ":" forms, "*", legacy
// "@" tokens, pseudo-class names, newlines or bytes no token accepts.
func InV2Alphabet(src string) bool {
	l := &refLexer{src: src}
	for {
		t, _ := l.Next()
		if t.EOF() {
			return true
		}
		switch t.Type {
		case rPseudo, rBadTime, rAt, rBadString, rInvalid:
			return false
		case rPunct:
			switch t.Value {
			case "^", ":", "*":
				return false
			}
		case rIdent:
			if t.Value == "c" {
				return false // the legacy "c@N" hop
			}
		}
		if strings.ContainsAny(t.Value, "\n") {
			return false
		}
	}
}

// opFollows reports whether an operator follows the offset, after
// whitespace: a key followed by an operator is a comparison, whether or
// not a value follows.
func (c *v2checker) opFollows(off int) bool {
	rest := strings.TrimLeft(c.src[off:], " \t\r\f\v")
	if rest == "" {
		return false
	}
	switch rest[0] {
	case '=', '<', '>', '~':
		return true
	case '!':
		return strings.HasPrefix(rest, "!=")
	}
	return strings.HasPrefix(rest, "in") && (len(rest) == 2 || !isNameByte(rest[2]))
}
