package lang

import (
	"strings"
	"testing"
)

// TestDescribe: the table describes a construct of each query language at
// an offset, and the pragma wherever it stands in the leading block.
func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name, src, at, want string
	}{
		{"q.pact", "// data: ./d.json\n// pact: v1\n^seq .mt\n", "pact: v1", "leading comment block"},
		{"q.pact", "^seq .mt\n", "seq", "Sealed sequence of turns"},
		{"q.pact", ".block:summary\n", "summary", "Legacy form"},
		{"q.jql", `{"from": "sessions", "where": {"state": "paused"}}` + "\n", "state", "**field** `state`"},
		{"q.jql", `{"from": "sessions"}` + "\n", "sessions", "**domain** `sessions`"},
		{"p.dl", "relation e(String, String);\nq(x) <-- e(x, y);\n", "q(", "**relation** `q(String)`"},
		{"p.dl", "relation e(String, String);\nq(x) <-- e(x, y);\n", "y)", "**variable** `y`: String"},
	} {
		p, err := ParseFile(c.name, c.src, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		off := strings.Index(c.src, c.at)
		d, ok := p.Describe(off)
		if !ok || !strings.Contains(d.Markdown, c.want) {
			t.Errorf("%s at %q: %v %q, want %q", c.name, c.at, ok, d.Markdown, c.want)
		}
	}
	p, _ := ParseFile("p.dl", "e(\"a\", \"b\").\nq(x) <-- e(x, y), e(y, x);\n", Settings{})
	sym, _, ok := p.SymbolAt(strings.Index(p.File.Text(), "e(x"))
	if !ok || sym.Kind != SymbolRelation || len(p.Occurrences(sym)) != 3 {
		t.Errorf("symbol %+v %v, occurrences %v", sym, ok, p.Occurrences(sym))
	}
	if v := PACTVocabulary(V2)["control"]; len(v) == 0 {
		t.Error("no v2 controls in the vocabulary")
	}
}
