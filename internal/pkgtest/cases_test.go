package pkgtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxql/ctxql/lang"
)

// Case is one entry of the cases file every runner reads (the format is
// fixed by the library protocol).
type Case struct {
	ID       string         `json:"id"`
	Op       string         `json:"op"`
	Language string         `json:"language,omitempty"`
	Text     string         `json:"text"`
	Options  map[string]any `json:"options,omitempty"`
	Data     string         `json:"data,omitempty"`
	DataName string         `json:"dataName,omitempty"`
}

// testdata is the repository's testdata directory.
var testdata = filepath.Join("..", "..", "testdata")

// sectionNames gives, per testdata directory, the file name of archive
// sections holding a whole query file; members named like query files
// ("file:q.pact", "input.jql.yaml") are taken everywhere.
var sectionNames = map[string]map[string]string{
	"pact":          {"query": "q.pact"},
	"format/pact":   {"input": "in.pact"},
	"migrate":       {"input": "in.pact"},
	"jql/eval":      {"query": "q.jql"},
	"jql/parse":     {"query": "q.jql"},
	"datalog/eval":  {"program": "prog.dl"},
	"datalog/check": {"program": "prog.dl"},
	"datalog/parse": {"input": "in.dl"},
}

// buildCases collects the cases: the evaluator archives (PACT, JQL,
// Datalog, with their data, dialect and options) and the query files with
// a data pragma evaluated; every query file in an archive checked and,
// where the language formats, formatted; every PACT file migrated to v2.
func buildCases(t *testing.T) []Case {
	t.Helper()
	var cases []Case
	add := func(c Case) {
		id := c.ID
		c.ID = fmt.Sprintf("%04d %s %s", len(cases), c.Op, id)
		cases = append(cases, c)
		if c.Op == "evaluate" && c.Language != "datalog" {
			// The same query explained, as --explain.
			x := c
			x.ID = fmt.Sprintf("%04d explain %s", len(cases), id)
			x.Options = map[string]any{"explain": true}
			for k, v := range c.Options {
				x.Options[k] = v
			}
			cases = append(cases, x)
		}
	}
	err := filepath.WalkDir(testdata, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(testdata, p)
		rel = filepath.ToSlash(rel)
		if strings.HasSuffix(p, ".txtar") {
			a, err := txtar.ParseFile(p)
			if err != nil {
				return err
			}
			for _, c := range fromArchive(rel, a) {
				add(c)
			}
			return nil
		}
		for _, c := range fromFile(t, p, rel) {
			add(c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range badData {
		add(c)
	}
	return cases
}

// badData are evaluations of data that cannot be decoded: every runner
// fails them with the code "data" (the command line exits 2), the JQL
// ones when the evaluation reads the bad document.
var badData = []Case{
	{ID: "bad-data jql lines", Op: "evaluate", Language: "jql", Text: `{"from": "activities"}`, Data: "{\"id\": \"a\", \"createTime\": \"2024-01-01T00:00:00Z\"}\n{bad\n", DataName: "bad.jsonl"},
	{ID: "bad-data jql json", Op: "evaluate", Language: "jql", Text: `{"from": "sessions"}`, Data: `[{"id": "a"},`, DataName: "bad.json"},
	{ID: "bad-data jql yaml", Op: "evaluate", Language: "jql", Text: `{"from": "sessions"}`, Data: "sessions: [\n", DataName: "bad.yaml"},
	{ID: "bad-data pact", Op: "evaluate", Language: "pact", Text: ".cb", Data: `{"nodes": [`, DataName: "bad.json"},
	{ID: "bad-data datalog", Op: "evaluate", Language: "datalog", Text: "q(x) <-- edge(x, _)", Data: `{"edge": [["a",`, DataName: "bad.json"},
}

// fromArchive is the cases of one archive.
func fromArchive(rel string, a *txtar.Archive) []Case {
	get := func(name string) (string, bool) {
		for _, f := range a.Files {
			if f.Name == name {
				return string(f.Data), true
			}
		}
		return "", false
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	dialect, _ := get("dialect")
	dialect = strings.TrimSpace(dialect)
	var out []Case
	// Evaluations.
	switch dir {
	case "pact":
		q, okq := get("query")
		df, okd := get("datafile")
		if okq && okd {
			name := strings.TrimSpace(df)
			if b, err := os.ReadFile(filepath.Join(testdata, "pact", name)); err == nil {
				opts := map[string]any{}
				if dialect != "" {
					opts["dialect"] = dialect
				}
				if o, ok := get("options"); ok && strings.TrimSpace(o) != "" {
					var v any
					if json.Unmarshal([]byte(o), &v) == nil {
						opts["rangeOptions"] = v
					}
				}
				out = append(out, Case{ID: rel, Op: "evaluate", Language: "pact", Text: strings.TrimRight(q, "\n"), Options: opts, Data: string(b), DataName: name})
			}
		}
	case "jql/eval":
		q, okq := get("query")
		data, okd := get("data")
		if okq && okd {
			name, _ := get("dataname")
			name = strings.TrimSpace(name)
			if name == "" {
				name = "data.json"
			}
			out = append(out, Case{ID: rel, Op: "evaluate", Language: "jql", Text: q, Data: data, DataName: name})
		}
	case "datalog/eval":
		data, okd := get("data.json")
		if okd {
			if prog, ok := get("program"); ok {
				out = append(out, Case{ID: rel, Op: "evaluate", Language: "datalog", Text: prog, Options: map[string]any{"program": true}, Data: data, DataName: "data.json"})
			}
			if rule, ok := get("rule"); ok {
				out = append(out, Case{ID: rel, Op: "evaluate", Language: "datalog", Text: strings.TrimSpace(rule), Data: data, DataName: "data.json"})
			}
		}
	}
	// Checks, formats and migrations of every query file in the archive.
	for _, f := range a.Files {
		name := strings.TrimPrefix(f.Name, "file:")
		if n, ok := sectionNames[dir][f.Name]; ok {
			name = n
		} else if strings.Contains(name, ":") {
			continue // fixed:q.pact and other expectations
		}
		out = append(out, textCases(rel+":"+f.Name, name, string(f.Data), dialect)...)
	}
	return out
}

// textCases checks a query file, formats it where its language formats,
// and migrates a PACT file to v2.
func textCases(id, name, src, dialect string) []Case {
	l := lang.ForName(name)
	if l == nil || !l.CanEvaluate() {
		return nil
	}
	opts := map[string]any{"path": name}
	if l.ID == lang.PACT && dialect != "" {
		opts["dialect"] = dialect
	}
	out := []Case{{ID: id, Op: "check", Language: string(l.ID), Text: src, Options: opts}}
	if l.CanFormat() {
		out = append(out, Case{ID: id, Op: "format", Language: string(l.ID), Text: src, Options: opts})
	}
	if l.ID == lang.PACT {
		mo := map[string]any{"to": "v2"}
		if dialect != "" {
			mo["dialect"] = dialect
		}
		out = append(out, Case{ID: id, Op: "migrate", Text: src, Options: mo})
	}
	return out
}

// fromFile is the cases of a query file on its own: checked, formatted,
// migrated and, when its data pragma names sample data, evaluated (each
// PACT line, the JQL query, the Datalog program).
func fromFile(t *testing.T, p, rel string) []Case {
	l := lang.ForName(p)
	if l == nil || !l.CanEvaluate() {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	out := textCases(rel, filepath.Base(p), src, "")
	parsed, err := lang.ParseFile(p, src, lang.Settings{})
	if err != nil {
		return out
	}
	dp, ok := parsed.DataPragma()
	if !ok || dp.Path == "" {
		return out
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(p), dp.Path))
	if err != nil {
		t.Fatalf("%s: its data: %v", rel, err)
	}
	c := Case{ID: rel, Op: "evaluate", Language: string(l.ID), Data: string(data), DataName: filepath.Base(dp.Path)}
	switch l.ID {
	case lang.PACT:
		for _, q := range parsed.Queries() {
			qc := c
			qc.ID = fmt.Sprintf("%s:%d", rel, q.Span.Start)
			qc.Text = q.Text
			qc.Options = map[string]any{"dialect": parsed.Dialect.String()}
			out = append(out, qc)
		}
	case lang.JQL:
		c.Text = src
		out = append(out, c)
	case lang.Datalog:
		c.Text = src
		c.Options = map[string]any{"program": true}
		out = append(out, c)
	}
	return out
}

// counts tells how many cases each operation has, for the log.
func counts(cases []Case) string {
	n := map[string]int{}
	for _, c := range cases {
		op := c.Op
		if c.Options["explain"] == true {
			op = "explain"
		}
		n[op+" "+c.Language]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d; ", strings.TrimSpace(k), n[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}
