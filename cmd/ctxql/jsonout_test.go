package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONKeepsHTMLCharacters: every JSON output — eval (PACT, JQL over
// JSON and YAML data, Datalog), check (json and sarif), schema and diff —
// writes <, > and & as they are, as jq does, never \u003c, \u003e or
// \u0026, and stays valid JSON.
func TestJSONKeepsHTMLCharacters(t *testing.T) {
	dir, gitRun := gitRepo(t)
	write(t, filepath.Join(dir, "tree.json"), `{"root": {"children": [{"id": "seg:<a&b>", "nodeType": "seg", "ttl": 1, "children": []}]}}`, 0o644)
	write(t, filepath.Join(dir, "acts.json"), `[{"id": "a<1>&", "type": "x<y"}]`, 0o644)
	write(t, filepath.Join(dir, "acts.yaml"), "activities:\n  - id: \"y<1>&\"\n    type: \"x<y\"\n", 0o644)
	write(t, filepath.Join(dir, "e.json"), `{"relations": {"e": {"param_types": ["String"], "tuples": [["x<y&z>"]]}}}`, 0o644)
	write(t, filepath.Join(dir, "bad.pact"), ".cb[ttl<=]\n", 0o644)
	write(t, filepath.Join(dir, "q.pact"), "// data: tree.json\n.seg[ttl<=1]\n", 0o644)
	write(t, filepath.Join(dir, "q.dl"), "// data: e.json\nrelation e(String);\nq(x) <-- e(x);\n", 0o644)
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	write(t, filepath.Join(dir, "q.pact"), "// data: tree.json\n.seg[ttl<=0]\n", 0o644)
	write(t, filepath.Join(dir, "e.json"), `{"relations": {"e": {"param_types": ["String"], "tuples": [["x<y&z>"], ["p&q"]]}}}`, 0o644)
	for _, c := range []struct {
		args []string
		want []string // what the output holds as it is
	}{
		{[]string{"eval", "pact", "--data", "tree.json", ".seg"}, []string{"seg:<a&b>"}},
		{[]string{"eval", "jql", "--data", "acts.json", `{from: "activities"}`}, []string{`"summary":"x<y"`}},
		{[]string{"eval", "jql", "--data", "acts.yaml", `{from: "activities"}`}, []string{`"id":"y<1>&"`}},
		{[]string{"eval", "datalog", "--data", "e.json", "q(x) <-- e(x)."}, []string{"x<y&z>"}},
		{[]string{"check", "--format", "json", "bad.pact"}, []string{`after \"<=\"`}},
		{[]string{"check", "--format", "sarif", "bad.pact"}, []string{`after \"<=\"`}},
		{[]string{"schema", "jql", "--json"}, nil},
		{[]string{"diff", "--format", "json"}, []string{".seg[ttl<=0]", `[\"p&q\"]`, "seg:<a&b>"}},
		{[]string{"diff", "--format", "sarif"}, []string{"seg:<a&b>"}},
	} {
		r := ctxql(t, dir, nil, c.args...)
		name := strings.Join(c.args[:2], " ")
		if !json.Valid([]byte(r.stdout)) {
			t.Errorf("%s: exit %d, not JSON:\n%.500s%s", name, r.code, r.stdout, r.stderr)
			continue
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if strings.Contains(r.stdout, esc) {
				t.Errorf("%s: the output holds %s:\n%.500s", name, esc, r.stdout)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%s: the output lacks %s:\n%.500s", name, w, r.stdout)
			}
		}
	}
}
