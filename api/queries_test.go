package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/api"
)

// queries calls queries through Call and decodes its result.
func queries(t *testing.T, s *api.Session, params map[string]any) []api.Query {
	t.Helper()
	raw, aerr := call(t, s, "queries", params)
	if aerr != nil {
		t.Fatalf("queries %v: %v", params, aerr)
	}
	var out []api.Query
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("queries: %v in %s", err, raw)
	}
	return out
}

// at is the byte offset of the first s in text.
func at(t *testing.T, text, s string) int {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q is not in the text", s)
	}
	return i
}

// wantQuery fails unless q is the query want of text: its text, its
// relation, and a range whose offsets slice want out of text and whose
// lines and columns are those of the offsets.
func wantQuery(t *testing.T, text string, q api.Query, want, relation string) {
	t.Helper()
	if q.Text != want || q.Relation != relation {
		t.Errorf("query %q (relation %q), want %q (relation %q)", q.Text, q.Relation, want, relation)
	}
	if q.Range == nil {
		t.Fatalf("query %q has no range", q.Text)
	}
	start, end := q.Range.Start, q.Range.End
	if got := text[start.Offset:end.Offset]; got != want {
		t.Errorf("range %d..%d is %q, want %q", start.Offset, end.Offset, got, want)
	}
	for _, p := range []api.Position{start, end} {
		before := text[:p.Offset]
		line := strings.Count(before, "\n") + 1
		col := p.Offset - (strings.LastIndex(before, "\n") + 1) + 1
		if p.Line != line || p.Column != col {
			t.Errorf("offset %d at %d:%d, want %d:%d", p.Offset, p.Line, p.Column, line, col)
		}
	}
}

func TestQueriesPACT(t *testing.T) {
	s := api.NewSession("devel", "")
	text := "// sessions\n@t0 .mt\n\n@t0 ^seq .mt .cb[role=\"user\"]\n.cb\n"
	qs := queries(t, s, map[string]any{"text": text, "language": "pact"})
	if len(qs) != 3 {
		t.Fatalf("got %d queries, want 3: %+v", len(qs), qs)
	}
	wantQuery(t, text, qs[0], "@t0 .mt", "")
	wantQuery(t, text, qs[1], `@t0 ^seq .mt .cb[role="user"]`, "")
	wantQuery(t, text, qs[2], ".cb", "")
	if qs[1].Range.Start.Line != 4 || qs[2].Range.Start.Line != 5 {
		t.Errorf("lines %d and %d, want 4 and 5", qs[1].Range.Start.Line, qs[2].Range.Start.Line)
	}
	// Anywhere on a query's line (past its end too) is that query; the
	// comment and the blank line have none.
	for off, want := range map[int]string{
		at(t, text, "^seq") + 2:  `@t0 ^seq .mt .cb[role="user"]`,
		at(t, text, ".cb\n") + 3: ".cb",
		at(t, text, ".mt"):       "@t0 .mt",
		0:                        "",
		at(t, text, "\n\n") + 1:  "",
	} {
		got := queries(t, s, map[string]any{"text": text, "language": "pact", "offset": off})
		switch {
		case want == "" && len(got) != 0:
			t.Errorf("offset %d: %+v, want no query", off, got)
		case want != "" && len(got) != 1:
			t.Errorf("offset %d: %+v, want %q", off, got, want)
		case want != "":
			wantQuery(t, text, got[0], want, "")
		}
	}
}

func TestQueriesJQL(t *testing.T) {
	s := api.NewSession("devel", "")
	first := `{"from": "activities", "where": {"type": "planGenerated"}}`
	second := "{\n  \"from\": \"activities\",\n  \"where\": {\"type\": \"agentMessaged\"}\n}"
	text := first + "\n\n" + second + "\n"
	qs := queries(t, s, map[string]any{"text": text, "language": "jql", "path": "two.jql"})
	if len(qs) != 2 {
		t.Fatalf("got %d queries, want 2: %+v", len(qs), qs)
	}
	wantQuery(t, text, qs[0], first, "")
	wantQuery(t, text, qs[1], second, "")
	if qs[1].Range.Start.Line != 3 || qs[1].Range.End.Line != 6 {
		t.Errorf("second query on lines %d-%d, want 3-6", qs[1].Range.Start.Line, qs[1].Range.End.Line)
	}
	got := queries(t, s, map[string]any{"text": text, "language": "jql", "offset": at(t, text, `"agentMessaged"`)})
	if len(got) != 1 {
		t.Fatalf("at agentMessaged: %+v, want the second query", got)
	}
	wantQuery(t, text, got[0], second, "")

	// Each query the text gives evaluates as the command line evaluates
	// it: the second one on its own, not the document.
	data := readFile(t, "../play/examples/activities.json")
	raw, aerr := call(t, s, "evaluateOnce", map[string]any{"language": "jql", "query": qs[1].Text, "data": data})
	if aerr != nil {
		t.Fatal(aerr)
	}
	cli, stderr, code := runCLI(t, "", "eval", "jql", "--data", "../play/examples/activities.json", qs[1].Text)
	if code != 0 {
		t.Fatalf("ctxql eval jql exited %d: %s", code, stderr)
	}
	sameJSON(t, "second query", raw, []byte(cli))
	if !strings.Contains(string(raw), `"a2"`) || strings.Contains(string(raw), `"a1"`) {
		t.Errorf("the second query gives %s, want the agentMessaged activity a2 only", raw)
	}
}

func TestQueriesDatalog(t *testing.T) {
	s := api.NewSession("devel", "")
	text := readFile(t, "../play/examples/reach.dl") + "edge(\"a\", \"b\").\nboth(x), seen(x) <-- proc(x);\n"
	qs := queries(t, s, map[string]any{"text": text, "language": "datalog"})
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	rels := []string{"reach", "reach", "nf", "edge", "both"}
	if len(qs) != len(lines) {
		t.Fatalf("got %d queries, want %d: %+v", len(qs), len(lines), qs)
	}
	for i, q := range qs {
		wantQuery(t, text, q, lines[i], rels[i])
	}
	got := queries(t, s, map[string]any{"text": text, "language": "datalog", "offset": at(t, text, "nf(t, r)") + 1})
	if len(got) != 1 || got[0].Relation != "nf" {
		t.Errorf("at nf: %+v, want the nf rule", got)
	}
}

func TestQueriesUsage(t *testing.T) {
	s := api.NewSession("devel", "")
	for _, params := range []map[string]any{
		{"text": "x", "language": "markdown"},
		{"text": "x", "language": "sql"},
		{"text": ".mt", "language": "pact", "offset": 4},
		{"text": ".mt", "language": "pact", "offset": -1},
		{"text": ".mt", "language": "pact", "dialect": "v3"},
		{"text": ".mt", "language": "pact", "path": "q.jql"},
		{"text": ".mt", "language": "pact", "line": 1},
	} {
		if _, aerr := call(t, s, "queries", params); aerr == nil || aerr.Code != api.CodeUsage {
			t.Errorf("queries %v: %v, want a usage error", params, aerr)
		}
	}
	// A text with no query has none, and one with errors keeps those that
	// parse.
	if qs := queries(t, s, map[string]any{"text": "// nothing\n", "language": "pact"}); len(qs) != 0 {
		t.Errorf("comment only: %+v", qs)
	}
}
