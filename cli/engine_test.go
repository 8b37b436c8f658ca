package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/internal/pgtest"
)

// TestCompileGolden runs testdata/compile/*.txtar: the query of section
// "query" compiled to each dialect by `ctxql compile jql --to D`; the
// output sections hold stdout, stderr and the exit status.
func TestCompileGolden(t *testing.T) {
	golden.Run(t, "testdata/compile/*.txtar", func(t *testing.T, c *golden.Case) {
		q := c.Input("query")
		for _, d := range []string{"sqlite", "postgres", "duckdb"} {
			out, errs, code := runCLI("compile", "jql", "--to", d, q)
			c.Want(d, out+errs+"exit "+strconv.Itoa(code)+"\n")
		}
	})
}

// TestCompileUsage checks the usage errors of `ctxql compile` (exit 2).
func TestCompileUsage(t *testing.T) {
	for _, args := range [][]string{
		{"compile", "jql", `{from: "sessions"}`},
		{"compile", "jql", "--to", "oracle", `{from: "sessions"}`},
		{"compile", "jql", "--to", "sqlite"},
		{"compile"},
	} {
		if _, errs, code := runCLI(args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestEvalEngineAgrees loads the data of every JQL evaluation golden
// (testdata/jql/eval) into SQLite and a temporary PostgreSQL with
// `ctxql load`, and runs each golden's query, and a few more, with
// `ctxql eval jql --engine`: stdout, stderr and the exit status must be
// those of `ctxql eval jql --data` over the same file. Two more SQLite
// databases are loaded with mappings (--mapping): one with flattened
// columns besides the whole node table, one flat (`nodes: mapped`, every
// field the queries test in columns).
func TestEvalEngineAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("starts databases")
	}
	dir := t.TempDir()
	mapping := filepath.Join(dir, "mapping.yaml")
	if err := os.WriteFile(mapping, []byte("activities:\n  columns:\n    type: type\n    artifacts.exitCode: exit_code\n    createTime: created\n"+
		"sessions:\n  columns:\n    state: state\n    title: title\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The fourth is flat (nodes: mapped): every field the queries test
	// in columns, the node table holding only their several values.
	mappedNodes := filepath.Join(dir, "mapped-nodes.yaml")
	if err := os.WriteFile(mappedNodes, []byte(`activities:
  nodes: mapped
  columns:
    id: f_id
    sessionId: session_id
    type: type
    message: message
    reason: reason
    summary: summary
    plan: plan
    plan.steps.index: step_index
    createTime: created
    artifactCount: artifact_count
    artifacts: artifacts
    artifacts.changeSet: change_set
    artifacts.command: command
    artifacts.exitCode: exit_code
    artifacts.nope: nope
sessions:
  nodes: mapped
  columns:
    state: state
    title: title
    outputs.type: output_type
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The third database is loaded with flattened columns, the fourth
	// flat.
	engines := []string{"sqlite:" + filepath.Join(dir, "jql.db"), pgtest.Start(t), "sqlite:" + filepath.Join(dir, "mapped.db"), "sqlite:" + filepath.Join(dir, "mapped-nodes.db")}
	loadArgs := map[string][]string{engines[2]: {"--mapping", mapping}, engines[3]: {"--mapping", mappedNodes}}
	extra := []string{
		`{from: "activities", select: ["-message"], order: "asc", limit: 3}`,
		`{from: "activities", select: ["nosuch.path", "summary"]}`,
		`{from: "sessions", where: {state: {neq: "completed"}}}`,
		`{from: "activities", where: {"artifacts.command": {contains: "NPM"}}, startAfter: "a2"}`,
		`{from: "activities", startAfter: "nosuch"}`,
		`{from: "activities", where: {artifactCount: 2}}`,
		`{from: "activities", limit: 2000}`,
	}
	paths, err := filepath.Glob("../testdata/jql/eval/*.txtar")
	if err != nil || len(paths) < 10 {
		t.Fatalf("%d eval goldens: %v", len(paths), err)
	}
	compared, flatNodes := 0, 0
	for _, p := range paths {
		c := golden.Load(t, p)
		if !c.Has("data") {
			continue
		}
		data := filepath.Join(dir, c.Name+".json")
		if err := os.WriteFile(data, []byte(c.Input("data")), 0o644); err != nil {
			t.Fatal(err)
		}
		queries := append([]string{c.Input("query")}, extra...)
		for _, url := range engines {
			out, errs, code := runCLI(append(append([]string{"load", "--engine", url}, loadArgs[url]...), data)...)
			if code != 0 {
				if _, ierr, icode := runCLI("eval", "jql", "--data", data, `{from: "sessions"}`); icode == 2 {
					continue // data that eval refuses too
				} else {
					t.Fatalf("%s: load into %s: exit %d: %s%s (eval: %d %s)", c.Name, url, code, out, errs, icode, ierr)
				}
			}
			if url == engines[3] {
				// The several values the flat database's node table holds.
				for _, line := range strings.Split(out, "\n") {
					if f := strings.Fields(line); len(f) == 2 && strings.HasSuffix(f[0], "_nodes") {
						n, _ := strconv.Atoi(f[1])
						flatNodes += n
					}
				}
			}
			for _, q := range queries {
				wout, werr, wcode := runCLI("eval", "jql", "--data", data, "--max-bytes", "400", q)
				gout, gerr, gcode := runCLI("eval", "jql", "--engine", url, "--max-bytes", "400", q)
				if wout != gout || strings.ReplaceAll(werr, data, "") != gerr || wcode != gcode {
					t.Errorf("%s, %s, query %s:\n--data: exit %d\n%s%s\n--engine: exit %d\n%s%s", c.Name, url, q, wcode, wout, werr, gcode, gout, gerr)
				}
				compared++
			}
		}
	}
	if compared < 200 || flatNodes == 0 {
		t.Fatalf("only %d runs compared, %d several values in the flat database's node tables", compared, flatNodes)
	}
	t.Logf("%d runs of eval jql --engine printed what eval jql --data printed", compared)
}

// TestEngineUsage checks the usage errors of load and eval --engine.
func TestEngineUsage(t *testing.T) {
	data := writeJQLData(t)
	for _, args := range [][]string{
		{"load", data},
		{"load", "--engine", "duckdb:" + filepath.Join(t.TempDir(), "x.duckdb"), data},
		{"load", "--engine", "mysql://x", data},
		{"load", "--engine", "sqlite:" + filepath.Join(t.TempDir(), "x.db"), filepath.Join(t.TempDir(), "missing.json")},
		{"eval", "jql", "--engine", "sqlite:x.db", "--data", data, `{from: "sessions"}`},
		{"eval", "jql", "--engine", "sqlite:x.db", "--explain", `{from: "sessions"}`},
		{"eval", "jql", "--engine", "duckdb:x.duckdb", `{from: "sessions"}`},
		{"load", "--engine", "sqlite:" + filepath.Join(t.TempDir(), "x.db"), "--mapping", filepath.Join(t.TempDir(), "missing.yaml"), data},
		{"load", "--engine", "sqlite:" + filepath.Join(t.TempDir(), "x.db"), "--lang", "datalog", "--mapping", data, data},
		{"compile", "jql", "--to", "sqlite", "--mapping", data, `{from: "sessions"}`},
		{"eval", "datalog", "--engine", "sqlite:x.db", "--max-tuples", "10", `q(x) <-- e(x, _)`},
		{"eval", "datalog", "--engine", "sqlite:x.db", "--relations", "q", "--rules", data},
	} {
		if _, errs, code := runCLI(args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestEvalDatalogEngineAgrees loads the data of every Datalog evaluation
// golden (testdata/datalog/eval) into SQLite and a temporary PostgreSQL
// with `ctxql load --lang datalog` and runs its rule or program with
// `ctxql eval datalog --engine`: stdout, stderr and the exit status must
// be those of `ctxql eval datalog --data`, or the query is refused (exit
// 1) with a message naming what is not compiled.
func TestEvalDatalogEngineAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("starts databases")
	}
	dir := t.TempDir()
	engines := []string{"sqlite:" + filepath.Join(dir, "dl.db"), pgtest.Start(t)}
	paths, err := filepath.Glob("../testdata/datalog/eval/*.txtar")
	if err != nil || len(paths) < 20 {
		t.Fatalf("%d eval goldens: %v", len(paths), err)
	}
	type dlCase struct{ name, data, program, rule string }
	var cases []dlCase
	for _, p := range paths {
		c := golden.Load(t, p)
		if !c.Has("data.json") {
			continue
		}
		dc := dlCase{name: c.Name, data: c.Input("data.json")}
		switch {
		case c.Has("program"):
			dc.program = c.Input("program")
		case c.Has("rule"):
			dc.rule = strings.TrimSpace(c.Input("rule"))
		default:
			continue
		}
		cases = append(cases, dc)
	}
	// Cases of the same data one after the other: each data set is loaded
	// once.
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].data < cases[j].data })
	same, refused := 0, 0
	loaded := map[string]string{}
	for _, c := range cases {
		data := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(data, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{c.rule}
		if c.program != "" {
			rules := filepath.Join(dir, c.name+".dl")
			if err := os.WriteFile(rules, []byte(c.program), 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"--rules", rules}
		}
		wout, werr, wcode := runCLI(append([]string{"eval", "datalog", "--data", data}, args...)...)
		for _, url := range engines {
			if loaded[url] != c.data {
				if out, errs, code := runCLI("load", "--lang", "datalog", "--engine", url, data); code != 0 {
					t.Fatalf("%s: load into %s: exit %d: %s%s", c.name, url, code, out, errs)
				}
				loaded[url] = c.data
			}
			gout, gerr, gcode := runCLI(append([]string{"eval", "datalog", "--engine", url}, args...)...)
			switch {
			case gcode == 1 && strings.Contains(gerr, "cannot be compiled to"):
				refused++
			case wout != gout || werr != gerr || wcode != gcode:
				t.Errorf("%s, %s:\n--data: exit %d\n%s%s\n--engine: exit %d\n%s%s", c.name, url, wcode, wout, werr, gcode, gout, gerr)
			default:
				same++
			}
		}
	}
	if same < 30 {
		t.Fatalf("only %d runs agreed (%d refused)", same, refused)
	}
	t.Logf("%d runs of eval datalog --engine printed what eval datalog --data printed; %d refused by name", same, refused)
}

// TestTestEngineData runs `ctxql test` over a project whose .ctxql.yaml
// names the data of its JQL and Datalog query files, once as the data
// files and once as SQLite databases `ctxql load` filled from them: the
// cases (passing and failing ones, their messages) report the same.
func TestTestEngineData(t *testing.T) {
	if testing.Short() {
		t.Skip("uses a database")
	}
	project := map[string]string{
		"data/jql.json": `{"sessions": [{"id": "s-1", "state": "done"}, {"id": "s-2", "state": "open"}], "activities": [
  {"id": "a1", "sessionId": "s-1", "type": "commandRun", "artifacts": [{"exitCode": 1}, {"exitCode": 0}], "createTime": "2024-01-01T00:00:00Z"},
  {"id": "a2", "sessionId": "s-1", "type": "agentMessaged", "createTime": "2024-01-02T00:00:00Z"},
  {"id": "a3", "sessionId": "s-2", "type": "commandRun", "artifacts": [{"exitCode": 2}], "createTime": "2024-01-03T00:00:00Z"}]}`,
		"data/dl.json": `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [["a", "b"], ["b", "c"], ["c", "d"]]},
  "weight": {"param_types": ["Node", "i64"], "tuples": [["a", "10"], ["b", "9"], ["c", "0.50"]]}}}`,
		"q/acts.jql": "{from: \"activities\", where: {type: \"commandRun\"}, order: \"asc\"}\n\n{from: \"activities\", where: {\"artifacts.exitCode\": {gt: 0}}}\n",
		"q/acts.ctxqltest.yaml": `file: acts.jql
tests:
  - name: commands
    line: 1
    count: 2
    includes: [{id: a1}]
  - name: failed commands
    line: 3
    count: 2
    includes: [{id: a3}, {id: a1}]
  - name: a wrong expectation
    line: 3
    count: 5
`,
		"q/reach.dl": `reach(x, y) <-- edge(x, y);
reach(x, z) <-- reach(x, y), edge(y, z);
heavy(x) <-- weight(x, w), if w > 9;
fanout(x, n) <-- edge(x, _), agg n = count() in reach(x, _);
`,
		"q/reach.ctxqltest.yaml": `file: reach.dl
tests:
  - name: closure
    relation: reach
    count: 6
  - name: numeric condition
    relation: heavy
    want: [[a]]
  - name: counts
    relation: fanout
    want: [[a, "3"], [b, "2"], [c, "1"]]
  - name: a wrong expectation
    relation: heavy
    want: [[c]]
`,
	}
	run := func(files bool) (string, int) {
		dir := t.TempDir()
		for name, text := range project {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		jqlData, dlData := "data/jql.json", "data/dl.json"
		if !files {
			jqlData, dlData = "sqlite:data/jql.db", "sqlite:data/dl.db"
			for _, args := range [][]string{
				{"load", "--engine", "sqlite:" + filepath.Join(dir, "data/jql.db"), filepath.Join(dir, "data/jql.json")},
				{"load", "--engine", "sqlite:" + filepath.Join(dir, "data/dl.db"), "--lang", "datalog", filepath.Join(dir, "data/dl.json")},
			} {
				if out, errs, code := runCLI(args...); code != 0 {
					t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
				}
			}
		}
		cfg := "data:\n  \"q/*.jql\": " + jqlData + "\n  \"q/*.dl\": " + dlData + "\n"
		if err := os.WriteFile(filepath.Join(dir, ".ctxql.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := runCLI("test", "-v", filepath.Join(dir, "q"))
		out = strings.ReplaceAll(out+errs, dir, "DIR")
		return regexp.MustCompile(`\(\d+(\.\d+)?[µnm]?s\)|\d+(\.\d+)?[µnm]?s\b`).ReplaceAllString(out, "T"), code
	}
	want, wcode := run(true)
	got, gcode := run(false)
	if want != got || wcode != gcode {
		t.Fatalf("ctxql test over the data files: exit %d\n%s\nover SQLite: exit %d\n%s", wcode, want, gcode, got)
	}
	if wcode != 1 || strings.Count(want, "--- FAIL") != 2 || strings.Count(want, "--- PASS") != 5 {
		t.Fatalf("exit %d, want 1 with two failing cases:\n%s", wcode, want)
	}
	t.Logf("ctxql test printed the same over the data files and SQLite:\n%s", got)
}
