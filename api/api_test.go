package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxql/ctxql/api"
	"github.com/ctxql/ctxql/cli"
)

// runCLI runs the ctxql command line in-process.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errw bytes.Buffer
	code = cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errw})
	return out.String(), errw.String(), code
}

// call runs one operation through Call, as the worker and the WebAssembly
// build do.
func call(t *testing.T, s *api.Session, method string, params any) (json.RawMessage, *api.Error) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return s.Call(context.Background(), method, b)
}

// sameJSON fails unless a and b are the same JSON value.
func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v in %s", what, err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v in %s", what, err, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	if !bytes.Equal(xa, ya) {
		t.Errorf("%s:\napi %s\ncli %s", what, a, b)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEvaluateAsCLI evaluates the example queries through a handle and
// once, and requires the JSON value `ctxql eval` prints.
func TestEvaluateAsCLI(t *testing.T) {
	const ex = "../testdata/examples/"
	for _, c := range []struct {
		lang, data, query string
		opts              map[string]any
		args              []string
	}{
		{"pact", "context.json", "^seq .mt:depth(1-2) .cb[ttl<=1]", map[string]any{"dialect": "v1"}, []string{"--dialect", "v1"}},
		{"pact", "context.json", ".mt > .cb[role='user']", map[string]any{"dialect": "v1"}, []string{"--dialect", "v1"}},
		{"pact", "context.json", "@t0 ^seq .mt .cb", nil, nil},
		{"jql", "activities.json", readFile(t, ex+"failures.jql.yaml"), nil, nil},
		{"jql", "activities.json", `{"from": "sessions", "where": {"state": "completed"}}`, nil, nil},
		{"datalog", "graph.json", `q(y) <-- edge("a", y)`, nil, nil},
		{"datalog", "graph.json", readFile(t, ex+"reach.dl"), map[string]any{"program": true}, nil},
	} {
		args := append([]string{"eval", c.lang, "--data", ex + c.data}, c.args...)
		if c.opts["program"] == true {
			args = append(args, "--rules", ex+"reach.dl")
		} else {
			args = append(args, c.query)
		}
		want, stderr, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		s := api.NewSession("v", "c")
		h, aerr := call(t, s, "load", map[string]any{"language": c.lang, "data": readFile(t, ex+c.data), "name": c.data})
		if aerr != nil {
			t.Fatalf("load %s: %v", c.data, aerr)
		}
		var loaded struct{ Handle int }
		if err := json.Unmarshal(h, &loaded); err != nil || loaded.Handle < 1 {
			t.Fatalf("load: %s", h)
		}
		params := map[string]any{"handle": loaded.Handle, "query": c.query}
		for k, v := range c.opts {
			params[k] = v
		}
		got, aerr := call(t, s, "evaluate", params)
		if aerr != nil {
			t.Fatalf("evaluate %q: %v", c.query, aerr)
		}
		sameJSON(t, c.lang+" "+c.query, got, []byte(want))
		// The bytes too: what the command line prints, compact.
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(want)); err != nil || compact.String() != string(got) {
			t.Errorf("%s %s: result %s, want the compact %s (%v)", c.lang, c.query, got, compact.String(), err)
		}
		once, aerr := call(t, s, "evaluateOnce", map[string]any{"language": c.lang, "query": c.query, "data": readFile(t, ex+c.data), "name": c.data, "options": c.opts})
		if aerr != nil {
			t.Fatalf("evaluateOnce %q: %v", c.query, aerr)
		}
		sameJSON(t, "once "+c.query, once, []byte(want))
		if _, aerr := call(t, s, "release", map[string]any{"handle": loaded.Handle}); aerr != nil {
			t.Fatal(aerr)
		}
		if _, aerr := call(t, s, "evaluate", params); aerr == nil || aerr.Code != "usage" {
			t.Errorf("evaluate on a released handle: %v", aerr)
		}
		if s.Handles() != 0 {
			t.Errorf("%d handles left after release", s.Handles())
		}
	}
}

// TestInvalidQuery requires an invalid query's error to carry the code of
// its first diagnostic and the position the command line prints.
func TestInvalidQuery(t *testing.T) {
	const ex = "../testdata/examples/"
	for _, c := range []struct{ lang, data, query, code string }{
		{"pact", "context.json", "@t0 ^seq .mt:depth()", "pact-syntax"},
		{"pact", "context.json", ".cb[ttl<=]", "pact-syntax"},
		{"jql", "activities.json", `{"from": "nothing"}`, ""},
		{"datalog", "graph.json", `q(y) <-- edge("a", y`, "datalog/syntax"},
	} {
		_, stderr, code := runCLI(t, "", "eval", c.lang, "--data", ex+c.data, c.query)
		if code != 1 {
			t.Fatalf("%q: exit %d", c.query, code)
		}
		_, aerr := call(t, api.NewSession("v", "c"), "evaluateOnce", map[string]any{"language": c.lang, "query": c.query, "data": readFile(t, ex+c.data)})
		if aerr == nil || aerr.Range == nil {
			t.Fatalf("%q: error %v, want one with a range", c.query, aerr)
		}
		if c.code != "" && aerr.Code != c.code {
			t.Errorf("%q: code %q, want %q", c.query, aerr.Code, c.code)
		}
		pos := strings.Join([]string{itoa(aerr.Range.Start.Line), itoa(aerr.Range.Start.Column)}, ":")
		if !strings.Contains(stderr, pos+":") || !strings.Contains(stderr, aerr.Message) {
			t.Errorf("%q: error %v; the command line printed %q", c.query, aerr, stderr)
		}
		if off := aerr.Range.Start.Offset; off < 0 || off > len(c.query) || aerr.Range.End.Offset < off {
			t.Errorf("%q: range %+v", c.query, aerr.Range)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCheckFormatMigrateAsCLI compares check, format and migrate with
// `ctxql check --format json`, `ctxql fmt` and `ctxql migrate` on
// standard input.
func TestCheckFormatMigrateAsCLI(t *testing.T) {
	s := api.NewSession(cli.Version, cli.Commit)
	for _, c := range []struct{ lang, path, text string }{
		{"pact", "q.pact", ".cb[ttl<=]\n"},
		{"pact", "", "// pact: v1\n^seq   .mt:depth(1)>.cb\n.mt > .cb[role=\"x\"]\n"},
		{"jql", "q.jql", `{"from":"sessions","where":{"state":"completed"}}`},
		{"jql", "q.jql.yaml", "from: sessions\nwhere:\n  bogus: 1\n"},
		{"datalog", "", "relation e(Node,Node);\nq(x)<--e(x,y), !r(y);\n"},
		{"datalog", "p.dl", "q(x) <-- e(x"},
	} {
		name := c.path
		if name == "" {
			name = map[string]string{"pact": "stdin.pact", "jql": "stdin.jql", "datalog": "stdin.dl"}[c.lang]
		}
		want, stderr, code := runCLI(t, c.text, "check", "--format", "json", "--stdin-filename", name, "-")
		if code > 1 {
			t.Fatalf("check %q: exit %d: %s", c.text, code, stderr)
		}
		got, aerr := call(t, s, "check", map[string]any{"text": c.text, "language": c.lang, "path": c.path})
		if aerr != nil {
			t.Fatalf("check %q: %v", c.text, aerr)
		}
		sameJSON(t, "check "+c.text, got, []byte(want))
		for _, format := range []string{"text", "sarif", "github"} {
			want, _, code := runCLI(t, c.text, "check", "--format", format, "--stdin-filename", name, "-")
			got, aerr := call(t, s, "report", map[string]any{"files": []map[string]string{{"path": name, "text": c.text}}, "format": format})
			var r api.Report
			if aerr != nil || json.Unmarshal(got, &r) != nil {
				t.Fatalf("report %q: %s %v", c.text, got, aerr)
			}
			if r.Output != want || r.Errors != (code == 1) {
				t.Errorf("report --format %s %q: %+v; check printed %q, exit %d", format, c.text, r, want, code)
			}
		}

		want, stderr, code = runCLI(t, c.text, "fmt", "--stdin-filename", name, "-")
		got, aerr = call(t, s, "format", map[string]any{"text": c.text, "language": c.lang, "path": c.path})
		switch {
		case code == 0 && aerr == nil:
			var text string
			if err := json.Unmarshal(got, &text); err != nil || text != want {
				t.Errorf("format %q: %s, want %q", c.text, got, want)
			}
		case code == 2 && aerr != nil:
			if !strings.Contains(stderr, aerr.Message) || aerr.Range == nil {
				t.Errorf("format %q: error %v, fmt printed %q", c.text, aerr, stderr)
			}
		default:
			t.Errorf("format %q: fmt exit %d (%s), api %s %v", c.text, code, stderr, got, aerr)
		}

		if c.lang != "pact" {
			continue
		}
		want, stderr, code = runCLI(t, c.text, "migrate", "--to", "v2", "-")
		got, aerr = call(t, s, "migrate", map[string]any{"text": c.text, "to": "v2"})
		if code == 2 {
			if aerr == nil || !strings.Contains(stderr, aerr.Message) {
				t.Errorf("migrate %q: error %v, migrate printed %q", c.text, aerr, stderr)
			}
			continue
		}
		var m api.Migration
		if aerr != nil || json.Unmarshal(got, &m) != nil {
			t.Fatalf("migrate %q: %s %v", c.text, got, aerr)
		}
		if m.Text != want || (len(m.Manual) > 0) != (code == 1) || m.Changed != (m.Text != c.text) {
			t.Errorf("migrate %q: %+v; migrate printed %q, exit %d", c.text, m, want, code)
		}
		for _, d := range m.Manual {
			if !strings.Contains(stderr, d.Message) {
				t.Errorf("migrate %q: manual %q not on stderr %q", c.text, d.Message, stderr)
			}
		}
	}
}

// TestWhy compares why and whyNot with --why and --why-not.
func TestWhy(t *testing.T) {
	const ex = "../testdata/examples/"
	s := api.NewSession("v", "c")
	h, aerr := call(t, s, "load", map[string]any{"language": "datalog", "data": readFile(t, ex+"graph.json")})
	if aerr != nil {
		t.Fatal(aerr)
	}
	var loaded struct{ Handle int }
	json.Unmarshal(h, &loaded)
	rules := readFile(t, ex+"reach.dl")
	for _, c := range []struct {
		flag, method, tuple string
		derived             bool
	}{
		{"--why", "why", `reach("a", "d")`, true},
		{"--why", "why", `reach("d", "a")`, false},
		{"--why-not", "whyNot", `reach("d", "a")`, false},
		{"--why-not", "whyNot", `reach("a", "b")`, true},
	} {
		want, stderr, code := runCLI(t, "", "eval", "datalog", "--data", ex+"graph.json", "--rules", ex+"reach.dl", c.flag, c.tuple)
		got, aerr := call(t, s, c.method, map[string]any{"handle": loaded.Handle, "rules": rules, "tuple": c.tuple, "name": ex + "reach.dl"})
		if aerr != nil {
			t.Fatalf("%s %s: %v", c.method, c.tuple, aerr)
		}
		var p api.Proof
		if err := json.Unmarshal(got, &p); err != nil {
			t.Fatal(err)
		}
		if p.Derived != c.derived {
			t.Errorf("%s %s: derived %v", c.method, c.tuple, p.Derived)
		}
		if want == "" {
			want = strings.TrimSuffix(stderr, "; see --why-not\n") + "\n"
		}
		if p.Text != want || (code == 0) != (p.Derived == (c.method == "why")) {
			t.Errorf("%s %s: %q; the command line printed %q (exit %d)", c.method, c.tuple, p.Text, want, code)
		}
	}
	if _, aerr := call(t, s, "why", map[string]any{"handle": loaded.Handle, "rules": rules, "tuple": "reach("}); aerr == nil || aerr.Code != "usage" {
		t.Errorf("a malformed tuple: %v", aerr)
	}
}

// TestUsageErrors pins the usage errors of the dispatcher.
func TestUsageErrors(t *testing.T) {
	s := api.NewSession("v", "c")
	for _, c := range []struct {
		method string
		params string
	}{
		{"nosuch", `{}`},
		{"check", `{"text": "x", "language": "cobol"}`},
		{"check", `{"text": "x", "language": "pact", "bogus": 1}`},
		{"check", `{"text": "x", "language": "pact", "path": "x.jql"}`},
		{"format", `{"text": "x", "language": "pact", "dialect": "v9"}`},
		{"load", `{"language": "pact"}`},
		{"load", `{"language": "markdown", "data": "{}"}`},
		{"evaluate", `{"handle": 7, "query": "x"}`},
		{"migrate", `{"text": "x", "to": "v1"}`},
		{"release", `{"handle": 1}`},
	} {
		_, aerr := s.Call(context.Background(), c.method, json.RawMessage(c.params))
		if aerr == nil || aerr.Code != "usage" || aerr.Message == "" {
			t.Errorf("%s %s: %v, want a usage error", c.method, c.params, aerr)
		}
	}
	v, aerr := s.Call(context.Background(), "version", nil)
	if want := `"` + api.VersionLine("v", "c") + `"`; aerr != nil || string(v) != want || !strings.HasPrefix(want, `"ctxql v (commit c, `) {
		t.Errorf("version: %s %v", v, aerr)
	}
	if _, aerr := s.Call(context.Background(), "load", json.RawMessage(`{"language": "pact", "data": "{"}`)); aerr == nil || aerr.Code != "data" {
		t.Errorf("load of bad data: %v", aerr)
	}
}

// TestConcurrentCalls shares one session between goroutines that evaluate
// on the same handles while others load and release data sets: every
// evaluation gives the same result (run under the race detector by
// scripts/test).
func TestConcurrentCalls(t *testing.T) {
	const ex = "../testdata/examples/"
	s := api.NewSession("v", "c")
	graph := readFile(t, ex+"graph.json")
	h, aerr := call(t, s, "load", map[string]any{"language": "datalog", "data": graph})
	if aerr != nil {
		t.Fatal(aerr)
	}
	params := map[string]any{"query": readFile(t, ex+"reach.dl"), "program": true}
	json.Unmarshal(h, &params)
	want, aerr := call(t, s, "evaluate", params)
	if aerr != nil {
		t.Fatal(aerr)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if g%4 == 3 {
					h, aerr := call(t, s, "load", map[string]any{"language": "datalog", "data": graph})
					if aerr != nil {
						errs <- aerr.Error()
						return
					}
					var l api.Loaded
					json.Unmarshal(h, &l)
					if _, aerr := call(t, s, "release", map[string]any{"handle": l.Handle}); aerr != nil {
						errs <- aerr.Error()
					}
					continue
				}
				got, aerr := call(t, s, "evaluate", params)
				if aerr != nil || !bytes.Equal(got, want) {
					errs <- fmt.Sprintf("%s %v", got, aerr)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if s.Handles() != 1 {
		t.Errorf("%d handles, want the first one", s.Handles())
	}
}

// TestCheckWithData checks a Datalog program whose relation only its
// sample data declares: with the data, as `ctxql check` reads the file
// its pragma names, it is clean; without, the relation is unknown.
// dataPath names that file.
func TestCheckWithData(t *testing.T) {
	dir := t.TempDir()
	graph := readFile(t, "../testdata/examples/graph.json")
	if err := os.WriteFile(filepath.Join(dir, "graph.json"), []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := "// data: ./graph.json\nq(x) <-- edge(x, _);\n"
	path := filepath.Join(dir, "p.dl")
	if err := os.WriteFile(path, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	want, stderr, code := runCLI(t, "", "check", "--format", "json", path)
	if code != 0 {
		t.Fatalf("check: exit %d: %s %s", code, want, stderr)
	}
	s := api.NewSession("v", "c")
	got, aerr := call(t, s, "check", map[string]any{"text": prog, "language": "datalog", "path": path, "data": graph})
	if aerr != nil {
		t.Fatal(aerr)
	}
	sameJSON(t, "check with data", got, []byte(want))
	got, aerr = call(t, s, "check", map[string]any{"text": prog, "language": "datalog", "path": path})
	if aerr != nil || !strings.Contains(string(got), `"DL001"`) {
		t.Errorf("check without data: %s %v, want DL001", got, aerr)
	}
	got, aerr = call(t, s, "report", map[string]any{"files": []map[string]any{{"path": path, "text": prog, "data": graph}}})
	if aerr != nil || !strings.Contains(string(got), `"errors":false`) {
		t.Errorf("report with data: %s %v", got, aerr)
	}
	dp, aerr := call(t, s, "dataPath", map[string]any{"text": prog, "path": path})
	if want, _ := json.Marshal(filepath.Join(dir, "graph.json")); aerr != nil || string(dp) != string(want) {
		t.Errorf("dataPath: %s %v, want %s", dp, aerr, want)
	}
	if dp, aerr := call(t, s, "dataPath", map[string]any{"text": "q(x) <-- e(x);\n", "path": path}); aerr != nil || string(dp) != "null" {
		t.Errorf("dataPath of a program without a pragma: %s %v", dp, aerr)
	}
}

// TestBadData: data that cannot be decoded fails with the code "data",
// at load where the load decodes it (PACT, Datalog, a JQL file of one
// JSON or YAML value) and at the evaluation that reads it (JQL Lines,
// whose documents are decoded as queries read them), on a handle and
// once.
func TestBadData(t *testing.T) {
	for _, c := range []struct {
		lang, name, data, query string
		atLoad                  bool
	}{
		{"jql", "bad.jsonl", "{\"id\": \"a\"}\n{bad\n", `{"from": "activities"}`, false},
		{"jql", "bad.json", `[{"id": "a"},`, `{"from": "sessions"}`, true},
		{"jql", "bad.yaml", "sessions: [\n", `{"from": "sessions"}`, true},
		{"pact", "bad.json", `{"nodes": [`, ".cb", true},
		{"datalog", "bad.json", `{"edge": [["a",`, "q(x) <-- edge(x, _)", true},
	} {
		s := api.NewSession("v", "c")
		_, aerr := call(t, s, "evaluateOnce", map[string]any{"language": c.lang, "query": c.query, "data": c.data, "name": c.name})
		if aerr == nil || aerr.Code != api.CodeData {
			t.Errorf("%s %s: evaluateOnce: %v, want code data", c.lang, c.name, aerr)
		}
		h, aerr := call(t, s, "load", map[string]any{"language": c.lang, "data": c.data, "name": c.name})
		if c.atLoad {
			if aerr == nil || aerr.Code != api.CodeData {
				t.Errorf("%s %s: load: %v, want code data", c.lang, c.name, aerr)
			}
			continue
		}
		if aerr != nil {
			t.Fatalf("%s %s: load: %v", c.lang, c.name, aerr)
		}
		var loaded struct{ Handle int }
		json.Unmarshal(h, &loaded)
		for range 2 { // the first evaluation scans the documents, the next builds the columns
			_, aerr := call(t, s, "evaluate", map[string]any{"handle": loaded.Handle, "query": c.query})
			if aerr == nil || aerr.Code != api.CodeData {
				t.Errorf("%s %s: evaluate: %v, want code data", c.lang, c.name, aerr)
			}
		}
	}
}
