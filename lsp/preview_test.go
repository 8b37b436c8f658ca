package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/syntax"
)

// bigTree writes a tree of n blocks under one container and returns its
// path.
func bigTree(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"c","nodeType":"mc","children":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"b%d","nodeType":"cb","role":"%s","ttl":%d}`, i, []string{"user", "assistant"}[i%2], i%5)
	}
	b.WriteString(`]}]}}`)
	p := filepath.Join(dir, "big.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPreviewTimeout sets a 1 ms evaluation limit: running a query over a
// large tree reports that the evaluation stopped, and the server stays
// responsive.
func TestPreviewTimeout(t *testing.T) {
	dir := t.TempDir()
	bigTree(t, dir, 200_000)
	cl := newClient(t, Options{})
	cl.initialize()
	cl.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"runTimeout": 1}}})
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	cl.open(uri, "// pact: v1\n// data: ./big.json\n.mc .cb .cb[role='user'], .cb[ttl<=1] .cb\n")
	cl.waitDiagnostics(uri, 1)
	var res previewParams
	p := Position{Line: 2}
	cl.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun, "arguments": []any{uri, Range{Start: p, End: p}}}, &res)
	if !strings.Contains(res.Error, "timed out after 1ms") || !strings.Contains(res.Error, "ctxql.runTimeout") {
		t.Fatalf("run: %+v", res)
	}
	var syms []any
	cl.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 1 {
		t.Fatalf("symbols after the timeout: %v", syms)
	}
	if code := cl.shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestPreviewFollowsLatestEdit edits a query twice in a row: the last
// preview the client gets is the newest version's, and no preview of an
// older version arrives after it.
func TestPreviewFollowsLatestEdit(t *testing.T) {
	dir := t.TempDir()
	bigTree(t, dir, 50_000)
	cl := newClient(t, Options{})
	cl.initialize()
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	cl.open(uri, "// pact: v1\n// data: ./big.json\n.cb[ttl<=0]\n")
	cl.waitDiagnostics(uri, 1)
	edit := func(v int, text string) {
		cl.send("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]any{"range": Range{Start: Position{Line: 2, Character: 9}, End: Position{Line: 2, Character: 10}}, "text": text}},
		})
	}
	edit(2, "1") // .cb[ttl<=1]: 20,000 blocks
	edit(3, "3") // .cb[ttl<=3]: 40,000 blocks
	var last previewParams
	deadline := time.Now().Add(20 * time.Second)
	for last.Count != 40_000 && time.Now().Before(deadline) {
		last = cl.waitPreview(uri)
	}
	if last.Count != 40_000 {
		t.Fatalf("never got the newest preview; last %+v", last)
	}
	time.Sleep(300 * time.Millisecond)
	cl.mu.Lock()
	for _, n := range cl.notes {
		if n.Method == MethodPreview {
			t.Errorf("a preview arrived after the newest one: %s", n.Params)
		}
	}
	cl.mu.Unlock()
	if code := cl.shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestPreviewSurvivesSettingsChange edits a query and changes the
// settings right after, before the edit's preview was pushed: the
// re-diagnosis under the new settings pushes the edited query's preview,
// over the newly chosen data.
func TestPreviewSurvivesSettingsChange(t *testing.T) {
	dir := t.TempDir()
	bigTree(t, dir, 10)
	if err := os.WriteFile(filepath.Join(dir, "small.json"), []byte(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"c","nodeType":"mc","children":[{"id":"x","nodeType":"cb","ttl":0}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, Options{})
	cl.initialize()
	cl.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"data": map[string]any{"*.pact": filepath.Join(dir, "big.json")}}}})
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	cl.open(uri, "// pact: v1\n.cb[ttl<=0]\n")
	cl.waitDiagnostics(uri, 1)
	cl.send("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": Range{Start: Position{Line: 1, Character: 9}, End: Position{Line: 1, Character: 10}}, "text": "4"}},
	})
	cl.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"data": map[string]any{"*.pact": filepath.Join(dir, "small.json")}}}})
	var last previewParams
	deadline := time.Now().Add(20 * time.Second)
	for last.Count != 1 && time.Now().Before(deadline) {
		last = cl.waitPreview(uri)
	}
	if last.Count != 1 || len(last.Results) != 1 || last.Results[0] != "x" {
		t.Fatalf("the edited query's preview over the new data: %+v", last)
	}
	if code := cl.shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestDataPathFromSettings checks the editor settings' data globs: they
// match the end of a document's path, "**" included, and a data pragma in
// the document wins.
func TestDataPathFromSettings(t *testing.T) {
	ws := newWorkspace(func() Config {
		return Config{Data: []DataGlob{{Glob: "queries/*.pact", Path: "/data/q.json"}, {Glob: "**/rules/*.dl", Path: "/data/d.json"}}}
	})
	for _, c := range []struct{ uri, text, want string }{
		{"file:///nowhere/w/queries/a.pact", ".cb\n", "/data/q.json"},
		{"file:///nowhere/w/other/a.pact", ".cb\n", ""},
		{"file:///nowhere/w/x/rules/p.dl", "p(x) <-- q(x);\n", "/data/d.json"},
		{"file:///nowhere/w/queries/b.pact", "// data: /own.json\n.cb\n", "/own.json"},
	} {
		s := &Snapshot{URI: c.uri, File: syntax.NewFile(c.uri, c.text), Workspace: ws}
		if got := ws.DataPath(s); got != c.want {
			t.Errorf("%s: data %q, want %q", c.uri, got, c.want)
		}
	}
}
