package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// lineSources are PACT texts exercising every kind of line: pragmas, legacy
// forms with fixes, suppressions on the line and the line above, range
// suppressions, comments, syntax errors and blank lines.
var lineSources = []string{
	"// pact: v1\n.cb:summary\n.mt:depth(1) .cb[ttl<=]\n",
	"// pact: v3\n.x\n",
	".seg .block:summary // ctxql:ignore PACT001 -- legacy importer\n// ctxql:ignore PACT005 -- checked\n.mt:depth(1)\n\n\n(d1, seg, cont[offset=0])\n",
	"// ctxql:disable PACT001\n.block:a\n.block:b\n// ctxql:enable PACT001\n.block:c\n// ctxql:ignore PACT009 -- unused\n",
	".summary { author=\"user\" ttl>=2 } // pact: v1\n  // pact: v1\n.block(a=1 b=2)\r\n.x[\n",
	"",
	"\n\n",
	".cb[title='// not a comment'] .block:x\n",
}

// TestLineDiagnosticsMatchFile compares the line-by-line diagnostics with
// the linter's analysis of the whole file, on the sources above and on
// every .pact section of the repository's test archives, twice (the second
// time from the cache).
func TestLineDiagnosticsMatchFile(t *testing.T) {
	l, err := lint.New(lang.DialectUnset)
	if err != nil {
		t.Fatal(err)
	}
	srcs := append([]string(nil), lineSources...)
	err = filepath.WalkDir("../testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txtar") {
			return err
		}
		a, err := txtar.ParseFile(p)
		if err != nil {
			return err
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".pact") || f.Name == "input" && strings.Contains(p, "format/pact") {
				srcs = append(srcs, string(f.Data))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) < 30 {
		t.Fatalf("only %d sources", len(srcs))
	}
	var c lineCache
	nonEmpty := 0
	for _, src := range srcs {
		if checkLines(t, &c, l, src) {
			nonEmpty++
		}
		checkLines(t, &c, l, src)
	}
	if nonEmpty < 20 {
		t.Fatalf("only %d sources had diagnostics", nonEmpty)
	}
}

// checkLines compares the two ways and reports whether there were
// diagnostics.
func checkLines(t *testing.T, c *lineCache, l *lint.Linter, src string) bool {
	t.Helper()
	ctx := context.Background()
	s := &Snapshot{URI: "file:///w/q.pact", File: syntax.NewFile("file:///w/q.pact", src), Lang: pactLanguage{}}
	got, ok := c.lineDiagnostics(ctx, l, s, lang.V2)
	if !ok {
		// Analysed whole: the two ways are one.
		p := lang.ByID(lang.PACT).Parse(s.File.Name(), src, lang.V2)
		got = l.Analyze(ctx, p.File, p.AST)
	}
	pf := pact.ParseFile(s.File.Name(), src, lang.V2)
	want := l.Analyze(ctx, pf.Src, pf)
	if len(got) == 0 && len(want) == 0 {
		return false
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%q: line-by-line diagnostics differ (-file +lines):\n%s", src, diff)
	}
	return true
}

// FuzzLineDiagnostics checks the equality on arbitrary texts.
func FuzzLineDiagnostics(f *testing.F) {
	for _, s := range lineSources {
		f.Add(s)
	}
	l, err := lint.New(lang.DialectUnset)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var c lineCache
		checkLines(t, &c, l, src)
	})
}
