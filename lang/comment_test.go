package lang

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// TestDirectivesOnlyInComments: a directive counts only inside a comment
// of the file's language, never inside a string literal, and Markdown's
// are HTML comments.
func TestDirectivesOnlyInComments(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // codes of the directives found
	}{
		{"p.dl", "q(x) <-- e(x, y), if x != \"// ctxql:ignore DL008\";\n", nil},
		{"p.dl", "q(x) <-- e(x, y); // ctxql:ignore DL008\n", []string{"DL008"}},
		{"q.pact", ".mt[title='// ctxql:ignore PACT001']\n", nil},
		{"q.pact", "// ctxql:ignore PACT001\n.mt\n", []string{"PACT001"}},
		{"q.jql", "{\"from\": \"sessions\", \"where\": {\"title\": \"// ctxql:ignore JQL001\"}}\n", nil},
		{"q.jql", "// ctxql:ignore JQL001\n{\"from\": \"sessions\"}\n", []string{"JQL001"}},
		{"q.jql.yaml", "from: sessions # ctxql:ignore JQL002\n", []string{"JQL002"}},
		{"q.jql.yaml", "from: \"a # ctxql:ignore JQL002\"\n", nil},
		{"README.md", "// ctxql:ignore DOC001\n", nil},
		{"README.md", "<!-- ctxql:ignore DOC001 -->\n", []string{"DOC001"}},
		{"README.md", "Write `<!-- ctxql:ignore DOC001 -->` above it.\n", nil},
		{"README.md", "```markdown\n<!-- ctxql:ignore DOC001 -->\n```\n", nil},
		{"app.ts", "const s = \"// ctxql:ignore PACT001\";\n", nil},
		{"app.ts", "ctx.select(\".mt\"); // ctxql:ignore PACT001\n", []string{"PACT001"}},
	} {
		p, err := ParseFile(c.name, c.src, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range p.Directives() {
			got = append(got, d.Codes...)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %q: directives %v, want %v", c.name, c.src, got, c.want)
		}
	}
}

// TestSuppressible: no directive or quick fix silences a syntax or check
// error.
func TestSuppressible(t *testing.T) {
	f := syntax.NewFile("q.pact", ".mt:nth(0)\n")
	for _, c := range []struct {
		d    syntax.Diagnostic
		want bool
	}{
		{syntax.Diagnostic{Code: "PACT009", Severity: syntax.SeverityError, Origin: syntax.OriginCheck}, false},
		{syntax.Diagnostic{Code: "pact-syntax", Severity: syntax.SeverityError, Origin: syntax.OriginSyntax}, false},
		{syntax.Diagnostic{Code: "PACT001", Severity: syntax.SeverityWarning, Origin: syntax.OriginRule}, true},
	} {
		if Suppressible(c.d) != c.want {
			t.Errorf("Suppressible(%v) = %v", c.d, !c.want)
		}
		if _, ok := SuppressEdit("q.pact", f, c.d); ok != c.want {
			t.Errorf("SuppressEdit(%v) offered = %v", c.d, ok)
		}
	}
	e, _ := SuppressEdit("README.md", syntax.NewFile("README.md", "x\n"), syntax.Diagnostic{Code: "DOC001", Origin: syntax.OriginRule})
	if e.NewText != " <!-- ctxql:ignore DOC001 -- reason -->" {
		t.Errorf("Markdown suppression %q", e.NewText)
	}
}

// TestDataPragma: the data pragma stands in the leading comment block, in
// any order with the dialect pragma; an empty one says there is no data.
func TestDataPragma(t *testing.T) {
	for _, c := range []struct {
		name, src string
		path      string
		ok        bool
	}{
		{"q.pact", "// data: ./d.json\n// pact: v1\n.mt\n", "./d.json", true},
		{"q.pact", "// pact: v1\n\n// data: d.json\n.mt\n", "d.json", true},
		{"q.pact", "// data:\n.mt\n", "", true},
		{"q.pact", ".mt\n// data: late.json\n", "", false},
		{"q.jql.yaml", "# data: s.json\nfrom: sessions\n", "s.json", true},
		{"p.dl", "// data: ./d.json\nq(x) <-- e(x, y);\n", "./d.json", true},
		{"p.dl", "q(x) <-- e(x, \"// data: x\");\n", "", false},
	} {
		p, _ := ParseFile(c.name, c.src, Settings{})
		pr, ok := p.DataPragma()
		if ok != c.ok || pr.Path != c.path {
			t.Errorf("%s %q: %q %v, want %q %v", c.name, c.src, pr.Path, ok, c.path, c.ok)
		}
	}
}

// TestDatalogSchemaFromData: a program whose data (pragma) provides a
// relation is checked against the data's schema: the relation is known.
func TestDatalogSchemaFromData(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "d.json"), []byte(`{"relations": {"path": {"param_types": ["String", "String"], "tuples": [["a", "b"]]}}}`), 0o644)
	name := filepath.Join(dir, "p.dl")
	src := "// data: ./d.json\nq(x) <-- path(x, y), e(y, x);\n"
	cache := NewDataCache(t.Context(), nil)
	p, err := ParseFile(name, src, Settings{Load: cache.Load})
	if err != nil {
		t.Fatal(err)
	}
	if p.Info == nil || p.Info.Relations["path"] == nil || len(p.Info.Relations["path"].Types) != 2 {
		t.Fatalf("path is not known from the data: %+v", p.Info)
	}
	for _, d := range p.Info.Diagnostics {
		if d.Code == "DL001" || d.Code == "datalog/unknown-relation" {
			if p.File.Slice(d.Span) == "path" {
				t.Errorf("path reported unknown: %v", d)
			}
		}
	}
}

// TestMigrateParsesInTarget: a migration's output parses in the dialect
// it declares, the pragma inserted before a rewrite at the same offset.
func TestMigrateParsesInTarget(t *testing.T) {
	m, err := ByID(PACT).Migrate("a.pact", []byte("[ttl<1]\n"), MigrateOptions{From: V1, To: V2})
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Output) != "// pact: v2\n*[ttl<1]\n" || m.Dialect != V2 {
		t.Errorf("output %q in %v", m.Output, m.Dialect)
	}
	p, _ := ParseFile("a.pact", string(m.Output), Settings{Editor: V1})
	if !p.Valid() || p.Dialect != V2 {
		t.Errorf("output does not parse as v2: %v", p.Diagnostics)
	}
	// A pragma on the second line of the leading block is honoured.
	m, err = ByID(PACT).Migrate("a.pact", []byte("// data: ./d.json\n// pact: v1\n.mt .cb:hover\n"), MigrateOptions{To: V2})
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Output) != "// data: ./d.json\n// pact: v2\n.mt *[nodeType='cb:hover']\n" {
		t.Errorf("output %q", m.Output)
	}
}

// TestParseDialect is the one parser of dialect names.
func TestParseDialect(t *testing.T) {
	for s, want := range map[string]Dialect{"v1": V1, "v2": V2, "": DialectUnset, "V2": DialectUnset, "v3": DialectUnset} {
		if d, ok := ParseDialect(s); d != want || ok != (want != DialectUnset) {
			t.Errorf("ParseDialect(%q) = %v %v", s, d, ok)
		}
	}
	names := DialectNames()
	if !slices.Equal(names, []string{"v1", "v2"}) {
		t.Errorf("DialectNames() = %q", names)
	}
	for _, n := range names {
		if _, ok := ParseDialect(n); !ok {
			t.Errorf("ParseDialect refuses the listed name %q", n)
		}
	}
	if _, err := DialectOr("v3", V2); err == nil || err.Error() != `must be v1 or v2, not "v3"` {
		t.Errorf("DialectOr: %v", err)
	}
}

// TestMarkdownCommentsOutsideCode checks that an HTML comment in a code
// span or a fenced code block is text, and one outside code a comment.
func TestMarkdownCommentsOutsideCode(t *testing.T) {
	src := "Write `<!-- ctxql:ignore DOC001 -->` above the line.\n" +
		"```md\n<!-- ctxql:ignore DOC001 -->\n```\n" +
		"~~~\n<!-- in a tilde fence -->\n~~~\n" +
		"``a ` <!-- in a double span --> b``\n" +
		"<!-- ctxql:ignore DOC001 -- a real one -->\n" +
		"an unclosed ` backtick <!-- still a comment -->\n"
	p := ByID(Markdown).Parse("a.md", src, DialectUnset)
	var got []string
	for _, c := range p.Comments() {
		got = append(got, src[c.Start:c.End])
	}
	want := []string{"<!-- ctxql:ignore DOC001 -- a real one -->", "<!-- still a comment -->"}
	if !slices.Equal(got, want) {
		t.Errorf("comments %q, want %q", got, want)
	}
}
