package pactgrammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// V1 is the v1 §4 grammar as a participle grammar, the executable
// reference for syntax/pact's v1 parser:
//
//	Selector   ::= [Snapshot] Group { "," Group }
//	Chain      ::= Step { Combinator Step }
//	Combinator ::= " " | ">"
//	Simple     ::= [Root] [ID] [Type] [Attr*] [Pseudo*] | "*"
//
// with the parser decisions of docs/spec-notes.md ("PACT syntax"): the
// parts of a compound may come in any order (a root only first), a type
// or id may carry ":"-joined parts (".cb:summary", "#cb:u2"), a range end
// may be bare ("@t-5..-1"), and whitespace may surround "," and ">". The
// constraints the EBNF states in prose (root and pseudo-class names,
// pseudo-class arguments, range endpoint kinds) are checked by CheckV1 on
// the tree.
type V1 struct {
	Time   *V1Time    `parser:"WS? ( @@ WS )?"`
	Chains []*V1Chain `parser:"@@ ( WS? ',' WS? @@ )* WS?"`
}

// V1Time is a snapshot or an inclusive range.
type V1Time struct {
	From string   `parser:"@( Time | AtStar )"`
	Op   string   `parser:"( @( DotDot | ':' )"`
	To   *TimeEnd `parser:"  @@ )?"`
}

// TimeEnd is a range end: a snapshot reference or a bare signed number.
type TimeEnd struct {
	Atom string `parser:"  @( Time | AtStar )"`
	Bare string `parser:"| @( '-' | '+' )? @Number"`
}

// V1Chain is compound selectors joined by combinators.
type V1Chain struct {
	Head *V1Compound `parser:"@@"`
	Rest []*V1Link   `parser:"@@*"`
}

// V1Link is a combinator and the step after it.
type V1Link struct {
	Child bool        `parser:"( WS? @'>' WS? | WS (?! ',' | EOF | '>') )"`
	Comp  *V1Compound `parser:"@@"`
}

// V1Compound is adjacent parts that must all match one node.
type V1Compound struct {
	Parts []*V1Part `parser:"@@+"`
}

// V1Part is one simple selector.
type V1Part struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Star   bool      `parser:"  @'*'"`
	Root   string    `parser:"| '^' @( Ident | PseudoName | DepthIdent )"`
	Type   *Joined   `parser:"| '.' @@"`
	Hash   *HashVal  `parser:"| '#' @@"`
	Attr   *V1Attr   `parser:"| @@"`
	Pseudo *V1Pseudo `parser:"| @@"`
}

// Joined is a name with ":"-joined parts; a ":" followed by a
// pseudo-class name ends it.
type Joined struct {
	Parts []string `parser:"@( Ident | PseudoName | DepthIdent ) ( ':' @( Ident | DepthIdent | Number ) )*"`
}

// HashVal is the value of "#id": names, numbers and "-" joined, with
// ":"-joined parts.
type HashVal struct {
	Parts []string `parser:"@( Ident | PseudoName | DepthIdent | Number | '-' ) ( @( Ident | PseudoName | DepthIdent | Number | '-' ) | ':' @( Ident | DepthIdent | Number ) )*"`
}

// V1Attr is "[key]" or "[key op value]".
type V1Attr struct {
	Key   string   `parser:"'[' WS? @( Ident | PseudoName | DepthIdent )"`
	Op    string   `parser:"( WS? @( Op2 | '=' | '<' | '>' | '~' ) WS?"`
	Value *Literal `parser:"  @@ )? ']'"`
}

// Literal is a number (with an adjacent sign), a string or a name with
// ":"-joined parts.
type Literal struct {
	Num    string   `parser:"  @( '-' | '+' )? @Number"`
	String string   `parser:"| @String"`
	Name   []string `parser:"| @( Ident | PseudoName | DepthIdent ) ( ':' @( Ident | PseudoName | DepthIdent | Number ) )*"`
}

// V1Pseudo is ":name" or ":name(args)".
type V1Pseudo struct {
	Name   string       `parser:"':' @PseudoName"`
	Parens bool         `parser:"( @'('"`
	Args   []*PseudoArg `parser:"  WS? ( @@ WS? ( ',' WS? @@ WS? )* )? ')' )?"`
}

// PseudoArg is a value or a range "1-3".
type PseudoArg struct {
	Lo *Literal `parser:"@@"`
	Hi *Literal `parser:"( '-' @@ )?"`
}

// NewV1 builds the v1 reference parser.
func NewV1() (*participle.Parser[V1], error) {
	return participle.Build[V1](participle.Lexer(refDef{}), participle.UseLookahead(-1))
}

// Reference is a built reference grammar for one dialect: Parse returns
// the shape of the query's tree, or an error when the grammar or its
// stated constraints reject it.
type Reference struct {
	v1 *participle.Parser[V1]
	v2 *participle.Parser[V2]
}

// NewReference builds both reference grammars.
func NewReference() (*Reference, error) {
	v1, err := NewV1()
	if err != nil {
		return nil, fmt.Errorf("build v1 grammar: %w", err)
	}
	v2, err := NewV2()
	if err != nil {
		return nil, fmt.Errorf("build v2 grammar: %w", err)
	}
	return &Reference{v1: v1, v2: v2}, nil
}

// ParseV1 parses a v1 selector and returns its shape (see Shape).
func (r *Reference) ParseV1(src string) (string, error) {
	q, err := r.v1.ParseString("", src)
	if err != nil {
		return "", err
	}
	if err := checkV1(q); err != nil {
		return "", err
	}
	var b strings.Builder
	if q.Time != nil {
		b.WriteString("time " + q.Time.text() + "\n")
	}
	for i, c := range q.Chains {
		if i > 0 {
			b.WriteString(",\n")
		}
		writeV1Chain(&b, src, c)
	}
	return b.String(), nil
}

func (t *V1Time) text() string {
	s := t.From
	if t.To != nil {
		s += t.Op + t.To.Atom + t.To.Bare
	}
	return s
}

func writeV1Chain(b *strings.Builder, src string, c *V1Chain) {
	writeV1Compound(b, src, "", c.Head)
	for _, l := range c.Rest {
		comb := "desc"
		if l.Child {
			comb = "child"
		}
		writeV1Compound(b, src, comb, l.Comp)
	}
}

func writeV1Compound(b *strings.Builder, src, comb string, c *V1Compound) {
	b.WriteString("step")
	if comb != "" {
		b.WriteString(" " + comb)
	}
	for _, p := range c.Parts {
		text := src[p.Pos.Offset:p.EndPos.Offset]
		kind := "pseudo"
		switch {
		case p.Star:
			kind = "star"
		case p.Root != "":
			kind = "root"
		case p.Type != nil:
			kind = "type"
		case p.Hash != nil:
			kind = "hash"
		case p.Attr != nil:
			kind = "attr"
			text = strings.Trim(text[1:len(text)-1], " \t\r\f\v")
		}
		fmt.Fprintf(b, " %s(%s)", kind, text)
	}
	b.WriteString("\n")
}

// checkV1 applies the constraints v1 §3–§4 state in prose, and the
// parser's documented limits.
func checkV1(q *V1) error {
	if t := q.Time; t != nil {
		if err := checkTimeAtom(t.From, false, true); err != nil {
			return err
		}
		if t.To != nil {
			if t.From == "@*" || t.To.Atom == "@*" {
				return fmt.Errorf("@* inside a range")
			}
			if t.To.Atom != "" {
				if err := checkTimeAtom(t.To.Atom, true, true); err != nil {
					return err
				}
				if t.From[1] != t.To.Atom[1] {
					return fmt.Errorf("range endpoints of different kinds")
				}
			} else {
				if strings.HasPrefix(t.To.Bare, "+") {
					return fmt.Errorf("v1 has no future snapshots")
				}
				if err := checkInt(strings.TrimLeft(t.To.Bare, "+-")); err != nil {
					return err
				}
			}
		}
	}
	for _, c := range q.Chains {
		comps := []*V1Compound{c.Head}
		for _, l := range c.Rest {
			comps = append(comps, l.Comp)
		}
		for _, comp := range comps {
			if err := checkV1Compound(comp); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkTimeAtom checks one snapshot reference of a dialect (v1: no
// @history, no @t-*, no @t+N).
func checkTimeAtom(a string, rangeEnd, v1 bool) error {
	switch {
	case a == "@*":
		return nil
	case a == "@history":
		if v1 || rangeEnd {
			return fmt.Errorf("@history here")
		}
		return nil
	case strings.HasSuffix(a, "*"):
		if a != "@t-*" || v1 {
			return fmt.Errorf("%s", a)
		}
		if !rangeEnd {
			return nil // rejected by the range check in v2
		}
		return nil
	case strings.HasPrefix(a, "@t+") && v1:
		return fmt.Errorf("v1 has no future snapshots")
	}
	return checkInt(strings.TrimLeft(a[2:], "+-"))
}

func checkInt(digits string) error {
	n, err := strconv.Atoi(digits)
	if err != nil || n > 1<<31 {
		return fmt.Errorf("number %s out of range", digits)
	}
	return nil
}

func checkV1Compound(c *V1Compound) error {
	stars, roots := 0, 0
	for i, p := range c.Parts {
		switch {
		case p.Star:
			stars++
		case p.Root != "":
			roots++
			if i > 0 {
				return fmt.Errorf("a root must start its step")
			}
			switch p.Root {
			case "sys", "seq", "ah", "root":
			default:
				return fmt.Errorf("unknown root %s", p.Root)
			}
		case p.Attr != nil:
			if p.Attr.Op == "~" {
				return fmt.Errorf("~ is a v2 operator")
			}
			if err := p.Attr.Value.check(); err != nil {
				return err
			}
		case p.Pseudo != nil:
			if err := checkPseudo(p.Pseudo.Name, p.Pseudo.Parens, p.Pseudo.Args); err != nil {
				return err
			}
		}
	}
	if stars > 1 || roots > 1 {
		return fmt.Errorf("duplicate part")
	}
	return nil
}

func (l *Literal) check() error {
	if l == nil || l.Num == "" {
		return nil
	}
	if _, err := strconv.ParseFloat(l.Num, 64); err != nil {
		return fmt.Errorf("number %s out of range", l.Num)
	}
	return nil
}

func (l *Literal) isInt() bool {
	if l == nil || l.Num == "" {
		return false
	}
	f, err := strconv.ParseFloat(l.Num, 64)
	return err == nil && f == float64(int(f))
}

// checkPseudo applies v1 §3.4: :depth takes a non-empty list, :nth one
// integer, the others nothing; depth and nth arguments are integers.
func checkPseudo(name string, parens bool, args []*PseudoArg) error {
	for _, a := range args {
		if err := a.Lo.check(); err != nil {
			return err
		}
		if err := a.Hi.check(); err != nil {
			return err
		}
	}
	switch name {
	case "depth":
		if !parens || len(args) == 0 {
			return fmt.Errorf(":depth needs a list")
		}
	case "nth":
		if !parens || len(args) != 1 || args[0].Hi != nil || args[0].Lo.Num == "" {
			return fmt.Errorf(":nth needs one index")
		}
	default:
		if parens {
			return fmt.Errorf(":%s takes no arguments", name)
		}
	}
	if name == "depth" || name == "nth" {
		for _, a := range args {
			if !a.Lo.isInt() || a.Hi != nil && !a.Hi.isInt() {
				return fmt.Errorf("expected an integer")
			}
		}
	}
	return nil
}
