package pact

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	"github.com/rogpeppe/go-internal/txtar"
)

// checkSpans fails t unless every diagnostic and every node span lies inside
// src with Start <= End, and every child lies inside its query.
func checkSpans(t testing.TB, src string, q *Query, diags []syntax.Diagnostic) {
	t.Helper()
	if q == nil {
		t.Fatalf("%q: nil query", src)
	}
	for _, d := range diags {
		if !d.Span.Valid(len(src)) {
			t.Fatalf("%q: diagnostic span %s out of [0,%d]: %s", src, d.Span, len(src), d.Message)
		}
		if d.Message == "" {
			t.Fatalf("%q: empty diagnostic message", src)
		}
	}
	if syntax.HasErrors(diags) != q.Bad {
		t.Fatalf("%q: Bad=%v but diagnostics %v", src, q.Bad, diags)
	}
	checkNodeSpans(t, src, q)
}

func checkNodeSpans(t testing.TB, src string, root Node) {
	t.Helper()
	Inspect(root, func(n Node) bool {
		if n == nil {
			return false
		}
		if sp := n.Span(); !sp.Valid(len(src)) {
			t.Fatalf("%q: %T span %s out of [0,%d]", src, n, sp, len(src))
		}
		return true
	})
}

func checkFileSpans(t testing.TB, src string, f *File) {
	t.Helper()
	for _, d := range f.Diagnostics {
		if !d.Span.Valid(len(src)) {
			t.Fatalf("%q: diagnostic span %s out of [0,%d]: %s", src, d.Span, len(src), d.Message)
		}
	}
	checkNodeSpans(t, src, f)
	prev := 0
	for _, tk := range f.Tokens {
		if !tk.Sp.Valid(len(src)) || tk.Sp.Start < prev || tk.Sp.Len() == 0 {
			t.Fatalf("%q: token %s %s out of order or range (previous end %d)", src, tk.Kind, tk.Sp, prev)
		}
		prev = tk.Sp.End
	}
	bad := 0
	for _, q := range f.Queries {
		if q.Bad {
			bad++
		}
	}
	if bad > 0 && !syntax.HasErrors(f.Diagnostics) {
		t.Fatalf("%q: %d bad queries but no errors", src, bad)
	}
}

// checkTiling fails t unless toks tile src exactly.
func checkTiling(t testing.TB, src string, toks []tok) {
	t.Helper()
	off := 0
	for _, tk := range toks {
		if tk.start != off || tk.end <= tk.start || tk.end > len(src) {
			t.Fatalf("%q: token %d-%d does not continue at %d", src, tk.start, tk.end, off)
		}
		off = tk.end
	}
	if off != len(src) {
		t.Fatalf("%q: tokens end at %d, want %d", src, off, len(src))
	}
}

// seedQueries returns every query line of the golden archives.
func seedQueries(t testing.TB) []string {
	paths, err := filepath.Glob("testdata/query/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seed archives: %v", err)
	}
	var out []string
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "out" {
				continue
			}
			out = append(out, queryLines(string(f.Data))...)
		}
	}
	return out
}

// seedFiles returns every file.pact section of the file archives.
func seedFiles(t testing.TB) []string {
	paths, _ := filepath.Glob("testdata/file/*.txtar")
	var out []string
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "file.pact" {
				out = append(out, string(f.Data))
			}
		}
	}
	return out
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range seedQueries(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, v1 bool) {
		d := V2
		if v1 {
			d = V1
		}
		q, diags := ParseQuery(src, d)
		checkSpans(t, src, q, diags)
	})
}

func FuzzParseFile(f *testing.F) {
	for _, s := range seedFiles(f) {
		f.Add(s, false)
	}
	f.Add(strings.Join(seedQueries(f), "\n"), false)
	f.Add("// pact: v1\n"+strings.Join(seedQueries(f), " // c\n"), true)
	f.Fuzz(func(t *testing.T, src string, v1 bool) {
		d := DialectUnset
		if v1 {
			d = V1
		}
		file := ParseFile("fuzz.pact", src, d)
		checkFileSpans(t, src, file)
		checkFilterWalk(t, file)
		tree := ParseFileTree("fuzz.pact", src, d)
		if tree.Tokens != nil || Dump(tree) != Dump(file) || !slices.EqualFunc(tree.Diagnostics, file.Diagnostics, func(a, b syntax.Diagnostic) bool { return a.Span == b.Span && a.Message == b.Message }) {
			t.Fatalf("ParseFileTree differs from ParseFile:\n%s\n%s", Dump(tree), Dump(file))
		}
	})
}

func FuzzLex(f *testing.F) {
	for _, s := range seedQueries(f) {
		f.Add(s)
	}
	f.Add("a//b\n'x\n\"y\\\n@t-@c@\xff\xfe!")
	f.Fuzz(func(t *testing.T, src string) {
		checkTiling(t, src, lex(src, false))
		all := lex(src, true)
		checkTiling(t, src, all)
		// Line by line, the lexer yields the same tokens without the newlines.
		var lines []tok
		for i := 0; ; {
			var next int
			lines, next = lexLine(lines, src, i, true)
			if next == len(src) && (next == i || src[next-1] != '\n') {
				break
			}
			i = next
		}
		all = slices.DeleteFunc(all, func(t tok) bool { return t.kind == lNewline })
		if !slices.Equal(lines, all) {
			t.Fatalf("lexLine's tokens differ from lex's for %q", src)
		}
	})
}

// TestFuzzSeedsExist keeps the seed archives honest: the fuzz targets read
// them, so they must exist and be non-empty.
func TestFuzzSeedsExist(t *testing.T) {
	if len(seedQueries(t)) < 50 {
		t.Fatalf("too few seed queries")
	}
	if _, err := os.Stat("testdata/file"); err != nil {
		t.Fatal(err)
	}
}

// checkFilterWalk checks that EachAttr and EachPseudo visit exactly the
// filters and pseudo-classes Inspect visits, in the same order.
func checkFilterWalk(t *testing.T, f *File) {
	t.Helper()
	for _, q := range f.Queries {
		var attrs, pseudos []Node
		Inspect(q, func(n Node) bool {
			switch n.(type) {
			case *Attr:
				attrs = append(attrs, n)
			case *Pseudo:
				pseudos = append(pseudos, n)
			}
			return true
		})
		var gotA, gotP []Node
		EachAttr(q, func(a *Attr) { gotA = append(gotA, a) })
		EachPseudo(q, func(p *Pseudo) { gotP = append(gotP, p) })
		if !slices.Equal(attrs, gotA) || !slices.Equal(pseudos, gotP) {
			t.Fatalf("EachAttr/EachPseudo visit %d/%d nodes, Inspect %d/%d, in %s", len(gotA), len(gotP), len(attrs), len(pseudos), Dump(q))
		}
	}
}
