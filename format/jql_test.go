package format

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	evaljql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/txtar"
)

// jqlInput returns the name and content of an archive's input section, the
// one whose name starts with "input" (input.jql, input.jql.json,
// input.jql.yaml); the name tells the form.
func jqlInput(t *testing.T, c *golden.Case) (string, string) {
	t.Helper()
	for _, f := range c.Archive.Files {
		if strings.HasPrefix(f.Name, "input") {
			return f.Name, c.Input(f.Name)
		}
	}
	t.Fatalf("%s: no input section", c.Path)
	return "", ""
}

// TestJQLGolden formats the input section of each archive under
// testdata/format/jql and compares with "output"; the output must be a
// fixed point and parse to the same queries, forms and comments.
func TestJQLGolden(t *testing.T) {
	golden.Run(t, "../testdata/format/jql/*.txtar", func(t *testing.T, c *golden.Case) {
		name, in := jqlInput(t, c)
		wantFormatted(t, c, name, in, func(out []byte) { checkJQL(t, name, in, out) })
	})
}

// checkJQL requires out, the formatting of in, to be idempotent, to end in
// exactly one newline (or be empty), and to parse to the same queries in
// the same forms with the same comments (modulo spans and key order).
func checkJQL(t *testing.T, name, in string, out []byte) {
	t.Helper()
	again, err := JQL(name, out)
	if err != nil {
		t.Fatalf("formatted text does not format: %v\n%s", err, out)
	}
	if string(again) != string(out) {
		t.Fatalf("not idempotent:\n%s\nthen\n%s", out, again)
	}
	if len(out) > 0 && (!strings.HasSuffix(string(out), "\n") || strings.HasSuffix(string(out), "\n\n")) {
		t.Fatalf("output does not end in exactly one newline: %q", out)
	}
	f, g := jql.ParseFile(name, in), jql.ParseFile(name, string(out))
	yaml := jql.IsYAMLName(name) || len(f.Queries) > 0 && f.Queries[0].Form == jql.FormYAML
	if a, b := jqlKey(f, in, yaml), jqlKey(g, string(out), yaml); a != b {
		t.Fatalf("formatted queries differ:\n%s\nvs\n%s", a, b)
	}
	if len(f.Queries) != len(g.Queries) {
		t.Fatalf("%d queries became %d", len(f.Queries), len(g.Queries))
	}
	for i := range f.Queries {
		if f.Queries[i].Form != g.Queries[i].Form {
			t.Fatalf("query %d changed form from %s to %s", i, f.Queries[i].Form, g.Queries[i].Form)
		}
	}
}

// jqlSource is one JQL text of the repository with the file name it is
// parsed under.
type jqlSource struct{ name, src string }

// jqlSources returns every JQL query text of the repository's test data:
// the query sections of the JQL archives, every query of the
// specification's cases.yaml (as JSON and as YAML), and every .jql,
// .jql.json, .jql.yaml and .jql.yml file.
func jqlSources(t *testing.T) map[string]jqlSource {
	t.Helper()
	srcs := map[string]jqlSource{}
	archives, _ := filepath.Glob("../testdata/jql/*/*.txtar")
	more, _ := filepath.Glob("../syntax/jql/testdata/*/*.txtar")
	for _, p := range append(archives, more...) {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "query" {
				srcs[p] = jqlSource{"query.jql", string(f.Data)}
			}
		}
	}
	for _, q := range specQueries(t) {
		jb, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		yb, err := yaml.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		srcs["cases.yaml:json:"+string(jb)] = jqlSource{"case.jql.json", string(jb)}
		srcs["cases.yaml:yaml:"+string(jb)] = jqlSource{"case.jql.yaml", string(yb)}
	}
	_ = filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		n := strings.ToLower(p)
		if !d.IsDir() && (strings.HasSuffix(n, ".jql") || strings.HasSuffix(n, ".jql.json") || strings.HasSuffix(n, ".jql.yaml") || strings.HasSuffix(n, ".jql.yml")) {
			if b, err := os.ReadFile(p); err == nil {
				srcs[p] = jqlSource{filepath.Base(p), string(b)}
			}
		}
		return nil
	})
	return srcs
}

// specCase is the part of a cases.yaml case the formatter tests use.
type specCase struct {
	ID    string `yaml:"id"`
	Given struct {
		Query map[string]any `yaml:"query"`
		Data  []any          `yaml:"data"`
	} `yaml:"given"`
}

func specCases(t *testing.T) []specCase {
	t.Helper()
	b, err := os.ReadFile("../testdata/jql/cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []specCase `yaml:"cases"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

func specQueries(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, c := range specCases(t) {
		if c.Given.Query != nil {
			out = append(out, c.Given.Query)
		}
	}
	return out
}

// TestJQLCorpus formats every JQL text of the repository: those that parse
// format idempotently to equal queries, the others are refused with a
// SyntaxError.
func TestJQLCorpus(t *testing.T) {
	srcs := jqlSources(t)
	if len(srcs) < 60 {
		t.Fatalf("only %d JQL sources found", len(srcs))
	}
	formatted := 0
	for key, s := range srcs {
		out, err := JQL(s.name, []byte(s.src))
		if syntax.HasErrors(jql.ParseFile(s.name, s.src).Diagnostics) {
			var se *SyntaxError
			if !errors.As(err, &se) || len(se.Diagnostics) == 0 {
				t.Errorf("%s: want a SyntaxError, got %v", key, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", key, err, s.src)
			continue
		}
		checkJQL(t, s.name, s.src, out)
		formatted++
	}
	t.Logf("%d JQL sources, %d formatted", len(srcs), formatted)
	if formatted < 50 {
		t.Fatalf("only %d JQL sources formatted", formatted)
	}
}

// jqlResult evaluates a query and renders its documents, warnings and
// errors without positions.
func jqlResult(t *testing.T, src string, data evaljql.Source) (string, int) {
	t.Helper()
	res, err := evaljql.Eval(context.Background(), src, data)
	var qe *evaljql.QueryError
	switch {
	case errors.As(err, &qe):
		return "error " + diagKey(qe.Diagnostics), 0
	case err != nil:
		return "data error " + err.Error(), 0
	}
	var b strings.Builder
	b.WriteString(diagKey(res.Warnings))
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), len(res.Docs)
}

// TestJQLMeaning evaluates the evaluator's goldens and the
// specification's cases before and after formatting (the cases in JSON
// and in YAML) and requires identical results.
func TestJQLMeaning(t *testing.T) {
	compared, nonEmpty := 0, 0
	compare := func(what, name, src string, data evaljql.Source) {
		out, err := JQL(name, []byte(src))
		if err != nil {
			return // unparseable sources are covered by TestJQLCorpus
		}
		before, n := jqlResult(t, src, data)
		after, _ := jqlResult(t, string(out), data)
		if before != after {
			t.Errorf("%s: results differ after formatting:\n%s\n%s\nformatted:\n%s", what, before, after, out)
		}
		compared++
		if n > 0 {
			nonEmpty++
		}
	}
	archives, _ := filepath.Glob("../testdata/jql/eval/*.txtar")
	for _, p := range archives {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sec := map[string]string{}
		for _, f := range a.Files {
			sec[f.Name] = string(f.Data)
		}
		if sec["query"] == "" || sec["data"] == "" {
			continue
		}
		dataName := strings.TrimSpace(sec["dataname"])
		if dataName == "" {
			dataName = "data.json"
		}
		dp := filepath.Join(t.TempDir(), dataName)
		if err := os.WriteFile(dp, []byte(sec["data"]), 0o644); err != nil {
			t.Fatal(err)
		}
		compare(p, "query.jql", sec["query"], evaljql.File{Path: dp})
	}
	for _, c := range specCases(t) {
		dom, _ := c.Given.Query["from"].(string)
		mem, err := evaljql.NewMemory(map[string][]any{dom: c.Given.Data})
		if err != nil {
			continue
		}
		jb, err := json.Marshal(c.Given.Query)
		if err != nil {
			t.Fatal(err)
		}
		yb, err := yaml.Marshal(c.Given.Query)
		if err != nil {
			t.Fatal(err)
		}
		compare(c.ID+" json", "q.jql.json", string(jb), mem)
		compare(c.ID+" yaml", "q.jql.yaml", string(yb), mem)
	}
	t.Logf("%d queries compared, %d with results", compared, nonEmpty)
	if compared < 40 || nonEmpty < 20 {
		t.Fatalf("compared %d queries, %d with results; want at least 40 and 20", compared, nonEmpty)
	}
}

// FuzzJQL formats arbitrary text under each file name kind: no panic; a
// file that parses formats to text that parses to the same queries, forms
// and comments, and formats to itself.
func FuzzJQL(f *testing.F) {
	archives, _ := filepath.Glob("../testdata/format/jql/*.txtar")
	for _, p := range archives {
		a, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range a.Files {
			if strings.HasPrefix(file.Name, "input") {
				f.Add(strings.HasSuffix(file.Name, ".yaml") || strings.HasSuffix(file.Name, ".yml"), string(file.Data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, yamlName bool, src string) {
		name := "q.jql"
		if yamlName {
			name = "q.jql.yaml"
		}
		out, err := JQL(name, []byte(src))
		if syntax.HasErrors(jql.ParseFile(name, src).Diagnostics) {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("want a SyntaxError, got %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		checkJQL(t, name, src, out)
	})
}
