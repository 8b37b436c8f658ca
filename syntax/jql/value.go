package jql

import (
	"strconv"
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
)

// Kind is the kind of a parsed Value.
type Kind uint8

// The value kinds. KindInvalid marks a value that could not be parsed.
const (
	KindInvalid Kind = iota
	KindObject
	KindArray
	KindString
	KindNumber
	KindBool
	KindNull
)

var kindNames = [...]string{"invalid", "object", "array", "string", "number", "boolean", "null"}

// String returns the kind's name as used in messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Value is one node of a query document, whichever text form it was
// written in, with the byte span it covers in the source.
type Value struct {
	// Kind says which of the other fields are meaningful.
	Kind Kind
	// Sp covers the whole value, quotes and brackets included.
	Sp syntax.Span
	// Str is the decoded text of a string, or the literal text of a number.
	Str string
	// Num is the value of a number.
	Num float64
	// Bool is the value of a boolean.
	Bool bool
	// Members are the entries of an object, in source order.
	Members []*Member
	// Elems are the elements of an array, in source order.
	Elems []*Value

	// base is the source offset of Str's first byte when the string has no
	// escapes; offs maps each decoded byte (and the end) to its source offset
	// otherwise.
	base int
	offs []int
}

// Member is one key-value entry of an object.
type Member struct {
	// Key is the key, always of KindString.
	Key *Value
	// Value is the entry's value; nil when the entry is incomplete.
	Value *Value
}

// Get returns the value of the first member named key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil {
		return nil
	}
	for _, m := range v.Members {
		if m.Key.Str == key {
			return m.Value
		}
	}
	return nil
}

// SubSpan returns the source span of the decoded bytes Str[i:j] of a string
// value. Escapes are accounted for, so the span always covers the source text
// that decodes to those bytes.
func (v *Value) SubSpan(i, j int) syntax.Span {
	if i < 0 {
		i = 0
	}
	if j > len(v.Str) {
		j = len(v.Str)
	}
	if i > j {
		i = j
	}
	if v.offs == nil {
		return syntax.Sp(v.base+i, v.base+j)
	}
	if len(v.offs) != len(v.Str)+1 {
		return v.Sp
	}
	return syntax.Sp(v.offs[i], v.offs[j])
}

func newString(s string, span syntax.Span, base int, offs []int) *Value {
	return &Value{Kind: KindString, Str: s, Sp: span, base: base, offs: offs}
}

// token kinds of the relaxed JSON / object-literal lexer.
type tokKind uint8

const (
	tEOF tokKind = iota
	tLBrace
	tRBrace
	tLBrack
	tRBrack
	tColon
	tComma
	tSemi
	tString
	tNumber
	tIdent
	tInvalid
)

var tokNames = [...]string{"end of input", "'{'", "'}'", "'['", "']'", "':'", "','", "';'", "string", "number", "identifier", "invalid character"}

type token struct {
	kind tokKind
	span syntax.Span
	// str is the decoded string for tString; offs as in Value.
	str     string
	offs    []int
	single  bool // single-quoted string
	errMsg  string
	errSpan syntax.Span
}

// lexer is a total lexer: every byte of the input ends up in some token,
// unknown bytes in tInvalid ones.
type lexer struct {
	src     string
	pos     int
	relaxed bool // saw a comment or other non-JSON syntax
	diags   []syntax.Diagnostic
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/':
			l.relaxed = true
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '*':
			l.relaxed = true
			start := l.pos
			l.pos += 2
			for {
				if l.pos+1 >= len(l.src) {
					l.pos = len(l.src)
					l.diags = append(l.diags, diag(syntax.Sp(start, start+2), CodeSyntax, "unterminated comment"))
					return
				}
				if l.src[l.pos] == '*' && l.src[l.pos+1] == '/' {
					l.pos += 2
					break
				}
				l.pos++
			}
		case c == 0xEF && l.pos == 0 && len(l.src) >= 3 && l.src[:3] == "\uFEFF":
			l.pos += 3
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') || c == '-' }

func (l *lexer) next() token {
	l.skipSpace()
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tEOF, span: syntax.Sp(start, start)}
	}
	c := l.src[l.pos]
	one := func(k tokKind) token { l.pos++; return token{kind: k, span: syntax.Sp(start, l.pos)} }
	switch {
	case c == '{':
		return one(tLBrace)
	case c == '}':
		return one(tRBrace)
	case c == '[':
		return one(tLBrack)
	case c == ']':
		return one(tRBrack)
	case c == ':':
		return one(tColon)
	case c == ',':
		return one(tComma)
	case c == ';':
		return one(tSemi)
	case c == '"' || c == '\'':
		return l.lexString(c)
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return l.lexNumber()
	case isIdentStart(c):
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		return token{kind: tIdent, span: syntax.Sp(start, l.pos), str: l.src[start:l.pos]}
	}
	_, n := utf8.DecodeRuneInString(l.src[l.pos:])
	l.pos += n
	return token{kind: tInvalid, span: syntax.Sp(start, l.pos)}
}

func (l *lexer) lexNumber() token {
	start := l.pos
	if c := l.src[l.pos]; c == '-' || c == '+' {
		if c == '+' {
			l.relaxed = true
		}
		l.pos++
	}
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '_' || isIdentStart(c) {
			l.pos++
			continue
		}
		if (c == '-' || c == '+') && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E') {
			l.pos++
			continue
		}
		break
	}
	t := token{kind: tNumber, span: syntax.Sp(start, l.pos), str: l.src[start:l.pos]}
	if _, err := strconv.ParseFloat(t.str, 64); err != nil {
		t.errMsg = "invalid number " + strconv.Quote(t.str)
		t.errSpan = t.span
	}
	return t
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// lexString decodes a quoted string, remembering for every decoded byte the
// source offset it came from.
func (l *lexer) lexString(q byte) token {
	start := l.pos
	if q == '\'' {
		l.relaxed = true
	}
	l.pos++
	var buf []byte
	var offs []int
	escaped := false
	for {
		if l.pos >= len(l.src) || l.src[l.pos] == '\n' {
			t := token{kind: tString, span: syntax.Sp(start, l.pos), single: q == '\''}
			t.errMsg = "unterminated string"
			t.errSpan = syntax.Sp(start, start+1)
			t.str, t.offs = string(buf), append(offs, l.pos)
			return t
		}
		c := l.src[l.pos]
		if c == q {
			l.pos++
			break
		}
		if c != '\\' {
			buf = append(buf, c)
			offs = append(offs, l.pos)
			l.pos++
			continue
		}
		escaped = true
		es := l.pos
		if l.pos+1 >= len(l.src) {
			l.pos++
			continue
		}
		e := l.src[l.pos+1]
		l.pos += 2
		var out string
		switch e {
		case 'n':
			out = "\n"
		case 't':
			out = "\t"
		case 'r':
			out = "\r"
		case 'b':
			out = "\b"
		case 'f':
			out = "\f"
		case 'u':
			r := rune(-1)
			if l.pos+4 <= len(l.src) {
				v := 0
				for i := 0; i < 4; i++ {
					h := hexVal(l.src[l.pos+i])
					if h < 0 {
						v = -1
						break
					}
					v = v*16 + h
				}
				if v >= 0 {
					r = rune(v)
					l.pos += 4
				}
			}
			if r < 0 {
				l.diags = append(l.diags, diag(syntax.Sp(es, l.pos), CodeSyntax, "invalid \\u escape"))
				r = utf8.RuneError
			}
			if r >= 0xD800 && r < 0xDC00 && l.pos+6 <= len(l.src) && l.src[l.pos] == '\\' && l.src[l.pos+1] == 'u' {
				v := 0
				for i := 0; i < 4; i++ {
					h := hexVal(l.src[l.pos+2+i])
					if h < 0 {
						v = -1
						break
					}
					v = v*16 + h
				}
				if v >= 0xDC00 && v < 0xE000 {
					r = (r-0xD800)<<10 + (rune(v) - 0xDC00) + 0x10000
					l.pos += 6
				}
			}
			out = string(r)
		default:
			if e == '"' || e == '\\' || e == '/' {
				out = string(e)
			} else {
				l.relaxed = true
				out = string(e)
			}
		}
		for i := 0; i < len(out); i++ {
			buf = append(buf, out[i])
			offs = append(offs, es)
		}
	}
	t := token{kind: tString, span: syntax.Sp(start, l.pos), str: string(buf), single: q == '\''}
	if escaped {
		t.offs = append(offs, l.pos-1)
	}
	return t
}

const maxDepth = 200

// parser is a recursive-descent parser for strict JSON and the relaxed
// object-literal form; it records whether non-JSON syntax was used.
type parser struct {
	lx     *lexer
	tok    token
	depth  int
	failed bool
	diags  []syntax.Diagnostic
}

func (p *parser) advance() { p.tok = p.lx.next() }

func (p *parser) errorf(span syntax.Span, format string, args ...any) {
	if !p.failed {
		p.diags = append(p.diags, diag(span, CodeSyntax, sprintf(format, args...)))
	}
	p.failed = true
}

func (p *parser) expectDesc() string {
	if p.tok.kind == tInvalid {
		return "invalid character " + strconv.Quote(p.lx.src[p.tok.span.Start:p.tok.span.End])
	}
	return tokNames[p.tok.kind]
}

// value parses one value. It always returns a node; on error it sets
// p.failed and returns what it has.
func (p *parser) value() *Value {
	t := p.tok
	if t.errMsg != "" {
		p.errorf(t.errSpan, "%s", t.errMsg)
	}
	switch t.kind {
	case tLBrace:
		return p.object()
	case tLBrack:
		return p.array()
	case tString:
		p.advance()
		return newString(t.str, t.span, t.span.Start+1, t.offs)
	case tNumber:
		p.advance()
		f, _ := strconv.ParseFloat(t.str, 64)
		return &Value{Kind: KindNumber, Sp: t.span, Str: t.str, Num: f}
	case tIdent:
		p.advance()
		switch t.str {
		case "true", "false":
			return &Value{Kind: KindBool, Sp: t.span, Bool: t.str == "true", Str: t.str}
		case "null":
			return &Value{Kind: KindNull, Sp: t.span, Str: t.str}
		}
		p.lx.relaxed = true
		return newString(t.str, t.span, t.span.Start, nil)
	}
	p.errorf(t.span, "expected a value, found %s", p.expectDesc())
	return &Value{Kind: KindInvalid, Sp: syntax.Sp(t.span.Start, t.span.Start)}
}

// enter counts one more level of nesting and reports false, with an error,
// when the input nests too deep; every enter is paired with a leave.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(p.tok.span, "nesting too deep")
		return false
	}
	return true
}

// leave undoes enter.
func (p *parser) leave() { p.depth-- }

// separator consumes the comma between members or elements; a comma before
// the closing bracket (named by closeDesc) is allowed in the relaxed forms.
func (p *parser) separator(close tokKind, closeDesc string) {
	switch p.tok.kind {
	case tComma:
		p.advance()
		if p.tok.kind == close {
			p.lx.relaxed = true
		}
	case close:
	default:
		p.errorf(p.tok.span, "expected ',' or %s, found %s", closeDesc, p.expectDesc())
	}
}

func (p *parser) object() *Value {
	v := &Value{Kind: KindObject, Sp: p.tok.span}
	defer p.leave()
	if !p.enter() {
		return v
	}
	p.advance()
	for !p.failed {
		if p.tok.kind == tRBrace {
			v.Sp.End = p.tok.span.End
			p.advance()
			return v
		}
		var key *Value
		switch p.tok.kind {
		case tString:
			if p.tok.errMsg != "" {
				p.errorf(p.tok.errSpan, "%s", p.tok.errMsg)
			}
			key = newString(p.tok.str, p.tok.span, p.tok.span.Start+1, p.tok.offs)
		case tIdent, tNumber:
			p.lx.relaxed = true
			key = newString(p.tok.str, p.tok.span, p.tok.span.Start, nil)
		default:
			p.errorf(p.tok.span, "expected a key or '}', found %s", p.expectDesc())
			return v
		}
		m := &Member{Key: key}
		v.Members = append(v.Members, m)
		v.Sp.End = key.Sp.End
		p.advance()
		if p.tok.kind != tColon {
			p.errorf(p.tok.span, "expected ':' after key %s, found %s", strconv.Quote(key.Str), p.expectDesc())
			return v
		}
		p.advance()
		m.Value = p.value()
		v.Sp.End = m.Value.Sp.End
		if p.failed {
			return v
		}
		p.separator(tRBrace, "'}'")
	}
	return v
}

func (p *parser) array() *Value {
	v := &Value{Kind: KindArray, Sp: p.tok.span}
	defer p.leave()
	if !p.enter() {
		return v
	}
	p.advance()
	for !p.failed {
		if p.tok.kind == tRBrack {
			v.Sp.End = p.tok.span.End
			p.advance()
			return v
		}
		e := p.value()
		v.Elems = append(v.Elems, e)
		v.Sp.End = e.Sp.End
		if p.failed {
			return v
		}
		p.separator(tRBrack, "']'")
	}
	return v
}

// resync skips the rest of a broken query: tokens up to the bracket that
// closes the query's outermost object, or the end of input.
func (p *parser) resync(depth int) {
	for p.tok.kind != tEOF {
		switch p.tok.kind {
		case tLBrace, tLBrack:
			depth++
		case tRBrace, tRBrack:
			depth--
		}
		p.advance()
		if depth <= 0 {
			return
		}
	}
}

// parseObjects parses a sequence of top-level values (queries) separated by
// optional ',' or ';'. Each returned value is paired with its diagnostics
// and whether relaxed syntax was used.
func parseObjects(src string) []parsedDoc {
	lx := &lexer{src: src}
	p := &parser{lx: lx}
	p.advance()
	var out []parsedDoc
	for {
		for p.tok.kind == tComma || p.tok.kind == tSemi {
			p.advance()
		}
		if p.tok.kind == tEOF {
			break
		}
		lx.relaxed = false
		lx.diags = nil
		p.diags = nil
		p.failed = false
		p.depth = 0
		start := p.tok.span.Start
		var v *Value
		if p.tok.kind != tLBrace {
			p.errorf(p.tok.span, "expected '{' to start a query, found %s", p.expectDesc())
			v = &Value{Kind: KindInvalid, Sp: p.tok.span}
			p.advance()
			// Skip to the next '{' that could start a query.
			for p.tok.kind != tEOF && p.tok.kind != tLBrace {
				v.Sp.End = p.tok.span.End
				p.advance()
			}
		} else {
			v = p.value()
			if p.failed {
				// Count the open brackets between the query start and here.
				d := openDepth(src[start:p.tok.span.Start])
				if d > 0 {
					p.resync(d)
				}
			}
		}
		ds := append(lx.diags, p.diags...)
		end := v.Sp.End
		if p.failed && p.tok.span.Start > end {
			end = p.tok.span.Start
		}
		out = append(out, parsedDoc{val: v, diags: ds, relaxed: lx.relaxed, span: syntax.Sp(start, max(end, start))})
	}
	return out
}

// openDepth counts unclosed brackets in a prefix of a query, ignoring those
// inside strings and comments.
func openDepth(s string) int {
	lx := &lexer{src: s}
	d := 0
	for {
		t := lx.next()
		switch t.kind {
		case tEOF:
			return d
		case tLBrace, tLBrack:
			d++
		case tRBrace, tRBrack:
			d--
		}
	}
}

type parsedDoc struct {
	val     *Value
	diags   []syntax.Diagnostic
	relaxed bool
	span    syntax.Span
}
