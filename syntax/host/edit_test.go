package host

import (
	"testing"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// TestMapParseDiagnostics parses embedded queries with the PACT parser and
// checks that every diagnostic maps into the literal's body in the host file.
func TestMapParseDiagnostics(t *testing.T) {
	srcs := map[string]string{
		"a.ts": "q = ctx.select(\"(d1, 0) ?? .seg[name=\\\"x\\u00e9\\\" \\n\");\n",
		"a.py": "q = ctx.select('''(d1, 0) ?? .seg[\n  name=\"\\x41\" ''')\n",
		"a.go": "q := ctx.select(\"(d1, 0) ?? .seg[name=\\\"\\U0001F600\\\"\")\n",
	}
	for name, src := range srcs {
		lits := Find(name, []byte(src), []string{"ctx.select"})
		if len(lits) != 1 {
			t.Fatalf("%s: %d literals", name, len(lits))
		}
		l := lits[0]
		_, diags := pact.ParseQuery(l.Value, pact.V2)
		if len(diags) == 0 {
			t.Fatalf("%s: %q parses without errors; the test needs a broken query", name, l.Value)
		}
		body := syntax.Span{Start: l.HostOffset(0), End: l.HostOffset(len(l.Value))}
		for _, d := range diags {
			m := l.MapDiagnostic(d)
			if !body.Covers(m.Span) {
				t.Errorf("%s: %s mapped to %s outside the body %s", name, d.Span, m.Span, body)
			}
			if d.Span.Len() > 0 && m.Span.Len() == 0 {
				t.Errorf("%s: non-empty span %s mapped to an empty one", name, d.Span)
			}
		}
	}
}

// TestRewrite applies a fix computed on the decoded value and checks the
// host file then holds a literal of the same kind with the new value.
func TestRewrite(t *testing.T) {
	tests := []struct{ name, src string }{
		{"a.ts", "x = ctx.select('.a\\n\\u00e9');"},
		{"a.js", "x = ctx.select(`.a\n\\u00e9`);"},
		{"a.py", "x = ctx.select(r'.a\\d')"},
		{"a.go", "x := ctx.select(`.a\\d`)"},
	}
	for _, tt := range tests {
		l := Find(tt.name, []byte(tt.src), []string{"ctx.select"})[0]
		d := syntax.Diagnostic{
			Span: syntax.Sp(0, 2),
			SuggestedFixes: []syntax.SuggestedFix{
				{Message: "rename", TextEdits: []syntax.TextEdit{{Span: syntax.Sp(1, 2), NewText: "b'\"`\\${x}"}}},
				{Message: "bad", TextEdits: []syntax.TextEdit{{Span: syntax.Sp(0, 99), NewText: ""}}},
			},
		}
		m := l.MapDiagnostic(d)
		if len(m.SuggestedFixes) != 1 || len(d.SuggestedFixes) != 2 {
			t.Fatalf("%s: want the applicable fix only and the input untouched, got %+v", tt.src, m.SuggestedFixes)
		}
		out, err := syntax.ApplyEdits(tt.src, m.SuggestedFixes[0].TextEdits)
		if err != nil {
			t.Fatal(err)
		}
		want := ".b'\"`\\${x}" + l.Value[2:]
		got := Find(tt.name, []byte(out), []string{"ctx.select"})
		if len(got) != 1 || got[0].Value != want {
			t.Fatalf("%s: after the fix %q holds %+v, want value %q", tt.src, out, got, want)
		}
		// The new value holds a backquote and a quote: a Go raw string
		// falls back to an interpreted one and a Python raw string loses its
		// prefix (both documented); every other form is kept.
		switch {
		case l.kind == kindGoRaw:
			if got[0].kind != kindGoQuoted {
				t.Errorf("%s: want the interpreted fallback, got %s", tt.src, out)
			}
		case got[0].kind != l.kind || got[0].quote != l.quote:
			t.Errorf("%s: the fix changed the literal form: %s", tt.src, out)
		}
	}
}
