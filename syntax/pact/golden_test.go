package pact

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// querySections are the input sections of testdata/query archives: one
// query per line, in the named dialect. Queries in a "-errors" section must
// produce at least one error; the others must parse cleanly.
var querySections = []struct {
	name    string
	dialect Dialect
	errors  bool
}{
	{"v1", V1, false},
	{"v2", V2, false},
	{"v1-errors", V1, true},
	{"v2-errors", V2, true},
}

// TestQueryGolden parses every query of testdata/query/*.txtar and compares
// the AST dump and diagnostics with the archive's "out" section.
func TestQueryGolden(t *testing.T) {
	golden.Run(t, "testdata/query/*.txtar", func(t *testing.T, c *golden.Case) {
		var out strings.Builder
		n := 0
		for _, sec := range querySections {
			if !c.Has(sec.name) {
				continue
			}
			for _, line := range queryLines(c.Input(sec.name)) {
				n++
				q, diags := ParseQuery(line, sec.dialect)
				fmt.Fprintf(&out, "== %s %s\n", sec.dialect, line)
				out.WriteString(Dump(q))
				writeDiags(&out, diags)
				checkSpans(t, line, q, diags)
				switch {
				case sec.errors && !syntax.HasErrors(diags):
					t.Errorf("%s %q: want a parse error, got none", sec.dialect, line)
				case sec.errors && !q.Bad:
					t.Errorf("%s %q: errors reported but Query.Bad is false", sec.dialect, line)
				case !sec.errors && (len(diags) > 0 || q.Bad):
					t.Errorf("%s %q: want no diagnostics, got %v", sec.dialect, line, diags)
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s: no queries", c.Path)
		}
		c.Want("out", out.String())
	})
}

// TestFileGolden parses testdata/file/*.txtar "file.pact" sections (default
// dialect from an optional "dialect" section) and compares the dump,
// diagnostics (as line:col) and tokens with "out".
func TestFileGolden(t *testing.T) {
	golden.Run(t, "testdata/file/*.txtar", func(t *testing.T, c *golden.Case) {
		src := c.Input("file.pact")
		def := DialectUnset
		switch strings.TrimSpace(c.InputOr("dialect", "")) {
		case "v1":
			def = V1
		case "v2":
			def = V2
		}
		f := ParseFile(filepath.Base(c.Path), src, def)
		var out strings.Builder
		out.WriteString(Dump(f))
		out.WriteString("## diagnostics\n")
		for _, d := range f.Diagnostics {
			fmt.Fprintf(&out, "%s %s %s\n", d.Format(f.Src), d.Span, d.Severity)
		}
		out.WriteString("## tokens\n")
		for _, tk := range f.Tokens {
			fmt.Fprintf(&out, "%s %s %q\n", tk.Sp, tk.Kind, src[tk.Sp.Start:tk.Sp.End])
		}
		checkFileSpans(t, src, f)
		c.Want("out", out.String())
	})
}

func queryLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func writeDiags(b *strings.Builder, diags []syntax.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintf(b, "! %s %s %s\n", d.Severity, d.Span, d.Message)
	}
}
