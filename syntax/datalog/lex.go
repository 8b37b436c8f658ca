package datalog

import (
	"fmt"

	"github.com/ctxql/ctxql/syntax"
)

// Kind classifies a token.
type Kind uint8

// The token kinds. The lexer is total: every byte of the input belongs to
// exactly one token, and bytes that start no token become Invalid tokens.
const (
	TokEOF     Kind = iota
	TokIdent        // identifiers, keywords ("relation", "if") and the wildcard "_"
	TokNumber       // integer or decimal literal, optionally signed
	TokString       // double-quoted string literal with backslash escapes
	TokArrow        // "<--"
	TokLParen       // "("
	TokRParen       // ")"
	TokComma        // ","
	TokSemi         // ";"
	TokDot          // "."
	TokBang         // "!"
	TokOp           // "==", "!=", "<", "<=", ">", ">="
	TokComment      // "//" to the end of the line
	TokInvalid      // a byte (or unterminated literal) that starts no token
	TokArith        // "+", "-", "*", "/", "%"
	TokLogic        // "&&", "||"
	TokPunct        // "=", "|", "..", "..=", "?", "&", "#", "{", "}", "[", "]", ":", "::", "'"
)

var kindNames = [...]string{"end of input", "identifier", "number", "string", "'<--'", "'('", "')'", "','", "';'", "'.'", "'!'", "operator", "comment", "invalid token", "arithmetic operator", "logical operator", "punctuation"}

// Keywords are the identifiers with a meaning of their own: declarations,
// body clauses and the boolean constants. "Dual" wraps lattice values.
var Keywords = []string{"relation", "lattice", "if", "let", "for", "in", "agg", "true", "false"}

// IsKeyword reports whether an identifier is one of Keywords.
func IsKeyword(s string) bool {
	switch s {
	case "relation", "lattice", "if", "let", "for", "in", "agg", "true", "false":
		return true
	}
	return false
}

// String names the kind for error messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Token is one lexeme with its byte span. Text is the exact source slice.
type Token struct {
	Kind Kind        `json:"kind"`
	Span syntax.Span `json:"span"`
	Text string      `json:"text"`
}

func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Lex splits src into tokens, comments included, ending with an EOF token.
// It never fails: unknown bytes become Invalid tokens.
func Lex(src string) []Token {
	toks, _ := lexInto(nil, src)
	return toks
}

// lexCounts counts tokens of some kinds as the lexer emits them, so that
// the parser and the checker need not scan the tokens again for them.
type lexCounts struct {
	comments, idents int
	// macros counts the identifiers "macro".
	macros int
}

// lexInto is Lex appending to buf[:0]. A buffer with room for a token per
// two bytes is used as it is (grown by appending if the source has more);
// otherwise the tokens go to a new slice sized by tokenEstimate.
func lexInto(buf []Token, src string) ([]Token, lexCounts) {
	toks := buf[:0]
	if cap(buf) < len(src)/2+1 {
		if n := tokenEstimate(src) + 1; cap(buf) < n {
			toks = make([]Token, 0, n)
		}
	}
	var counts lexCounts
	i := 0
	add := func(k Kind, start, end int) {
		toks = append(toks, Token{Kind: k, Span: syntax.Sp(start, end), Text: src[start:end]})
		i = end
	}
	// afterOperand reports whether the last token ends an operand, so that
	// a "-" before a digit is subtraction ("x-1") rather than a sign.
	afterOperand := func() bool {
		for k := len(toks) - 1; k >= 0; k-- {
			switch toks[k].Kind {
			case TokComment:
				continue
			case TokIdent, TokNumber, TokString, TokRParen:
				return true
			}
			return false
		}
		return false
	}
	// two reports whether the byte after i is b.
	two := func(b byte) bool { return i+1 < len(src) && src[i+1] == b }
	// pair adds a two-byte token of kind k2 when b follows, and the
	// one-byte token of kind k1 otherwise.
	pair := func(b byte, k2, k1 Kind) {
		if two(b) {
			add(k2, i, i+2)
		} else {
			add(k1, i, i+1)
		}
	}
	for i < len(src) {
		c := src[i]
		// A switch on the byte itself compiles to a jump table.
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
		case '/':
			if !two('/') {
				add(TokArith, i, i+1)
				continue
			}
			j := i
			for j < len(src) && src[j] != '\n' {
				j++
			}
			add(TokComment, i, j)
			counts.comments++
		case '$':
			if i+1 < len(src) && isIdentStart(src[i+1]) {
				// "$x" is a macro parameter.
				j := i + 1
				for j < len(src) && identChar[src[j]] {
					j++
				}
				counts.idents++
				add(TokIdent, i, j)
				continue
			}
			lexInvalid(src, i, add)
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			add(TokNumber, i, numberEnd(src, i))
		case '-':
			if i+1 < len(src) && isDigit(src[i+1]) && !afterOperand() {
				add(TokNumber, i, numberEnd(src, i))
			} else {
				add(TokArith, i, i+1)
			}
		case '"':
			j := i + 1
			closed := false
			for j < len(src) {
				if src[j] == '\\' && j+1 < len(src) {
					j += 2
					continue
				}
				if src[j] == '"' {
					j++
					closed = true
					break
				}
				if src[j] == '\n' {
					break
				}
				j++
			}
			if closed {
				add(TokString, i, j)
			} else {
				add(TokInvalid, i, j)
			}
		case '<':
			switch {
			case i+2 < len(src) && src[i+1] == '-' && src[i+2] == '-':
				add(TokArrow, i, i+3)
			case two('='):
				add(TokOp, i, i+2)
			default:
				add(TokOp, i, i+1)
			}
		case '>':
			pair('=', TokOp, TokOp)
		case '=':
			pair('=', TokOp, TokPunct)
		case '!':
			pair('=', TokOp, TokBang)
		case ':':
			switch {
			case two('-'):
				add(TokInvalid, i, i+2) // Prolog's arrow; the parser suggests "<--"
			case two(':'):
				add(TokPunct, i, i+2)
			default:
				add(TokPunct, i, i+1)
			}
		case '(':
			add(TokLParen, i, i+1)
		case ')':
			add(TokRParen, i, i+1)
		case ',':
			add(TokComma, i, i+1)
		case ';':
			add(TokSemi, i, i+1)
		case '.':
			switch {
			case i+2 < len(src) && src[i+1] == '.' && src[i+2] == '=':
				add(TokPunct, i, i+3)
			case two('.'):
				add(TokPunct, i, i+2)
			default:
				add(TokDot, i, i+1)
			}
		case '+', '*', '%':
			add(TokArith, i, i+1)
		case '&':
			pair('&', TokLogic, TokPunct)
		case '|':
			pair('|', TokLogic, TokPunct)
		case '?', '#', '{', '}', '[', ']', '\'':
			add(TokPunct, i, i+1)
		default:
			if !isIdentStart(c) {
				lexInvalid(src, i, add)
				continue
			}
			j := i + 1
			for j < len(src) && identChar[src[j]] {
				j++
			}
			counts.idents++
			if j-i == 5 && src[i:j] == "macro" {
				counts.macros++
			}
			add(TokIdent, i, j)
		}
	}
	toks = append(toks, Token{Kind: TokEOF, Span: syntax.Sp(len(src), len(src))})
	return toks, counts
}

// numberEnd returns the end of the number literal starting at i: an
// optional sign, digits, and a fraction when a digit follows the dot.
func numberEnd(src string, i int) int {
	j := i + 1
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	return j
}

// lexInvalid adds the Invalid token at i: one per byte run up to the next
// plausible token start, which keeps error counts low for binary garbage.
func lexInvalid(src string, i int, add func(k Kind, start, end int)) {
	j := i + 1
	for j < len(src) && src[j] >= 0x80 {
		j++
	}
	add(TokInvalid, i, j)
}

// identChar tells the bytes an identifier continues with (isIdentChar).
var identChar = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isIdentChar(byte(c))
	}
	return t
}()

// tokenEstimate counts the bytes that can start a token: those that are
// neither white space nor an identifier character following another.
// It bounds the token count of ordinary programs, so that Lex allocates
// its slice once.
func tokenEstimate(src string) int {
	n := 0
	prevIdent := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		ident := isIdentChar(c)
		if !(ident && prevIdent) && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			n++
		}
		prevIdent = ident
	}
	return n
}
