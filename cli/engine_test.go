package cli

import (
	"os"
	"path/filepath"
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
// those of `ctxql eval jql --data` over the same file.
func TestEvalEngineAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("starts databases")
	}
	dir := t.TempDir()
	engines := []string{"sqlite:" + filepath.Join(dir, "jql.db"), pgtest.Start(t)}
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
	compared := 0
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
			out, errs, code := runCLI("load", "--engine", url, data)
			if code != 0 {
				if _, ierr, icode := runCLI("eval", "jql", "--data", data, `{from: "sessions"}`); icode == 2 {
					continue // data that eval refuses too
				} else {
					t.Fatalf("%s: load into %s: exit %d: %s%s (eval: %d %s)", c.Name, url, code, out, errs, icode, ierr)
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
	if compared < 100 {
		t.Fatalf("only %d runs compared", compared)
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
	} {
		if _, errs, code := runCLI(args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}
