package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/files"
)

// TestOptionsFiles reads sample data through the reader of Options.Files:
// data inside its directory is evaluated, data outside is refused.
func TestOptionsFiles(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	data := `{"root": {"id": "r", "nodeType": "root", "children": [{"id": "a", "nodeType": "mt"}]}}`
	for _, dir := range []string{root, outside} {
		if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := files.Confined(root, 1<<20, "the playground's limit")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := newClient(t, Options{Files: r})
	c.initialize()
	run := func(doc string) previewParams {
		uri := "file://" + filepath.ToSlash(filepath.Join(root, "q.pact"))
		c.open(uri, doc)
		c.waitDiagnostics(uri, 1)
		var res previewParams
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
			"arguments": []any{uri, Range{Start: Position{Line: 1}, End: Position{Line: 1}}}}, &res)
		return res
	}
	if res := run("// data: ./d.json\n.mt\n"); res.Error != "" || res.Count != 1 {
		t.Errorf("data inside the reader's directory: %+v", res)
	}
	if res := run("// data: " + filepath.Join(outside, "d.json") + "\n.mt\n"); res.Error == "" || res.Count != 0 {
		t.Errorf("data outside the reader's directory was read: %+v", res)
	}
}

// TestOptionsRaiseTimeout names the way Options.RaiseTimeout gives in the
// message of an evaluation that ran out of time, and the setting without
// it.
func TestOptionsRaiseTimeout(t *testing.T) {
	w := newWorkspace(func() Config { return Config{RunTimeout: time.Second} })
	s := &Snapshot{Workspace: w}
	if msg := s.timeoutMessage(context.DeadlineExceeded).Error(); !strings.Contains(msg, settingRunTimeout) {
		t.Errorf("default: %q", msg)
	}
	w.raiseTimeout = "the --timeout flag"
	msg := s.timeoutMessage(context.DeadlineExceeded).Error()
	if !strings.Contains(msg, "the --timeout flag") || strings.Contains(msg, settingRunTimeout) {
		t.Errorf("with RaiseTimeout: %q", msg)
	}
}

// openWithData opens q.pact holding doc beside the sample data of two mt
// nodes, one with a cb child.
func openWithData(t *testing.T, c *testClient, doc string) string {
	t.Helper()
	dir := t.TempDir()
	data := `{"root": {"id": "r", "nodeType": "root", "children": [
		{"id": "a", "nodeType": "mt", "children": [{"id": "c", "nodeType": "cb"}]}, {"id": "b", "nodeType": "mt"}]}}`
	if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "q.pact"))
	c.open(uri, doc)
	c.waitDiagnostics(uri, 1)
	return uri
}

// TestRunLimit returns at most the limit of ctxql.run's third argument,
// with the count of every result, and refuses a malformed one.
func TestRunLimit(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	uri := openWithData(t, c, "// data: ./d.json\n.mt\n")
	at := Range{Start: Position{Line: 1}, End: Position{Line: 1}}
	var res previewParams
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun, "arguments": []any{uri, at, map[string]any{"limit": 1}}}, &res)
	if res.Error != "" || res.Count != 2 || len(res.Results) != 1 {
		t.Errorf("limit 1: %+v", res)
	}
	res = previewParams{}
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun, "arguments": []any{uri, at}}, &res)
	if res.Error != "" || res.Count != 2 || len(res.Results) != 2 {
		t.Errorf("no limit: %+v", res)
	}
	res = previewParams{}
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun, "arguments": []any{uri, at, "seven"}}, &res)
	if !strings.Contains(res.Error, "limit") {
		t.Errorf("malformed limit: %+v", res)
	}
}

// TestExplainCommand answers ctxql.explain with each step of the query,
// its range and count, and the step that left nothing.
func TestExplainCommand(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	uri := openWithData(t, c, "// data: ./d.json\n.mt .cb\n.mt .nothing\n")
	explain := func(line int) explainResult {
		var res explainResult
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandExplain,
			"arguments": []any{uri, Range{Start: Position{Line: line}, End: Position{Line: line}}}}, &res)
		return res
	}
	res := explain(1)
	if res.Error != "" || res.Noun != "candidates" || res.Emptied != -1 || len(res.Steps) != 2 {
		t.Fatalf(".mt .cb: %+v", res)
	}
	if st := res.Steps[1]; st.Text != ".cb" || st.Count != 1 || st.Range.Start != (Position{Line: 1, Character: 4}) || st.Range.End != (Position{Line: 1, Character: 7}) {
		t.Errorf("step .cb: %+v", st)
	}
	res = explain(2)
	if res.Error != "" || res.Emptied != 1 || res.Steps[1].Count != 0 {
		t.Errorf(".mt .nothing: %+v", res)
	}
	if res := explain(0); res.Error == "" {
		t.Errorf("no query on line 0: %+v", res)
	}
}

// TestWholeTextChangePreview pushes the preview of the query a whole-text
// change edited, as a range edit does.
func TestWholeTextChangePreview(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	uri := openWithData(t, c, "// data: ./d.json\n.mt\n")
	c.send("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "// data: ./d.json\n.mt .cb\n"}},
	})
	if pre := c.waitPreview(uri); pre.Count != 1 || pre.Range.Start.Line != 1 {
		t.Errorf("preview after a whole-text change: %+v", pre)
	}
}

// TestChangedEnd finds where a whole-text change ends in the new text.
func TestChangedEnd(t *testing.T) {
	for _, tc := range []struct {
		old, new string
		want     int
	}{
		{"abc", "abc", -1},
		{".mt\n", ".mt .cb\n", 7},
		{".mt .cb\n", ".mt\n", 3},
		{"", "x", 1},
		{"aXa", "aYa", 2},
		{"aa", "aaa", 3},
	} {
		if got := changedEnd(tc.old, tc.new); got != tc.want {
			t.Errorf("changedEnd(%q, %q) = %d, want %d", tc.old, tc.new, got, tc.want)
		}
	}
}

// TestHoverCountBetweenSteps shows the sample data's count when hovering a
// place of a PACT query that describes nothing itself (the space between
// two steps).
func TestHoverCountBetweenSteps(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	uri := openWithData(t, c, "// data: ./d.json\n.mt  .cb\n")
	var h struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	err := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": 1, "character": 4}}, &h)
	if err != nil || !strings.Contains(h.Contents.Value, "**1** result(s)") {
		t.Errorf("hover between two steps: %q, %v; want the count of 1 result", h.Contents.Value, err)
	}
}
