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
