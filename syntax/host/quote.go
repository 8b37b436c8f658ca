package host

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

func quote(k kind, q byte, prefix, s string) string {
	switch k {
	case kindGoRaw:
		if utf8.ValidString(s) && !strings.ContainsAny(s, "`\r") && !strings.ContainsAny(s, "\x00\ufeff") && !strings.ContainsRune(s, utf8.RuneError) {
			return "`" + s + "`"
		}
		return strconv.Quote(s)
	case kindJSQuoted, kindJSTemplate:
		return quoteJS(s, q, k == kindJSTemplate)
	case kindPyShort, kindPyLong:
		long := k == kindPyLong
		delim := string(q)
		if long {
			delim = strings.Repeat(delim, 3)
		}
		if strings.ContainsAny(prefix, "rR") {
			if pyRawOK(s, q, long) {
				return prefix + delim + s + delim
			}
			prefix = strings.Map(func(r rune) rune {
				if r == 'r' || r == 'R' {
					return -1
				}
				return r
			}, prefix)
		}
		return prefix + delim + quotePy(s, q, long) + delim
	}
	return strconv.Quote(s) // kindGoQuoted
}

func quoteJS(s string, q byte, template bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.WriteByte(q)
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case template && r == '$' && i+1 < len(s) && s[i+1] == '{':
			b.WriteString(`\$`)
		case r == '\n' && !template:
			b.WriteString(`\n`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyRawOK reports whether s can be written verbatim as a raw Python string.
func pyRawOK(s string, q byte, long bool) bool {
	if !utf8.ValidString(s) || strings.IndexByte(s, q) >= 0 || strings.HasSuffix(s, `\`) {
		return false
	}
	for _, r := range s {
		if r == '\n' && long || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return true
}

func quotePy(s string, q byte, long bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n' && !long:
			b.WriteString(`\n`)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
