// Package pactgrammar holds participle grammars for PACT.
//
// V1 and V2 (v1.go, v2.go) are the specification's grammars (v1 §4, v2 §4
// with the §3 forms it leaves out and the parser decisions recorded in
// docs/spec-notes.md) written as participle grammars. They are the
// executable reference for syntax/pact's hand-written parser:
// TestReferenceAgrees and FuzzReferenceV1/V2 check that, for generated
// and fuzzed queries, both accept or reject the same queries and build
// trees of the same shape. The hand parser stays the product's parser: it
// recovers from errors, keeps exact spans and is 10–15× faster.
//
// Selector (this file) is a smaller v1 grammar kept to measure the
// parser-technology choice: the benchmarks parse the same selectors with
// it (once with participle's regexp lexer, once with a hand-written lexer
// plugged into participle) and with the hand-written recursive-descent
// parser, in the same run, and the tests pin what the grammar can and
// cannot do (participle stops at the first error; the hand parser reports
// every error and keeps a partial tree).
//
// Selector covers the v1 selector forms the benchmarks use: a snapshot
// prefix, comma groups, descendant and child combinators, roots, types,
// ids, "*", attribute filters and pseudo-classes with arguments. Whitespace
// is a token because it is the descendant combinator.
package pactgrammar

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Selector is a v1 selector: an optional snapshot prefix and a comma group.
type Selector struct {
	Time   string   `parser:"(@Time WS)?"`
	Chains []*Chain `parser:"@@ (WS? ',' WS? @@)*"`
}

// Chain is a sequence of compound selectors joined by combinators.
type Chain struct {
	Head *Compound `parser:"@@"`
	Rest []*Link   `parser:"@@*"`
}

// Link is a combinator and the compound selector after it.
type Link struct {
	Child bool      `parser:"( WS? @'>' WS? | WS )"`
	Comp  *Compound `parser:"@@"`
}

// Compound is a run of simple selectors with no whitespace between them.
type Compound struct {
	Parts []*Part `parser:"@@+"`
}

// Part is one simple selector.
type Part struct {
	Root   string  `parser:"  '^' @Ident"`
	Type   string  `parser:"| '.' @Ident"`
	ID     string  `parser:"| '#' @Ident"`
	Star   bool    `parser:"| @'*'"`
	Attr   *Attr   `parser:"| @@"`
	Pseudo *Pseudo `parser:"| @@"`
}

// Attr is an attribute filter "[key op value]" or an existence test "[key]".
type Attr struct {
	Key   string `parser:"'[' WS? @Ident WS?"`
	Op    string `parser:"( @(Op | '>') WS?"`
	Value string `parser:"  @(String | Number | Ident) WS? )? ']'"`
}

// Pseudo is ":name" with optional arguments; a namespaced type such as
// ".cb:summary" also parses as a pseudo, as the grammar cannot tell them
// apart without the list of pseudo names.
type Pseudo struct {
	Name string   `parser:"':' @Ident"`
	Args []string `parser:"( '(' WS? ( @(Range | Number | Ident) WS? ( ',' WS? @(Range | Number | Ident) WS? )* )? ')' )?"`
}

// rules is the regexp lexer: the kind of lexer participle's documentation
// builds grammars with.
var rules = []lexer.SimpleRule{
	{Name: "Time", Pattern: `@(t-?\d+|c\d+|\*)(\.\.(t?-?\d+|c\d+))?`},
	{Name: "WS", Pattern: `[ \t]+`},
	{Name: "String", Pattern: `'[^']*'|"[^"]*"`},
	{Name: "Range", Pattern: `\d+-\d+`},
	{Name: "Number", Pattern: `-?\d+(\.\d+)?`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_-]*`},
	{Name: "Op", Pattern: `!=|<=|>=|\^=|\$=|\*=|~=|=|<`},
	{Name: "Punct", Pattern: `[>.#^*\[\]():,]`},
}

// NewRegexpParser returns the grammar with participle's regexp lexer.
func NewRegexpParser() (*participle.Parser[Selector], error) {
	p, err := participle.Build[Selector](participle.Lexer(lexer.MustSimple(rules)), participle.UseLookahead(2))
	if err != nil {
		return nil, fmt.Errorf("build grammar: %w", err)
	}
	return p, nil
}

// NewHandLexParser returns the grammar with a hand-written lexer, so that
// the benchmarks separate the lexer's cost from the parser's.
func NewHandLexParser() (*participle.Parser[Selector], error) {
	p, err := participle.Build[Selector](participle.Lexer(handDef{}), participle.UseLookahead(2))
	if err != nil {
		return nil, fmt.Errorf("build grammar: %w", err)
	}
	return p, nil
}

// Token types of the hand lexer; participle wants negative pseudo-runes.
const (
	tEOF lexer.TokenType = lexer.EOF - iota
	tTime
	tWS
	tString
	tRange
	tNumber
	tIdent
	tOp
	tPunct
	tInvalid
)

var symbols = map[string]lexer.TokenType{
	"EOF": tEOF, "Time": tTime, "WS": tWS, "String": tString, "Range": tRange,
	"Number": tNumber, "Ident": tIdent, "Op": tOp, "Punct": tPunct, "Invalid": tInvalid,
}

// handDef is a hand-written lexer.Definition producing the same tokens as
// rules.
type handDef struct{}

// Symbols implements lexer.Definition.
func (handDef) Symbols() map[string]lexer.TokenType { return symbols }

// Lex implements lexer.Definition.
func (d handDef) Lex(name string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read selector: %w", err)
	}
	return d.LexString(name, string(b))
}

// LexString implements lexer.StringDefinition, participle's fast path.
func (handDef) LexString(name, s string) (lexer.Lexer, error) {
	return &handLexer{name: name, src: s}, nil
}

type handLexer struct {
	name string
	src  string
	pos  int
}

// Next implements lexer.Lexer. It never fails: a byte no rule accepts is an
// Invalid token, which the grammar then rejects.
func (l *handLexer) Next() (lexer.Token, error) {
	s, i := l.src, l.pos
	if i >= len(s) {
		return lexer.EOFToken(l.at(i)), nil
	}
	typ, j := l.scan(s, i)
	l.pos = j
	return lexer.Token{Type: typ, Value: s[i:j], Pos: l.at(i)}, nil
}

func (l *handLexer) at(off int) lexer.Position {
	return lexer.Position{Filename: l.name, Offset: off, Line: 1, Column: off + 1}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func digits(s string, j int) int {
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}

// scan returns the type and end of the token at s[i].
func (l *handLexer) scan(s string, i int) (lexer.TokenType, int) {
	c := s[i]
	switch {
	case c == ' ' || c == '\t':
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		return tWS, j
	case c == '@':
		return tTime, scanTime(s, i)
	case c == '\'' || c == '"':
		if k := strings.IndexByte(s[i+1:], c); k >= 0 {
			return tString, i + k + 2
		}
		return tInvalid, len(s)
	case isDigit(c) || c == '-' && i+1 < len(s) && isDigit(s[i+1]):
		j := digits(s, i+1)
		if c != '-' && j+1 < len(s) && s[j] == '-' && isDigit(s[j+1]) {
			return tRange, digits(s, j+1)
		}
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			j = digits(s, j+1)
		}
		return tNumber, j
	case isIdentStart(c):
		j := i + 1
		for j < len(s) && (isIdentStart(s[j]) || isDigit(s[j]) || s[j] == '-') {
			j++
		}
		return tIdent, j
	}
	if i+1 < len(s) && s[i+1] == '=' && strings.IndexByte("!<>^$*~", c) >= 0 {
		return tOp, i + 2
	}
	switch c {
	case '=', '<':
		return tOp, i + 1
	case '>', '.', '#', '^', '*', '[', ']', '(', ')', ':', ',':
		return tPunct, i + 1
	}
	return tInvalid, i + 1
}

// scanTime scans "@t0", "@t-1", "@c42", "@*" and ranges "@t-5..-1".
func scanTime(s string, i int) int {
	j := i + 1
	atom := func(j int) int {
		if j < len(s) && (s[j] == 't' || s[j] == 'c') {
			j++
		}
		if j < len(s) && s[j] == '-' {
			j++
		}
		return digits(s, j)
	}
	if j < len(s) && s[j] == '*' {
		return j + 1
	}
	j = atom(j)
	if j+1 < len(s) && s[j] == '.' && s[j+1] == '.' {
		j = atom(j + 2)
	}
	return j
}
