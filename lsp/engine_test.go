//go:build !wasm

// The SQL engines do not build for WebAssembly.

package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/lang"
)

// TestRunEngineData runs a JQL query file and a Datalog program with
// ctxql.run, and diagnoses a program naming a relation the data lacks,
// in a project whose .ctxql.yaml names its data: once the data files, once
// SQLite databases filled from them (the layout of `ctxql load`). The
// results and the diagnostics are the same.
func TestRunEngineData(t *testing.T) {
	if testing.Short() {
		t.Skip("uses a database")
	}
	ctx := context.Background()
	jqlData := `{"sessions": [{"id": "s-1"}], "activities": [
  {"id": "a1", "sessionId": "s-1", "type": "commandRun", "artifacts": [{"exitCode": 1}], "createTime": "2024-01-01T00:00:00Z"},
  {"id": "a2", "sessionId": "s-1", "type": "agentMessaged", "createTime": "2024-01-02T00:00:00Z"},
  {"id": "a3", "sessionId": "s-2", "type": "commandRun", "createTime": "2024-01-03T00:00:00Z"}]}`
	dlData := `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [["a", "b"], ["b", "c"]]},
  "weight": {"param_types": ["Node", "i64"], "tuples": [["a", "10"], ["b", "9"]]}}}`
	docs := map[string]string{
		"q.jql":  "{from: \"activities\", where: {type: \"commandRun\"}, select: [\"id\", \"artifactCount\"]}\n",
		"p.dl":   "reach(x, y) <-- edge(x, y);\nreach(x, z) <-- reach(x, y), edge(y, z);\nheavy(x, n) <-- weight(x, w), if w > 9, agg n = count() in reach(x, _);\n",
		"bad.dl": "q(x) <-- nowhere(x);\n",
	}
	project := func(engines bool) (map[string]any, []wireDiagnostic) {
		dir := t.TempDir()
		for name, text := range map[string]string{"jql.json": jqlData, "dl.json": dlData} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		jqlPath, dlPath := "jql.json", "dl.json"
		if engines {
			jqlPath, dlPath = "sqlite:jql.db", "sqlite:dl.db"
			for _, l := range []*lang.Language{lang.ByID(lang.JQL), lang.ByID(lang.Datalog)} {
				src, dst := filepath.Join(dir, "jql.json"), filepath.Join(dir, "jql.db")
				if l.ID == lang.Datalog {
					src, dst = filepath.Join(dir, "dl.json"), filepath.Join(dir, "dl.db")
				}
				ts, err := l.LoadTables(ctx, nil, src)
				if err != nil {
					t.Fatal(err)
				}
				db, err := engine.Open(ctx, "sqlite:"+dst)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Load(ctx, ts.Tables, func(emit func(string, []any) error) error { return ts.Rows(ctx, emit) }); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
		}
		cfg := "data:\n  \"*.jql\": " + jqlPath + "\n  \"*.dl\": " + dlPath + "\n"
		if err := os.WriteFile(filepath.Join(dir, ".ctxql.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		c := newClient(t, Options{OpenEngine: func(ctx context.Context, url string) (lang.Engine, error) {
			db, err := engine.Open(ctx, url)
			if err != nil {
				return nil, err
			}
			return db, nil
		}})
		c.initialize()
		out := map[string]any{}
		for _, name := range []string{"q.jql", "p.dl"} {
			uri := "file://" + filepath.ToSlash(dir) + "/" + name
			c.open(uri, docs[name])
			var res map[string]any
			c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun, "arguments": []any{uri, Range{}}}, &res)
			delete(res, "elapsed_ms")
			delete(res, "uri")
			out[name] = res
		}
		// The program's third rule: a numeric condition and a count.
		uri := "file://" + filepath.ToSlash(dir) + "/p.dl"
		var res map[string]any
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun, "arguments": []any{uri,
			map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 2, "character": 0}}}}, &res)
		delete(res, "elapsed_ms")
		delete(res, "uri")
		out["heavy"] = res
		uri = "file://" + filepath.ToSlash(dir) + "/bad.dl"
		c.open(uri, docs["bad.dl"])
		ds := c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return len(ds) > 0 })
		return out, ds
	}
	wantRes, wantDiags := project(false)
	gotRes, gotDiags := project(true)
	w, _ := json.Marshal(wantRes)
	g, _ := json.Marshal(gotRes)
	if string(w) != string(g) {
		t.Fatalf("ctxql.run over the data files:\n%s\nover SQLite:\n%s", w, g)
	}
	wd, _ := json.Marshal(wantDiags)
	gd, _ := json.Marshal(gotDiags)
	if string(wd) != string(gd) || len(wantDiags) == 0 {
		t.Fatalf("diagnostics over the data files:\n%s\nover SQLite:\n%s", wd, gd)
	}
	t.Logf("ctxql.run: %s\ndiagnostics: %s", g, gd)
}
