package host

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
)

// tokKind classifies the tokens the call finder needs; comments and
// whitespace produce no tokens.
type tokKind uint8

const (
	tokIdent  tokKind = iota + 1
	tokPunct          // one ASCII punctuation byte (ch)
	tokString         // a string literal; lit is nil when it cannot be used
	tokOther          // numbers, regular expressions, rune literals, other bytes
)

type token struct {
	kind tokKind
	ch   byte
	span syntax.Span
	lit  *Literal
}

type scanner struct {
	lang  lang
	src   []byte
	i     int
	toks  []token
	depth int // nesting of template substitutions
}

// maxTemplateDepth bounds the nesting of template substitutions the scanner
// follows, so hostile input cannot exhaust the stack.
const maxTemplateDepth = 64

func tokenize(l lang, src []byte) []token {
	s := &scanner{lang: l, src: src}
	s.code(false)
	return s.toks
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func (s *scanner) emit(k tokKind, start int, ch byte, lit *Literal) {
	s.toks = append(s.toks, token{kind: k, ch: ch, span: syntax.Span{Start: start, End: s.i}, lit: lit})
}

// code scans code. In nested mode (a JavaScript template substitution) it
// returns after the "}" that closes the substitution.
func (s *scanner) code(nested bool) {
	depth := 0
	for s.i < len(s.src) {
		c := s.src[s.i]
		start := s.i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			s.i++
		case c == '#' && s.lang == langPython:
			s.skipLine()
		case c == '/' && s.lang != langPython && s.peek(1) == '/':
			s.skipLine()
		case c == '/' && s.lang != langPython && s.peek(1) == '*':
			if e := bytes.Index(s.src[s.i+2:], []byte("*/")); e >= 0 {
				s.i += 2 + e + 2
			} else {
				s.i = len(s.src)
			}
		case c == '/' && s.lang == langJS && s.regexAllowed():
			s.regex()
			s.emit(tokOther, start, 0, nil)
		case isIdentStart(c):
			for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
				s.i++
			}
			if s.lang == langPython && s.i < len(s.src) && (s.src[s.i] == '\'' || s.src[s.i] == '"') {
				s.pyString(start)
				continue
			}
			s.emit(tokIdent, start, 0, nil)
		case c >= '0' && c <= '9':
			for s.i < len(s.src) && (isIdentPart(s.src[s.i]) || s.src[s.i] == '.') {
				s.i++
			}
			s.emit(tokOther, start, 0, nil)
		case c == '"' || c == '\'' || c == '`':
			switch s.lang {
			case langJS:
				if c == '`' {
					s.jsTemplate(start)
				} else {
					s.quoted(start, c, kindJSQuoted)
				}
			case langPython:
				if c == '`' {
					s.i++
					s.emit(tokOther, start, 0, nil)
				} else {
					s.pyString(start)
				}
			case langGo:
				switch c {
				case '"':
					s.quoted(start, c, kindGoQuoted)
				case '`':
					s.goRaw(start)
				default: // rune literal: may hold a quote character
					s.quotedEnd(c)
					s.emit(tokOther, start, 0, nil)
				}
			}
		default:
			if nested {
				switch c {
				case '{':
					depth++
				case '}':
					if depth == 0 {
						s.i++
						return
					}
					depth--
				}
			}
			if c < utf8.RuneSelf {
				s.i++
				s.emit(tokPunct, start, c, nil)
			} else {
				s.i++
				s.emit(tokOther, start, 0, nil)
			}
		}
	}
}

func (s *scanner) peek(d int) byte {
	if s.i+d < len(s.src) {
		return s.src[s.i+d]
	}
	return 0
}

func (s *scanner) skipLine() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

// jsKeywordsBeforeRegex are the keywords after which "/" starts a regular
// expression rather than a division.
var jsKeywordsBeforeRegex = map[string]bool{
	"return": true, "typeof": true, "case": true, "do": true, "else": true, "in": true, "of": true,
	"new": true, "delete": true, "void": true, "throw": true, "instanceof": true, "yield": true, "await": true,
}

// regexAllowed applies the usual heuristic: "/" starts a regular expression
// unless it follows an operand (identifier, number, string, ")" or "]").
func (s *scanner) regexAllowed() bool {
	if len(s.toks) == 0 {
		return true
	}
	t := s.toks[len(s.toks)-1]
	switch t.kind {
	case tokIdent:
		return jsKeywordsBeforeRegex[string(s.src[t.span.Start:t.span.End])]
	case tokString, tokOther:
		return false
	case tokPunct:
		return t.ch != ')' && t.ch != ']' && t.ch != '}'
	}
	return true
}

// regex skips a regular expression literal with its flags; it stops at the
// end of the line when unterminated.
func (s *scanner) regex() {
	s.i++ // opening '/'
	inClass := false
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			return
		case c == '\\':
			s.i += 2
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			s.i++
			for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
				s.i++
			}
			return
		}
		s.i++
	}
	s.i = min(s.i, len(s.src))
}

// quotedEnd skips a single-line quoted literal starting at s.i and reports
// whether it was terminated; an unterminated one ends before the newline.
func (s *scanner) quotedEnd(q byte) bool {
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch c {
		case '\\':
			s.i += 2
			if s.i > len(s.src) {
				s.i = len(s.src)
			}
			continue
		case '\n':
			return false
		case q:
			s.i++
			return true
		}
		s.i++
	}
	return false
}

// quoted scans a single-line '...' or "..." literal (JavaScript, Go).
func (s *scanner) quoted(start int, q byte, k kind) {
	ok := s.quotedEnd(q)
	var lit *Literal
	if ok {
		lit = decodeLiteral(s.src, start, start+1, s.i-1, k, q, "")
	}
	s.emit(tokString, start, 0, lit)
}

// jsTemplate scans a template literal; one with substitutions is not usable,
// and the code inside its substitutions is not searched.
func (s *scanner) jsTemplate(start int) {
	s.i++
	subst := false
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\':
			s.i = min(s.i+2, len(s.src))
			continue
		case c == '`':
			s.i++
			var lit *Literal
			if !subst {
				lit = decodeLiteral(s.src, start, start+1, s.i-1, kindJSTemplate, '`', "")
			}
			s.emit(tokString, start, 0, lit)
			return
		case c == '$' && s.peek(1) == '{':
			subst = true
			s.i += 2
			if s.depth >= maxTemplateDepth {
				continue // too deep to follow: scan on as template text
			}
			saved := s.toks
			s.depth++
			s.code(true)
			s.depth--
			s.toks = saved
			continue
		}
		s.i++
	}
	s.emit(tokString, start, 0, nil)
}

// goRaw scans a Go raw string.
func (s *scanner) goRaw(start int) {
	e := bytes.IndexByte(s.src[s.i+1:], '`')
	if e < 0 {
		s.i = len(s.src)
		s.emit(tokString, start, 0, nil)
		return
	}
	s.i += 1 + e + 1
	s.emit(tokString, start, 0, decodeLiteral(s.src, start, start+1, s.i-1, kindGoRaw, '`', ""))
}

// pyString scans a Python string whose prefix (possibly empty) starts at
// start and whose quote is at s.i. Prefixes other than r and u (bytes,
// f-strings) make the literal unusable; an identifier that is no string
// prefix is emitted as an identifier and the string scanned on its own.
func (s *scanner) pyString(start int) {
	prefix := string(s.src[start:s.i])
	switch strings.ToLower(prefix) {
	case "", "r", "u", "b", "br", "rb", "f", "fr", "rf":
	default:
		s.emit(tokIdent, start, 0, nil)
		start = s.i
		prefix = ""
	}
	q := s.src[s.i]
	usable := !strings.ContainsAny(prefix, "bBfF")
	if s.peek(1) == q && s.peek(2) == q {
		s.i += 3
		body := s.i
		raw := strings.ContainsAny(prefix, "rR")
		for s.i < len(s.src) {
			c := s.src[s.i]
			if c == '\\' {
				s.i = min(s.i+2, len(s.src))
				continue
			}
			if c == q && s.peek(1) == q && s.peek(2) == q {
				s.i += 3
				var lit *Literal
				if usable {
					lit = decodePy(s.src, start, body, s.i-3, kindPyLong, q, prefix, raw)
				}
				s.emit(tokString, start, 0, lit)
				return
			}
			s.i++
		}
		s.emit(tokString, start, 0, nil)
		return
	}
	ok := s.quotedEnd(q)
	var lit *Literal
	if ok && usable {
		lit = decodePy(s.src, start, start+len(prefix)+1, s.i-1, kindPyShort, q, prefix, strings.ContainsAny(prefix, "rR"))
	}
	s.emit(tokString, start, 0, lit)
}
