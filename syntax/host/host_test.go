package host

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// TestGolden runs Find over the host file of every archive under
// testdata/host and records each literal: call, span, host text, value.
// Every literal found also passes checkLiteral.
func TestGolden(t *testing.T) {
	golden.Run(t, "../../testdata/host/*.txtar", func(t *testing.T, c *golden.Case) {
		calls := strings.Fields(c.Input("calls"))
		var name string
		for _, f := range c.Archive.Files {
			if strings.HasPrefix(f.Name, "input.") {
				name = f.Name
			}
		}
		if name == "" {
			t.Fatal("no input.* section")
		}
		src := []byte(c.Input(name))
		var out strings.Builder
		for _, l := range Find(name, src, calls) {
			checkLiteral(t, src, l)
			fmt.Fprintf(&out, "%s %s %q => %q\n", l.Call, l.Span, src[l.Span.Start:l.Span.End], l.Value)
		}
		c.Want("literals", out.String())
	})
}

// checkLiteral verifies a literal against its host text: the span lies in
// src, the text decodes to Value, HostOffset is monotonic, and the host bytes
// of each source sequence decode to exactly the Value bytes mapped to it.
func checkLiteral(t *testing.T, src []byte, l Literal) {
	t.Helper()
	if !l.Span.Valid(len(src)) || l.Span.Len() < 2 {
		t.Fatalf("span %s outside the source (%d bytes)", l.Span, len(src))
	}
	text := src[l.Span.Start:l.Span.End]
	again := decodeText(l, text)
	if again == nil || again.Value != l.Value {
		t.Fatalf("decoding %q again gives %v, want %q", text, again, l.Value)
	}
	prev := l.Span.Start
	for i := 0; i <= len(l.Value); i++ {
		h := l.HostOffset(i)
		if h < prev || h >= l.Span.End {
			t.Fatalf("%q: HostOffset(%d) = %d not monotonic within %s", text, i, h, l.Span)
		}
		prev = h
	}
	if h := l.HostOffset(len(l.Value)); src[h] != l.quote {
		t.Errorf("%q: HostOffset(len) = %d is not the closing quote", text, h)
	}
	// Group Value bytes by source sequence and decode each sequence alone.
	for i := 0; i < len(l.Value); {
		j := i + 1
		for j < len(l.Value) && l.HostOffset(j) == l.HostOffset(i) {
			j++
		}
		hs := l.HostSpan(syntax.Span{Start: i, End: j})
		piece := string(src[hs.Start:hs.End])
		if got := decodePiece(l, piece); got != l.Value[i:j] {
			t.Fatalf("%q: host bytes %q for Value[%d:%d] decode to %q, want %q", text, piece, i, j, got, l.Value[i:j])
		}
		i = j
	}
}

// decodeText decodes a whole literal text as a literal of l's kind.
func decodeText(l Literal, text []byte) *Literal {
	body := len(l.prefix) + 1
	if l.kind == kindPyLong {
		body += 2
	}
	end := len(text) - (body - len(l.prefix))
	switch l.kind {
	case kindPyShort, kindPyLong:
		return decodePy(text, 0, body, end, l.kind, l.quote, l.prefix, strings.ContainsAny(l.prefix, "rR"))
	}
	return decodeLiteral(text, 0, body, end, l.kind, l.quote, l.prefix)
}

// decodePiece decodes the body text piece as a literal of l's kind.
func decodePiece(l Literal, piece string) string {
	d := string(l.quote)
	if l.kind == kindPyLong {
		d = strings.Repeat(d, 3)
	}
	got := decodeText(l, []byte(l.prefix+d+piece+d))
	if got == nil {
		return "<undecodable>"
	}
	return got.Value
}

// samples are literal shapes in each language: the call text around "%s".
var samples = []struct {
	name, tmpl, lit string
}{
	{"a.ts", "x = ctx.select(%s);\n", `'a'`},
	{"a.ts", "x = ctx.select(%s);\n", `"a"`},
	{"a.js", "x = ctx.select(%s);\n", "`a`"},
	{"a.py", "x = ctx.select(%s)\n", `'a'`},
	{"a.py", "x = ctx.select(%s)\n", `"a"`},
	{"a.py", "x = ctx.select(%s)\n", `r'a'`},
	{"a.py", "x = ctx.select(%s)\n", `R"a"`},
	{"a.py", "x = ctx.select(%s)\n", `u'a'`},
	{"a.py", "x = ctx.select(%s)\n", `'''a'''`},
	{"a.py", "x = ctx.select(%s)\n", `r"""a"""`},
	{"a.go", "var x = ctx.select(%s)\n", `"a"`},
	{"a.go", "var x = ctx.select(%s)\n", "`a`"},
}

func randomString(r *rand.Rand) string {
	alphabet := []string{"a", "b", ".", " ", "'", `"`, "`", `\`, "\n", "\r", "\t", "$", "{", "}", "${", "é", "😀",
		"\u2028", "\x00", "\x7f", "'''", `"""`, "(", ")", "//", "/*", "#", "\\n", "\\'", "\ufeff"}
	n := r.IntN(12)
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// TestQuoteRoundTrip quotes random strings with every literal kind, finds
// the result in a host file and checks it decodes back to the string (and
// passes checkLiteral).
func TestQuoteRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sm := range samples {
		src := []byte(fmt.Sprintf(sm.tmpl, sm.lit))
		lits := Find(sm.name, src, []string{"ctx.select"})
		if len(lits) != 1 || lits[0].Value != "a" {
			t.Fatalf("%s %s: sample not found: %+v", sm.name, sm.lit, lits)
		}
		base := lits[0]
		for n := 0; n < 400; n++ {
			s := randomString(r)
			if n == 0 {
				s = ""
			}
			q := base.Quote(s)
			host := []byte(fmt.Sprintf(sm.tmpl, q))
			got := Find(sm.name, host, []string{"ctx.select"})
			if len(got) != 1 {
				t.Fatalf("%s %s: Quote(%q) = %s is not found in %q", sm.name, sm.lit, s, q, host)
			}
			if got[0].Value != s {
				t.Fatalf("%s %s: Quote(%q) = %s decodes to %q", sm.name, sm.lit, s, q, got[0].Value)
			}
			fallback := base.kind == kindGoRaw && got[0].kind == kindGoQuoted && strings.ContainsAny(s, "`\r\x00\ufeff")
			if !fallback && (got[0].kind != base.kind || got[0].quote != base.quote) {
				t.Fatalf("%s %s: Quote(%q) = %s changed the kind", sm.name, sm.lit, s, q)
			}
			checkLiteral(t, host, got[0])
			if strings.HasSuffix(sm.name, ".go") {
				if v, err := strconv.Unquote(q); err != nil || v != s {
					t.Fatalf("Quote(%q) = %s: Go decodes %q (%v)", s, q, v, err)
				}
			}
		}
	}
}

// TestQuoteKeepsForm checks that Quote keeps raw and template forms when the
// value allows it and falls back to an escaped form with the same quote
// character when it does not.
func TestQuoteKeepsForm(t *testing.T) {
	tests := []struct {
		name, lit, value, want string
	}{
		{"a.go", "`a`", `\d "x"`, "`\\d \"x\"`"},
		{"a.go", "`a`", "back`tick", "\"back`tick\""},
		{"a.py", `r'a'`, `\d`, `r'\d'`},
		{"a.py", `r'a'`, `it's`, `'it\'s'`},
		{"a.py", `r'a'`, `end\`, `'end\\'`},
		{"a.py", `"""a"""`, "two\nlines", "\"\"\"two\nlines\"\"\""},
		{"a.ts", "`a`", "${x}\n", "`\\${x}\n`"},
		{"a.ts", `'a'`, `it's "x"`, `'it\'s "x"'`},
	}
	for _, tt := range tests {
		lits := Find(tt.name, []byte("ctx.select("+tt.lit+")"), []string{"ctx.select"})
		if len(lits) != 1 {
			t.Fatalf("%s: not found", tt.lit)
		}
		if got := lits[0].Quote(tt.value); got != tt.want {
			t.Errorf("%s.Quote(%q) = %s, want %s", tt.lit, tt.value, got, tt.want)
		}
	}
}

// TestGoMatchesStrconv checks the Go decoder against strconv.Unquote on
// random escape sequences: a literal is decoded exactly when Go accepts it,
// to the same value.
func TestGoMatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "é", `\n`, `\t`, `\\`, `\"`, `\'`, `\x41`, `\xff`, `\x4`, `\101`, `\400`, `\777`, `\u00e9`,
		`\ud800`, `\U0001F600`, `\U00110000`, `\q`, `\a`, `\v`, `\0`, `\08`, "`"}
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		b.WriteByte('"')
		for range r.IntN(5) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		b.WriteByte('"')
		lit := b.String()
		want, err := strconv.Unquote(lit)
		got := Find("a.go", []byte("ctx.select("+lit+")"), []string{"ctx.select"})
		switch {
		case err != nil && len(got) != 0:
			t.Fatalf("%s: Go rejects it (%v) but Find decoded %q", lit, err, got[0].Value)
		case err == nil && (len(got) != 1 || got[0].Value != want):
			t.Fatalf("%s: Go decodes %q, Find gave %+v", lit, want, got)
		}
	}
}

// TestHostSpan pins HostSpan on escapes: a span covering an escaped byte
// covers the whole escape.
func TestHostSpan(t *testing.T) {
	src := []byte(`ctx.select("a\u00e9b\n")`)
	l := Find("a.ts", src, []string{"ctx.select"})[0]
	if l.Value != "aéb\n" {
		t.Fatalf("Value = %q", l.Value)
	}
	tests := []struct {
		in   syntax.Span
		want string
	}{
		{syntax.Sp(0, 1), "a"},
		{syntax.Sp(1, 3), `\u00e9`},
		{syntax.Sp(2, 3), `\u00e9`},
		{syntax.Sp(1, 4), `\u00e9b`},
		{syntax.Sp(4, 5), `\n`},
		{syntax.Sp(5, 5), ""},
		{syntax.Sp(0, 99), `a\u00e9b\n`},
	}
	for _, tt := range tests {
		hs := l.HostSpan(tt.in)
		if got := string(src[hs.Start:hs.End]); got != tt.want {
			t.Errorf("HostSpan(%s) = %s %q, want %q", tt.in, hs, got, tt.want)
		}
	}
	if l.HostOffset(-5) != l.Span.Start+1 || src[l.HostOffset(99)] != '"' {
		t.Errorf("HostOffset does not clamp")
	}
}

// TestUnsupported checks that other extensions and empty call lists find
// nothing.
func TestUnsupported(t *testing.T) {
	src := []byte(`ctx.select("x")`)
	if Find("a.rb", src, []string{"ctx.select"}) != nil || Find("a.ts", src, nil) != nil || Supported("a.rb") || !Supported("dir.x/a.mjs") {
		t.Errorf("unsupported inputs must yield nothing")
	}
}

// FuzzFind checks that Find never panics, keeps spans inside the source and
// that every literal decodes again to its Value with a consistent offset
// map.
func FuzzFind(f *testing.F) {
	for _, sm := range samples {
		f.Add(sm.name, []byte(fmt.Sprintf(sm.tmpl, sm.lit)))
	}
	f.Add("a.ts", []byte("ctx.select(`${ctx.select('x')}`, ctx.select(\"\\u{1F600}\\uD83D\"))"))
	f.Add("a.py", []byte("ctx.select(r'''\\''' + '\\N{X}')\nctx.select('\\777')"))
	f.Add("a.go", []byte("ctx.select('\"') ctx.select(`\r`) ctx.select(\"\\377\")"))
	f.Add("a.js", []byte("a = /[/]/ ctx.select('\\\r\n')"))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		switch name {
		case "a.ts", "a.py", "a.go", "a.js":
		default:
			name = "a.ts"
		}
		for _, l := range Find(name, src, []string{"ctx.select", "q"}) {
			checkLiteral(t, src, l)
			_ = l.Quote(l.Value)
		}
	})
}

// TestDeepTemplates checks that deeply nested template substitutions neither
// crash the scanner nor hide a later call.
func TestDeepTemplates(t *testing.T) {
	src := strings.Repeat("`${", 100000) + strings.Repeat("}`", 100000) + "\nctx.select('.after');\n"
	got := Find("a.ts", []byte(src), []string{"ctx.select"})
	if len(got) != 1 || got[0].Value != ".after" {
		t.Errorf("got %+v, want the call after the nested templates", got)
	}
}
