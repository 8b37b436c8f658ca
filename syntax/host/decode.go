package host

import (
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
)

// builder accumulates a decoded value and its offset map.
type builder struct {
	val  []byte
	offs []int
	ends []int
}

// raw copies host bytes [i, j) unchanged, each mapping to itself.
func (b *builder) raw(src []byte, i, j int) {
	for k := i; k < j; k++ {
		b.val = append(b.val, src[k])
		b.offs = append(b.offs, k)
		b.ends = append(b.ends, k+1)
	}
}

// seq appends the bytes an escape sequence [start, end) produced.
func (b *builder) seq(p []byte, start, end int) {
	for _, c := range p {
		b.val = append(b.val, c)
		b.offs = append(b.offs, start)
		b.ends = append(b.ends, end)
	}
}

func (b *builder) rune(r rune, start, end int) {
	b.seq(utf8.AppendRune(nil, r), start, end)
}

func (b *builder) literal(src []byte, start, bodyEnd, end int, k kind, q byte, prefix string) *Literal {
	b.offs = append(b.offs, bodyEnd)
	return &Literal{Span: syntax.Span{Start: start, End: end}, Value: string(b.val), kind: k, quote: q, prefix: prefix, offs: b.offs, ends: b.ends}
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

// hexN reads exactly n hex digits at i.
func hexN(src []byte, i, j, n int) (rune, bool) {
	if i+n > j {
		return 0, false
	}
	var r rune
	for k := i; k < i+n; k++ {
		h := hexVal(src[k])
		if h < 0 {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

func isSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDFFF }

// decodeLiteral decodes the JavaScript and Go literal kinds; body is
// src[body:bodyEnd], the literal ends after the closing quote at bodyEnd.
func decodeLiteral(src []byte, start, body, bodyEnd int, k kind, q byte, prefix string) *Literal {
	var b builder
	var ok bool
	switch k {
	case kindJSQuoted, kindJSTemplate:
		ok = decodeJS(&b, src, body, bodyEnd, k == kindJSTemplate)
	case kindGoQuoted:
		ok = decodeGo(&b, src, body, bodyEnd)
	case kindGoRaw:
		for i := body; i < bodyEnd; i++ {
			if src[i] != '\r' { // carriage returns are discarded from raw strings
				b.raw(src, i, i+1)
			}
		}
		ok = true
	}
	if !ok {
		return nil
	}
	return b.literal(src, start, bodyEnd, bodyEnd+1, k, q, prefix)
}

// decodeJS decodes a JavaScript string or template body. Unsupported:
// legacy octal escapes, lone surrogates, and carriage returns in templates
// (whose cooked value normalizes line ends).
func decodeJS(b *builder, src []byte, i, j int, template bool) bool {
	for i < j {
		c := src[i]
		if c != '\\' {
			if c == '\r' || (!template && c == '\n') {
				return false
			}
			b.raw(src, i, i+1)
			i++
			continue
		}
		if i+1 >= j {
			return false
		}
		start, e := i, src[i+1]
		i += 2
		switch e {
		case 'n':
			b.seq([]byte{'\n'}, start, i)
		case 't':
			b.seq([]byte{'\t'}, start, i)
		case 'r':
			b.seq([]byte{'\r'}, start, i)
		case 'b':
			b.seq([]byte{'\b'}, start, i)
		case 'f':
			b.seq([]byte{'\f'}, start, i)
		case 'v':
			b.seq([]byte{'\v'}, start, i)
		case '0':
			if i < j && src[i] >= '0' && src[i] <= '9' {
				return false
			}
			b.seq([]byte{0}, start, i)
		case '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return false
		case 'x':
			r, ok := hexN(src, i, j, 2)
			if !ok {
				return false
			}
			i += 2
			b.rune(r, start, i)
		case 'u':
			r, n, ok := jsUnicode(src, i, j)
			if !ok {
				return false
			}
			i += n
			if r >= 0xD800 && r <= 0xDBFF && i+1 < j && src[i] == '\\' && src[i+1] == 'u' {
				lo, n2, ok := jsUnicode(src, i+2, j)
				if ok && lo >= 0xDC00 && lo <= 0xDFFF {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 2 + n2
				}
			}
			if isSurrogate(r) || r > utf8.MaxRune {
				return false
			}
			b.rune(r, start, i)
		case '\r':
			if i < j && src[i] == '\n' {
				i++
			}
		case '\n':
		default:
			// Identity escape; U+2028 and U+2029 after a backslash are line
			// continuations.
			r, n := utf8.DecodeRune(src[i-1 : j])
			i += n - 1
			if r == 0x2028 || r == 0x2029 {
				continue
			}
			b.seq(src[start+1:i], start, i)
		}
	}
	return true
}

// jsUnicode reads the part of a \u escape after the "u": XXXX or {X...}.
func jsUnicode(src []byte, i, j int) (rune, int, bool) {
	if i < j && src[i] == '{' {
		var r rune
		k := i + 1
		for k < j && src[k] != '}' {
			h := hexVal(src[k])
			if h < 0 || r > utf8.MaxRune {
				return 0, 0, false
			}
			r = r<<4 | rune(h)
			k++
		}
		if k >= j || k == i+1 || r > utf8.MaxRune {
			return 0, 0, false
		}
		return r, k + 1 - i, true
	}
	r, ok := hexN(src, i, j, 4)
	return r, 4, ok
}

// decodeGo decodes an interpreted Go string body exactly as the Go
// specification defines it; anything invalid makes the literal unusable.
func decodeGo(b *builder, src []byte, i, j int) bool {
	for i < j {
		c := src[i]
		if c != '\\' {
			if c == '\n' {
				return false
			}
			b.raw(src, i, i+1)
			i++
			continue
		}
		if i+1 >= j {
			return false
		}
		start, e := i, src[i+1]
		i += 2
		if v, ok := simpleEscape(e, '"'); ok {
			b.seq([]byte{v}, start, i)
			continue
		}
		switch e {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			if i+2 > j {
				return false
			}
			v := int(e - '0')
			for k := i; k < i+2; k++ {
				if src[k] < '0' || src[k] > '7' {
					return false
				}
				v = v*8 + int(src[k]-'0')
			}
			if v > 255 {
				return false
			}
			i += 2
			b.seq([]byte{byte(v)}, start, i)
		case 'x':
			r, ok := hexN(src, i, j, 2)
			if !ok {
				return false
			}
			i += 2
			b.seq([]byte{byte(r)}, start, i)
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			r, ok := hexN(src, i, j, n)
			if !ok || isSurrogate(r) || r > utf8.MaxRune || r < 0 {
				return false
			}
			i += n
			b.rune(r, start, i)
		default:
			return false
		}
	}
	return true
}

// decodePy decodes a Python str literal (optionally raw). Unsupported: \N{...}
// escapes, escapes producing surrogates, and carriage returns in the source
// (Python reads them as line ends).
func decodePy(src []byte, start, i, j int, k kind, q byte, prefix string, raw bool) *Literal {
	var b builder
	bodyEnd := j
	for i < j {
		c := src[i]
		if c == '\r' || (c == '\n' && k == kindPyShort) {
			return nil
		}
		if c != '\\' {
			b.raw(src, i, i+1)
			i++
			continue
		}
		if i+1 >= j {
			return nil
		}
		if raw {
			// The backslash stays; it only keeps the next character from
			// closing the string, so the pair maps as one sequence.
			if src[i+1] == '\r' {
				return nil
			}
			_, n := utf8.DecodeRune(src[i+1 : j])
			b.seq(src[i:i+1+n], i, i+1+n)
			i += 1 + n
			continue
		}
		st, e := i, src[i+1]
		i += 2
		if v, ok := simpleEscape(e, '"'); ok || e == '\'' {
			if e == '\'' {
				v = '\''
			}
			b.seq([]byte{v}, st, i)
			continue
		}
		switch e {
		case '\n': // line continuation
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := rune(e - '0')
			for n := 0; n < 2 && i < j && src[i] >= '0' && src[i] <= '7'; n++ {
				v = v*8 + rune(src[i]-'0')
				i++
			}
			b.rune(v, st, i)
		case 'x', 'u', 'U':
			n := 2
			switch e {
			case 'u':
				n = 4
			case 'U':
				n = 8
			}
			r, ok := hexN(src, i, j, n)
			if !ok || isSurrogate(r) || r > utf8.MaxRune || r < 0 {
				return nil
			}
			i += n
			b.rune(r, st, i)
		case 'N':
			return nil
		default:
			// Unknown escapes keep the backslash.
			_, n := utf8.DecodeRune(src[st+1 : j])
			i = st + 1 + n
			b.seq(src[st:i], st, i)
		}
	}
	end := bodyEnd + 1
	if k == kindPyLong {
		end = bodyEnd + 3
	}
	return b.literal(src, start, bodyEnd, end, k, q, prefix)
}

// simpleEscape decodes the one-character escapes Go and Python share, plus
// the escaped quote q.
func simpleEscape(e, q byte) (byte, bool) {
	switch e {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	case '\\':
		return '\\', true
	case q:
		return q, true
	}
	return 0, false
}
