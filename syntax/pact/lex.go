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

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isIdentByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '-'
}

// lex splits src into tokens that tile it exactly. With comments set, "//"
// starts a comment running to the end of the line; otherwise "/" is invalid.
// It never fails.
func lex(src string, comments bool) []tok {
	toks := make([]tok, 0, len(src)/2+4)
	i := 0
	n := len(src)
	for i < n {
		start := i
		c := src[i]
		k := lInvalid
		bad := false
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			for i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\f' || src[i] == '\v') {
				i++
			}
			k = lSpace
		case c == '\n':
			i++
			k = lNewline
		case comments && c == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
			k = lComment
		case isLetter(c):
			for i < n && isIdentByte(src[i]) {
				i++
			}
			k = lIdent
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
			k = lNumber
		case c == '\'' || c == '"':
			i++
			bad = true
			for i < n {
				if src[i] == '\\' && i+1 < n && src[i+1] != '\n' {
					i += 2
					continue
				}
				if src[i] == '\n' {
					break
				}
				if src[i] == c {
					i++
					bad = false
					break
				}
				i++
			}
			k = lString
		case c == '@':
			i, k, bad = lexAt(src, i)
		case c == '.':
			i++
			k = lDot
			if i < n && src[i] == '.' {
				i++
				k = lDotDot
			}
		case c == '?':
			i++
			k = lQuest
			if i < n && src[i] == '?' {
				i++
				k = lQQ
			}
		case c == '>':
			i++
			k = lGt
			if i < n && src[i] == '=' {
				i++
				k = lGe
			}
		case c == '<':
			i++
			k = lLt
			if i < n && src[i] == '=' {
				i++
				k = lLe
			}
		case c == '!':
			i++
			if i < n && src[i] == '=' {
				i++
				k = lNe
			}
		default:
			if c < utf8.RuneSelf {
				i++
				if k = punct[c]; k == lEOF {
					k = lInvalid
				}
			} else {
				_, size := utf8.DecodeRuneInString(src[i:])
				i += size
			}
		}
		toks = append(toks, tok{kind: k, sem: lexDefault(k), bad: bad, start: start, end: i})
	}
	return toks
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
