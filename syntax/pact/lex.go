package pact

import (
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
)

// lexKind is the lexical class of a token. The lexer is total: every byte of
// the input belongs to exactly one token, and bytes no rule accepts become
// lInvalid tokens, so the parser always has something to build a partial AST
// from.
type lexKind uint8

const (
	lEOF     lexKind = iota
	lSpace           // blanks and tabs (and carriage returns)
	lNewline         // "\n"
	lComment         // "//" to the end of the line (files only)
	lIdent           // [A-Za-z_][A-Za-z0-9_-]*
	lNumber          // digits, optionally "." digits
	lString          // '...' or "..."; bad when unterminated
	lTime            // "@t0", "@t-1", "@t+2", "@t-*", "@c42", "@history"
	lAtStar          // "@*"
	lControl         // "@name"
	lAt              // a lone "@" (as in the legacy "c@3" and "*@+")
	lDot             // "."
	lDotDot          // ".."
	lColon           // ":"
	lComma           // ","
	lLParen          // "("
	lRParen          // ")"
	lLBrack          // "["
	lRBrack          // "]"
	lLBrace          // "{"
	lRBrace          // "}"
	lCaret           // "^"
	lHash            // "#"
	lStar            // "*"
	lPlus            // "+"
	lMinus           // "-"
	lGt              // ">"
	lGe              // ">="
	lLt              // "<"
	lLe              // "<="
	lEq              // "="
	lNe              // "!="
	lTilde           // "~"
	lQuest           // "?"
	lQQ              // "??"
	lInvalid         // anything else
)

// tok is one lexical token.
type tok struct {
	kind  lexKind
	sem   TokenKind // semantic kind, refined by the parser
	bad   bool      // lString: unterminated; lTime: malformed
	start int
	end   int
}

func (t tok) span() syntax.Span { return syntax.Span{Start: t.start, End: t.end} }

// defaultSem is lexDefault as a table, indexed by every lexical kind. It
// is read-only.
var defaultSem = func() (t [lInvalid + 1]TokenKind) {
	for k := range t {
		t[k] = lexDefault(lexKind(k))
	}
	return t
}()

// lexDefault maps a lexical kind to the semantic kind a token keeps when the
// parser does not refine it.
func lexDefault(k lexKind) TokenKind {
	switch k {
	case lComment:
		return TokenComment
	case lIdent:
		return TokenIdent
	case lNumber:
		return TokenNumber
	case lString:
		return TokenString
	case lTime:
		return TokenTime
	case lAtStar, lControl:
		return TokenControl
	case lInvalid, lAt:
		return TokenInvalid
	case lGt, lGe, lLt, lLe, lEq, lNe, lTilde, lQuest, lQQ, lDotDot:
		return TokenOperator
	}
	return TokenPunct
}

// Byte classes, as bits of byteClass.
const (
	classLetter    = 1 << iota // [A-Za-z_]
	classDigit                 // [0-9]
	classIdentByte             // [A-Za-z0-9_-]
)

// byteClass holds the classes of every byte value. It is read-only.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' {
			t[c] |= classLetter | classIdentByte
		}
		if b >= '0' && b <= '9' {
			t[c] |= classDigit | classIdentByte
		}
		if b == '-' {
			t[c] |= classIdentByte
		}
	}
	return t
}()

func isLetter(c byte) bool    { return byteClass[c]&classLetter != 0 }
func isDigit(c byte) bool     { return byteClass[c]&classDigit != 0 }
func isIdentByte(c byte) bool { return byteClass[c]&classIdentByte != 0 }

// lex splits src into tokens that tile it exactly. With comments set, "//"
// starts a comment running to the end of the line; otherwise "/" is invalid.
// It never fails.
func lex(src string, comments bool) []tok {
	toks := make([]tok, 0, len(src)/2+4)
	for i := 0; i < len(src); {
		end, k, bad := lexOne(src, i, comments)
		toks = append(toks, tok{kind: k, sem: lexDefault(k), bad: bad, start: i, end: end})
		i = end
	}
	return toks
}

// lexLine appends to dst the tokens of the line starting at offset i of
// src, without its newline, and returns them with the offset just past the
// newline (len(src) on the last line). No token spans a newline, so the
// lines' tokens are exactly lex's tokens between its lNewline tokens.
func lexLine(dst []tok, src string, i int, comments bool) ([]tok, int) {
	for i < len(src) {
		c := src[i]
		// The common tokens inline; everything else through lexOne.
		switch {
		case c == '\n':
			return dst, i + 1
		case c == ' ':
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r' || src[j] == '\f' || src[j] == '\v') {
				j++
			}
			dst = append(dst, tok{kind: lSpace, sem: TokenPunct, start: i, end: j})
			i = j
			continue
		case isLetter(c):
			j := i + 1
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			dst = append(dst, tok{kind: lIdent, sem: TokenIdent, start: i, end: j})
			i = j
			continue
		case c < utf8.RuneSelf && punct[c] != lEOF:
			// No rule of lexOne before its punct table takes these bytes:
			// each is a token of its own.
			k := punct[c]
			dst = append(dst, tok{kind: k, sem: defaultSem[k], start: i, end: i + 1})
			i++
			continue
		}
		end, k, bad := lexOne(src, i, comments)
		dst = append(dst, tok{kind: k, sem: defaultSem[k], bad: bad, start: i, end: end})
		i = end
	}
	return dst, i
}

// lexOne lexes the token starting at src[i] and returns its end, kind and
// whether it is malformed.
func lexOne(src string, i int, comments bool) (int, lexKind, bool) {
	n := len(src)
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		for i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\f' || src[i] == '\v') {
			i++
		}
		return i, lSpace, false
	case c == '\n':
		return i + 1, lNewline, false
	case comments && c == '/' && i+1 < n && src[i+1] == '/':
		for i < n && src[i] != '\n' {
			i++
		}
		return i, lComment, false
	case isLetter(c):
		for i < n && isIdentByte(src[i]) {
			i++
		}
		return i, lIdent, false
	case isDigit(c):
		for i < n && isDigit(src[i]) {
			i++
		}
		if i+1 < n && src[i] == '.' && isDigit(src[i+1]) {
			i++
			for i < n && isDigit(src[i]) {
				i++
			}
		}
		return i, lNumber, false
	case c == '\'' || c == '"':
		i++
		for i < n {
			if src[i] == '\\' && i+1 < n && src[i+1] != '\n' {
				i += 2
				continue
			}
			if src[i] == '\n' {
				break
			}
			if src[i] == c {
				return i + 1, lString, false
			}
			i++
		}
		return i, lString, true
	case c == '@':
		return lexAt(src, i)
	case c == '.':
		if i+1 < n && src[i+1] == '.' {
			return i + 2, lDotDot, false
		}
		return i + 1, lDot, false
	case c == '?':
		if i+1 < n && src[i+1] == '?' {
			return i + 2, lQQ, false
		}
		return i + 1, lQuest, false
	case c == '>':
		if i+1 < n && src[i+1] == '=' {
			return i + 2, lGe, false
		}
		return i + 1, lGt, false
	case c == '<':
		if i+1 < n && src[i+1] == '=' {
			return i + 2, lLe, false
		}
		return i + 1, lLt, false
	case c == '!':
		if i+1 < n && src[i+1] == '=' {
			return i + 2, lNe, false
		}
		return i + 1, lInvalid, false
	}
	if c < utf8.RuneSelf {
		if k := punct[c]; k != lEOF {
			return i + 1, k, false
		}
		return i + 1, lInvalid, false
	}
	_, size := utf8.DecodeRuneInString(src[i:])
	return i + size, lInvalid, false
}

// punct maps single-byte punctuation to its kind; unlisted bytes (lEOF)
// are invalid. It is read-only.
var punct = [utf8.RuneSelf]lexKind{
	':': lColon, ',': lComma, '(': lLParen, ')': lRParen, '[': lLBrack, ']': lRBrack,
	'{': lLBrace, '}': lRBrace, '^': lCaret, '#': lHash, '*': lStar, '+': lPlus,
	'-': lMinus, '=': lEq, '~': lTilde,
}

// lexAt lexes a token starting with "@" at src[i].
func lexAt(src string, i int) (int, lexKind, bool) {
	n := len(src)
	j := i + 1
	if j >= n {
		return j, lAt, false
	}
	switch c := src[j]; {
	case c == '*':
		return j + 1, lAtStar, false
	case c == 't' && j+1 < n && (isDigit(src[j+1]) || src[j+1] == '-' || src[j+1] == '+' || src[j+1] == '*'):
		j++
		if src[j] == '-' || src[j] == '+' {
			j++
		}
		switch {
		case j < n && src[j] == '*':
			return j + 1, lTime, false
		case j < n && isDigit(src[j]):
			for j < n && isDigit(src[j]) {
				j++
			}
			return j, lTime, false
		}
		return j, lTime, true
	case c == 'c' && j+1 < n && isDigit(src[j+1]):
		j++
		for j < n && isDigit(src[j]) {
			j++
		}
		return j, lTime, false
	case isLetter(c):
		k := j
		for k < n && isIdentByte(src[k]) {
			k++
		}
		if src[j:k] == "history" {
			return k, lTime, false
		}
		return k, lControl, false
	}
	return j, lAt, false
}
