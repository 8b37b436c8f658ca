package lang

import (
	"slices"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// TestFormatTupleParses checks that FormatTuple writes what ParseTuple
// reads back, for values that need escapes.
func TestFormatTupleParses(t *testing.T) {
	for _, vals := range [][]string{{}, {"a"}, {"a", "b c"}, {`q"uote`, `back\slash`, "tab\t", "é ☃", "1"}} {
		text := FormatTuple("rel", vals)
		rel, got, err := ParseTuple(text)
		if err != nil || rel != "rel" || !slices.Equal(got, vals) && len(vals) > 0 {
			t.Errorf("%q: read back %q %q, %v", text, rel, got, err)
		}
	}
}

// TestSuffix checks the table's suffix of a file name: the longest
// matching one, in lower case; the language's first for other names.
func TestSuffix(t *testing.T) {
	jql := ByID(JQL)
	for name, want := range map[string]string{"q.jql": ".jql", "dir/Q.JQL.YAML": ".jql.yaml", "q.jql.yml": ".jql.yml", "q.txt": ".jql"} {
		if got := jql.Suffix(name); got != want {
			t.Errorf("Suffix(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestLines checks the lines of a file parsed line by line: the dialect of
// the pragma, comment lines after the first, and no lines for a file whose
// pragma stands after a query or for a language whose lines depend on each
// other.
func TestLines(t *testing.T) {
	pact := ByID(PACT)
	src := "// pact: v1\n// a comment\n.cb\n\n.mt // trailing\n"
	lines, d, ok := pact.Lines("q.pact", src, V2)
	if !ok || d != V1 {
		t.Fatalf("Lines: ok %v, dialect %v", ok, d)
	}
	var comments []string
	for _, l := range lines {
		if l.Comment {
			comments = append(comments, src[l.Span.Start:l.Span.End])
		}
	}
	if !slices.Equal(comments, []string{"// a comment"}) || len(lines) != 6 {
		t.Errorf("lines %+v, comment lines %q", lines, comments)
	}
	if _, d, ok := pact.Lines("q.pact", ".cb\n", V1); !ok || d != V1 {
		t.Errorf("no pragma: ok %v, dialect %v, want the default", ok, d)
	}
	for _, src := range []string{".cb\n// pact: v1\n", "// pact: v1\n// pact: v2\n.cb\n"} {
		if _, _, ok := pact.Lines("q.pact", src, V2); ok {
			t.Errorf("%q: a misplaced pragma is analysed line by line", src)
		}
	}
	if _, _, ok := ByID(Datalog).Lines("p.dl", "p(1).\n", V2); ok {
		t.Error("Datalog analysed line by line")
	}
}

// TestSignatureAtWhileTyping checks the signature of a relation whose
// atom is not closed yet: commas in strings and in closed atoms do not
// count, and outside an argument list there is none.
func TestSignatureAtWhileTyping(t *testing.T) {
	src := "relation edge(String, String);\np(x) <-- edge(\"a,b\", "
	p := ByID(Datalog).Parse("p.dl", src, DialectUnset)
	sig, ok := p.SignatureAt(len(src))
	if !ok || sig.Label != "edge(String, String)" || sig.Active != 1 || len(sig.Params) != 2 {
		t.Fatalf("signature %+v, %v", sig, ok)
	}
	if _, ok := p.SignatureAt(len("relation edge(String, String);\np(x) <--")); ok {
		t.Error("a signature outside an argument list")
	}
	if _, ok := ByID(PACT).Parse("q.pact", ".cb", DialectUnset).SignatureAt(1); ok {
		t.Error("a signature in PACT")
	}
}

// TestMarkdownSections checks the outline and folds of a Markdown file:
// a section runs to the next heading of its level or higher, headings in
// code blocks are text, and a code block folds.
func TestMarkdownSections(t *testing.T) {
	src := "# A\ntext\n## B\n```\n# not a heading\n```\n## C\n# D\n"
	p := ByID(Markdown).Parse("g.md", src, DialectUnset)
	var got []string
	for _, o := range p.Outline() {
		got = append(got, o.Name+":"+src[o.Span.Start:o.Span.End])
	}
	want := []string{"A:# A\ntext\n## B\n```\n# not a heading\n```\n## C\n", "B:## B\n```\n# not a heading\n```\n", "C:## C\n", "D:# D\n"}
	if !slices.Equal(got, want) {
		t.Errorf("outline %q, want %q", got, want)
	}
	var folds []syntax.Span
	for _, f := range p.Folds() {
		folds = append(folds, f.Span)
	}
	if !slices.Contains(folds, syntax.Sp(len("# A\ntext\n## B\n"), len("# A\ntext\n## B\n```\n# not a heading\n```"))) {
		t.Errorf("folds %v lack the code block", folds)
	}
}
