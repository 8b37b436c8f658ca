// Package host finds queries embedded in host code: string literals passed
// as the first argument to configured calls such as ctx.select("...") in
// TypeScript, JavaScript, Python and Go files.
//
// Each language has a small scanner that knows its comments and string
// forms, so a call inside a comment or inside another string is never taken
// for a real one. A literal is reported only when it is the whole first
// argument (followed by "," or ")") and can be decoded exactly; the decoded
// Value comes with a byte-offset map back to the host file, so diagnostics
// and fixes computed on the query land on the right host bytes.
package host

import (
	"path"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// Literal is one string literal passed as the first argument of a configured
// call.
type Literal struct {
	Call  string      // the configured call name that matched, e.g. "ctx.select"
	Span  syntax.Span // the whole literal in the host file: prefix and quotes included
	Value string      // the decoded string

	kind   kind
	quote  byte   // the quote character: ' " or `
	prefix string // Python string prefix as written ("", "r", "u", "R", "U")
	offs   []int  // offs[i]: host offset of the source sequence producing Value[i]; offs[len(Value)] is the closing quote
	ends   []int  // ends[i]: host offset just after that sequence
}

// kind is the literal syntax.
type kind uint8

const (
	kindJSQuoted   kind = iota + 1 // '...' or "..."
	kindJSTemplate                 // `...` without substitutions
	kindPyShort                    // '...' or "..." with an optional r/u prefix
	kindPyLong                     // '''...''' or """...""" with an optional r/u prefix
	kindGoQuoted                   // "..."
	kindGoRaw                      // `...`
)

// lang is a host language.
type lang uint8

const (
	langNone lang = iota
	langJS
	langPython
	langGo
)

// Extensions returns the file extensions Find understands.
func Extensions() []string {
	return []string{".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".py", ".go"}
}

func langOf(name string) lang {
	switch path.Ext(strings.ReplaceAll(name, `\`, "/")) {
	case ".ts", ".mts", ".cts", ".js", ".mjs", ".cjs":
		return langJS
	case ".py":
		return langPython
	case ".go":
		return langGo
	}
	return langNone
}

// Supported reports whether Find understands the language of the file name.
func Supported(name string) bool { return langOf(name) != langNone }

// Find returns the string literals in src passed as the first argument to
// one of calls, in source order. The language follows the extension of name
// (Extensions); other files yield nil. A call matches when its dotted callee
// text, as written without spaces, equals a configured name or ends with "."
// followed by it ("self.ctx.select" matches "ctx.select"); whitespace and
// comments may separate the callee, "(" and the literal. Literals that are
// not the whole first argument, template literals with substitutions,
// Python f-strings and byte strings, and literals with escapes this package
// does not decode are skipped.
func Find(name string, src []byte, calls []string) []Literal {
	l := langOf(name)
	if l == langNone || len(calls) == 0 {
		return nil
	}
	toks := tokenize(l, src)
	var out []Literal
	for i := 0; i < len(toks); i++ {
		if toks[i].kind != tokIdent {
			continue
		}
		head := i
		j := i
		for j+2 < len(toks) && toks[j+1].kind == tokPunct && toks[j+1].ch == '.' && toks[j+2].kind == tokIdent {
			j += 2
		}
		i = j
		if j+2 >= len(toks) {
			continue
		}
		open, lit, after := toks[j+1], toks[j+2], tokenAt(toks, j+3)
		if open.kind != tokPunct || open.ch != '(' || lit.kind != tokString || lit.lit == nil {
			continue
		}
		if after == nil || after.kind != tokPunct || (after.ch != ',' && after.ch != ')') {
			continue
		}
		var b strings.Builder
		if head > 0 && toks[head-1].kind == tokPunct && toks[head-1].ch == '.' {
			b.WriteByte('.') // the chain continues an expression such as f().ctx.select
		}
		for k := head; k <= j; k += 2 {
			if k > head {
				b.WriteByte('.')
			}
			b.Write(src[toks[k].span.Start:toks[k].span.End])
		}
		callee := b.String()
		call, ok := matchCall(callee, calls)
		if !ok {
			continue
		}
		L := *lit.lit
		L.Call = call
		out = append(out, L)
	}
	return out
}

func tokenAt(toks []token, i int) *token {
	if i < len(toks) {
		return &toks[i]
	}
	return nil
}

func matchCall(callee string, calls []string) (string, bool) {
	for _, c := range calls {
		if c != "" && (callee == c || strings.HasSuffix(callee, "."+c)) {
			return c, true
		}
	}
	return "", false
}

// HostOffset maps byte offset i in Value to the host file: the start of the
// character or escape sequence that produced Value[i]. len(Value) maps to the
// closing quote; offsets outside [0, len(Value)] are clamped.
func (l Literal) HostOffset(i int) int {
	if len(l.offs) == 0 {
		return l.Span.Start
	}
	i = min(max(i, 0), len(l.offs)-1)
	return l.offs[i]
}

// HostSpan maps a span of Value to the host file. The end maps to the end of
// the source sequence producing the span's last byte, so a span covering an
// escape covers the whole escape.
func (l Literal) HostSpan(s syntax.Span) syntax.Span {
	start := l.HostOffset(s.Start)
	if s.End <= s.Start || len(l.ends) == 0 {
		return syntax.Span{Start: start, End: start}
	}
	e := min(s.End, len(l.ends))
	return syntax.Span{Start: start, End: max(l.ends[e-1], start)}
}

// Quote encodes s as a literal of the same kind as l (quote character,
// template, raw or triple-quoted string) that decodes back to s. When the
// kind cannot hold s (a Go raw string with a backquote or carriage return, a
// Python raw string with its quote character or a trailing backslash) the
// nearest escaped form with the same quote character is used. JavaScript and
// Python strings hold Unicode text: invalid UTF-8 in s becomes U+FFFD.
func (l Literal) Quote(s string) string {
	return quote(l.kind, l.quote, l.prefix, s)
}
