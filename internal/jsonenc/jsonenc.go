// Package jsonenc encodes the JSON ctxql prints the way jq prints it: the
// characters <, > and & are written as they are, not as \u003c, \u003e and
// \u0026 (encoding/json's default, meant for JSON embedded in HTML).
package jsonenc

import (
	"bytes"
	"encoding/json"
	"runtime"
	"unsafe"
)

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	// A list of strings (a selection's ids) is written here without the
	// encoder's reflection, which costs most where nothing is inlined
	// (WebAssembly); the bytes are the encoder's.
	if ss, ok := v.([]string); ok && ss != nil {
		n := 2 + len(ss)
		for _, s := range ss {
			n += len(s) + 2
		}
		out := make([]byte, 0, n)
		out = append(out, '[')
		for i, s := range ss {
			if i > 0 {
				out = append(out, ',')
			}
			var err error
			if out, err = appendString(out, s); err != nil {
				return nil, err
			}
		}
		return append(out, ']'), nil
	}
	return MarshalIndent(v, "", "")
}

// PlainStrings is Marshal of a list of strings each of which is printable
// ASCII without quotes and backslashes (the caller knows it): each is
// written between quotes as it is, without a look at its bytes.
func PlainStrings(ss []string) []byte {
	n := 2 + len(ss)
	for _, s := range ss {
		n += len(s) + 2
	}
	out := make([]byte, n)
	out[0] = '['
	i := 1
	for k, s := range ss {
		if k > 0 {
			out[i] = ','
			i++
		}
		out[i] = '"'
		i++
		if wordCopy && len(s) >= 8 {
			// copy is memory.copy in WebAssembly, which V8 runs as a call
			// out of the module's code: for the short strings of a list of
			// ids, most of the time. Words copied here instead, the last
			// one overlapping the one before it.
			d, src := unsafe.Pointer(&out[i]), unsafe.Pointer(unsafe.StringData(s))
			for j := 0; j < len(s)-8; j += 8 {
				*(*uint64)(unsafe.Add(d, j)) = *(*uint64)(unsafe.Add(src, j))
			}
			*(*uint64)(unsafe.Add(d, len(s)-8)) = *(*uint64)(unsafe.Add(src, len(s)-8))
			i += len(s)
		} else {
			i += copy(out[i:], s)
		}
		out[i] = '"'
		i++
	}
	out[i] = ']'
	return out[:i+1]
}

// wordCopy says PlainStrings copies strings of 8 bytes or more itself, a
// word at a time (WebAssembly), rather than with copy.
const wordCopy = runtime.GOARCH == "wasm"

// appendString appends s as Marshal writes it: a string of printable
// ASCII without quotes or backslashes as it is, any other through the
// encoder.
func appendString(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			b, err := MarshalIndent(s, "", "")
			return append(dst, b...), err
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

// MarshalIndent is json.MarshalIndent without HTML escaping; an empty
// prefix and indent give compact JSON.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if prefix != "" || indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Unescape rewrites, inside the strings of the JSON text b, the escapes
// \u003c, \u003e and \u0026 (any case of hex digits) into the characters
// they stand for, and leaves everything else as it is: for JSON that another
// encoder wrote. b must be valid JSON; the result means the same.
func Unescape(b []byte) []byte {
	i := bytes.Index(b, []byte(`\u00`))
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b):
			if b[i+1] == 'u' && i+5 < len(b) {
				if r, ok := htmlEscape(b[i+2 : i+6]); ok {
					out = append(out, r)
					i += 5
					continue
				}
			}
			out = append(out, c, b[i+1]) // the escape's second byte is never a quote that ends the string
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// htmlEscape returns the character of the four hex digits h when it is one
// of <, > and &.
func htmlEscape(h []byte) (byte, bool) {
	if h[0] != '0' || h[1] != '0' {
		return 0, false
	}
	switch string(bytes.ToLower(h[2:])) {
	case "3c":
		return '<', true
	case "3e":
		return '>', true
	case "26":
		return '&', true
	}
	return 0, false
}
