package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedQueries checks the PACT queries embedded in host files:
// diagnostics inside the string literal, a hover on the query, a quick fix
// rewriting the literal, and the calls of embedded.calls in .ctxql.yaml.
func TestEmbeddedQueries(t *testing.T) {
	dir := t.TempDir()
	c := newClient(t, Options{})
	c.initialize()
	ts := "file://" + filepath.ToSlash(dir) + "/a.ts"
	src := "const x = 1;\nconst r = ctx.select(\".block:summary\");\nother(\".block:summary\");\n"
	c.open(ts, src)
	ds := c.waitDiagnostics(ts, 1)
	if len(ds) != 1 || ds[0].Code != "PACT001" || ds[0].Range.Start != (Position{Line: 1, Character: 22}) || ds[0].Range.End != (Position{Line: 1, Character: 36}) {
		t.Fatalf("diagnostics %+v", ds)
	}
	var h *struct {
		Contents markupContent `json:"contents"`
		Range    Range         `json:"range"`
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": ts}, "position": Position{Line: 1, Character: 24}}, &h)
	if h == nil || !strings.Contains(h.Contents.Value, "Embedded PACT query") || h.Range.Start.Line != 1 {
		t.Errorf("hover %+v", h)
	}
	var none any
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": ts}, "position": Position{Line: 0, Character: 7}}, &none)
	if none != nil {
		t.Errorf("hover outside the queries: %v", none)
	}
	var actions []wireCodeAction
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": ts},
		"range": Range{Start: Position{Line: 1, Character: 24}, End: Position{Line: 1, Character: 24}}, "context": map[string]any{"only": []string{"quickfix"}}}, &actions)
	var fix *wireCodeAction
	for i, a := range actions {
		if a.IsPreferred {
			fix = &actions[i]
		}
	}
	if fix == nil {
		t.Fatalf("no quick fix: %+v", actions)
	}
	if e := fix.Edit.Changes[ts]; len(e) != 1 || e[0].NewText != `".summary"` || e[0].Range.Start.Character != 21 {
		t.Errorf("quick fix edits %+v", e)
	}

	// embedded.calls decides which calls hold queries.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, ".ctxql.yaml"), []byte("embedded:\n  calls: [other]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	py := "file://" + filepath.ToSlash(sub) + "/b.py"
	c.open(py, "r = ctx.select('.block:summary')\nother('.mt >')\n")
	ds = c.waitDiagnostics(py, 1)
	if len(ds) != 1 || ds[0].Code != "pact-syntax" || ds[0].Range.Start.Line != 1 {
		t.Errorf("embedded.calls: diagnostics %+v", ds)
	}
}
