package qtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExamples runs the project's example tests: every case passes and
// every part of every tested query is covered.
func TestExamples(t *testing.T) {
	paths, err := filepath.Glob("../testdata/examples/*.ctxqltest.yaml")
	if err != nil || len(paths) < 3 {
		t.Fatalf("example tests: %v %v", paths, err)
	}
	rs, cov, err := Run(context.Background(), paths, Options{Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != Pass {
			t.Errorf("%s %s: %s %v", r.File.Name, r.Name(), r.Status, r.Messages)
		}
	}
	langs := map[string]bool{}
	for _, f := range cov.Files {
		langs[filepath.Ext(strings.TrimSuffix(f.Name, ".yaml"))] = true
		if a, b := f.Covered(); a != b || b == 0 {
			t.Errorf("%s: %d of %d parts covered", f.Name, a, b)
		}
	}
	for _, ext := range []string{".pact", ".jql", ".dl"} {
		if !langs[ext] {
			t.Errorf("no example query file %s is covered", ext)
		}
	}
}

// TestSchemaKeys checks that schema.json describes exactly the keys Parse
// accepts, at the top of the file and in a case.
func TestSchemaKeys(t *testing.T) {
	b, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]any `json:"properties"`
		Defs       struct {
			Case struct {
				Properties map[string]any `json:"properties"`
			} `json:"case"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	keysOf := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	kindsOf := func(m map[string][]nodeKind) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if d := cmp.Diff(kindsOf(fileKeys), keysOf(s.Properties)); d != "" {
		t.Errorf("top-level keys (-Parse +schema):\n%s", d)
	}
	if d := cmp.Diff(kindsOf(caseKeys), keysOf(s.Defs.Case.Properties)); d != "" {
		t.Errorf("case keys (-Parse +schema):\n%s", d)
	}
}

// TestUpdateThenPass checks that a file rewritten by Update passes: the
// rewritten values are read back as the results they came from, for
// every kind of result (ids, documents, tuples) and list style.
func TestUpdateThenPass(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("d.json", `{"root": {"children": [{"id": "a:1", "nodeType": "mt"}, {"id": "b #2", "nodeType": "mt"}]}}`)
	write("acts.json", `{"activities": [{"id": "x", "type": "agentMessaged", "message": "say \"hi\": yes", "createTime": "2024-01-01T00:00:00Z"}]}`)
	write("t.ctxqltest.yaml", `# comment kept
tests:
  - name: ids          # trailing comment kept
    language: pact
    data: d.json
    query: ".mt"
    want: []
  - name: docs
    language: jql
    data: acts.json
    query: "{from: 'activities'}"
    want:
      - {id: nothing}
    count: 7
  - name: tuples
    language: datalog
    data: {relations: {e: {param_types: [N, N], tuples: [["1", "x y"], ["2", "-"]]}}}
    query: "q(a, b) <-- e(a, b)."
    want: [[0, z]]
`)
	path := filepath.Join(dir, "t.ctxqltest.yaml")
	rs, _, err := Run(context.Background(), []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := Summarize(rs); s.Failed != 3 {
		t.Fatalf("before the update: %+v", s)
	}
	out, changed := Update(rs[0].File, rs)
	if !changed {
		t.Fatal("Update changed nothing")
	}
	for _, keep := range []string{"# comment kept", "# trailing comment kept", "    count: 1\n"} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("updated file lacks %q:\n%s", keep, out)
		}
	}
	write("t.ctxqltest.yaml", string(out))
	rs, _, err = Run(context.Background(), []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != Pass {
			t.Errorf("after the update %s: %s %v\n%s", r.Name(), r.Status, r.Messages, out)
		}
	}
	if again, changed := Update(rs[0].File, rs); changed {
		t.Errorf("a second update changed the file:\n%s", again)
	}
}

// FuzzParse checks that no test file makes Parse panic, that every
// diagnostic lies in the file, and that Update without results changes
// nothing.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"tests:\n  - name: a\n    query: .mt\n    language: pact\n    data: d.json\n    want: [a]\n",
		"data: {relations: {}}\ntests: [{name: x, file: q.dl, relation: r, count: 0}]\n",
		"tests:\n  - name: b\n    want:\n      - x\n      - 'y'\n",
		"- a\n", "", "tests: [", "tests:\n  - name: &a x\n    want: *a\n", "\"\\ud800\": 1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file := Parse("f.ctxqltest.yaml", []byte(src))
		for _, d := range file.Diagnostics {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("diagnostic %v outside the file of %d bytes: %s", d.Span, len(src), d.Message)
			}
		}
		for _, c := range file.Cases {
			if c.Want != nil && !c.Want.Sp.Valid(len(src)) {
				t.Fatalf("want span %v outside the file", c.Want.Sp)
			}
		}
		if out, changed := Update(file, nil); changed || string(out) != src {
			t.Fatalf("Update without results changed the file")
		}
	})
}
