package pactgrammar

import (
	"fmt"
	"io"

	"github.com/alecthomas/participle/v2/lexer"
)

// The reference grammars' tokens, written from the terminals of v1 §4 and
// v2 §4. Whitespace is a token: it is the descendant combinator, so the
// grammars say where it may appear. The pseudo-class names are a token
// type of their own (PseudoName), so that ".cb:summary" (a namespaced
// type) and ".cb:first" (a type and a pseudo-class) differ in the grammar
// rather than in code.
const (
	rEOF lexer.TokenType = lexer.EOF - iota
	rWS
	rTime    // @t0 @t-1 @t+2 @t-* @c42 @history; malformed ones are BadTime
	rBadTime // "@t" not followed by a digit, sign or "*"
	rAtStar  // @*
	rControl // @name
	rAt      // a lone "@"
	rDotDot  // ..
	rQQ      // ??
	rOp2     // != <= >=
	rString
	rBadString // unterminated
	rNumber    // digits, optionally "." digits
	rPseudo    // pre core post first last nth depth
	rDepth     // dN, d-N: a structural depth
	rIdent     // [A-Za-z_][A-Za-z0-9_-]*
	rPunct     // . # ^ * [ ] ( ) { } : , > < = ~ + - ?
	rInvalid
)

var refSymbols = map[string]lexer.TokenType{
	"EOF": rEOF, "WS": rWS, "Time": rTime, "BadTime": rBadTime, "AtStar": rAtStar, "Control": rControl,
	"At": rAt, "DotDot": rDotDot, "QQ": rQQ, "Op2": rOp2, "String": rString, "BadString": rBadString,
	"Number": rNumber, "PseudoName": rPseudo, "DepthIdent": rDepth, "Ident": rIdent, "Punct": rPunct, "Invalid": rInvalid,
}

// refDef is the reference lexer.
type refDef struct{}

func (refDef) Symbols() map[string]lexer.TokenType { return refSymbols }

func (d refDef) Lex(name string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read query: %w", err)
	}
	return d.LexString(name, string(b))
}

func (refDef) LexString(name, s string) (lexer.Lexer, error) {
	return &refLexer{name: name, src: s}, nil
}

type refLexer struct {
	name string
	src  string
	pos  int
}

func (l *refLexer) Next() (lexer.Token, error) {
	s, i := l.src, l.pos
	if i >= len(s) {
		return lexer.EOFToken(l.at(i)), nil
	}
	typ, j := refScan(s, i)
	l.pos = j
	return lexer.Token{Type: typ, Value: s[i:j], Pos: l.at(i)}, nil
}

func (l *refLexer) at(off int) lexer.Position {
	return lexer.Position{Filename: l.name, Offset: off, Line: 1, Column: off + 1}
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '-' }

func refScan(s string, i int) (lexer.TokenType, int) {
	c := s[i]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\f' || s[j] == '\v') {
			j++
		}
		return rWS, j
	case isLetter(c):
		j := i
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		switch w := s[i:j]; {
		case w == "pre", w == "core", w == "post", w == "first", w == "last", w == "nth", w == "depth":
			return rPseudo, j
		case isDepthWord(w):
			return rDepth, j
		}
		return rIdent, j
	case isDigit(c):
		j := digits(s, i)
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			j = digits(s, j+1)
		}
		return rNumber, j
	case c == '\'' || c == '"':
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				if j+1 < len(s) && s[j+1] != '\n' {
					j++
				}
			case '\n':
				return rBadString, j
			case c:
				return rString, j + 1
			}
		}
		return rBadString, len(s)
	case c == '@':
		return scanAt(s, i)
	case c == '.' && i+1 < len(s) && s[i+1] == '.':
		return rDotDot, i + 2
	case c == '?' && i+1 < len(s) && s[i+1] == '?':
		return rQQ, i + 2
	case (c == '!' || c == '<' || c == '>') && i+1 < len(s) && s[i+1] == '=':
		return rOp2, i + 2
	}
	switch c {
	case '.', '#', '^', '*', '[', ']', '(', ')', '{', '}', ':', ',', '>', '<', '=', '~', '+', '-', '?':
		return rPunct, i + 1
	}
	if c >= 0x80 {
		j := i + 1
		for j < len(s) && s[j]&0xC0 == 0x80 {
			j++
		}
		return rInvalid, j
	}
	return rInvalid, i + 1
}

func scanAt(s string, i int) (lexer.TokenType, int) {
	j := i + 1
	if j >= len(s) {
		return rAt, j
	}
	switch c := s[j]; {
	case c == '*':
		return rAtStar, j + 1
	case c == 't' && j+1 < len(s) && (isDigit(s[j+1]) || s[j+1] == '-' || s[j+1] == '+' || s[j+1] == '*'):
		j++
		if s[j] == '-' || s[j] == '+' {
			j++
		}
		if j < len(s) && s[j] == '*' {
			return rTime, j + 1
		}
		if j < len(s) && isDigit(s[j]) {
			return rTime, digits(s, j)
		}
		return rBadTime, j
	case c == 'c' && j+1 < len(s) && isDigit(s[j+1]):
		return rTime, digits(s, j+1)
	case isLetter(c):
		k := j
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
		if s[j:k] == "history" {
			return rTime, k
		}
		return rControl, k
	}
	return rAt, j
}

// isDepthWord reports whether w is "d" followed by an optional "-" and digits.
func isDepthWord(w string) bool {
	if len(w) < 2 || w[0] != 'd' {
		return false
	}
	w = w[1:]
	if w[0] == '-' {
		w = w[1:]
	}
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return true
}
