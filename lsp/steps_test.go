package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// TestStepTraceBounds checks that the step counts run under the run
// timeout and stop on cancellation: over 50,000 turns a timeout that has
// passed leaves the query without counts for this version (and no step
// hints), a cancelled request leaves nothing behind, and with time enough
// the same query is explained.
func TestStepTraceBounds(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"seq","nodeType":"^seq","children":[`)
	for i := range 50000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"mt%d","nodeType":"mt","children":[{"id":"cb%d","nodeType":"cb","role":"user","ttl":%d}]}`, i, i, i%7)
	}
	b.WriteString(`]}]}}`)
	if err := os.WriteFile(filepath.Join(dir, "big.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	text := "// data: ./big.json\n^seq .mt > .cb[ttl>3][role='user']\n"
	start := strings.Index(text, "^seq")
	snapshot := func(timeout time.Duration) *Snapshot {
		ws := newWorkspace(func() Config { return Config{RunTimeout: timeout} })
		return &Snapshot{URI: uri, File: syntax.NewFile(uri, text), Lang: pactLanguage{}, Workspace: ws, Edited: -1}
	}

	s := snapshot(time.Nanosecond)
	if _, err := s.Workspace.loadData(context.Background(), lang.ByID(lang.PACT), filepath.Join(dir, "big.json")); err != nil { // loading is not evaluation: load first
		t.Fatal(err)
	}
	if tr := pactTrace(context.Background(), s, start); tr != nil {
		t.Fatalf("explained within a nanosecond: %+v", tr)
	}
	runs := s.Workspace.evals.runs.Load()
	pactTrace(context.Background(), s, start)
	if s.Workspace.evals.runs.Load() != runs {
		t.Error("a trace stopped by the run timeout is computed again for the same query and data")
	}
	for _, h := range (pactLanguage{}).InlayHints(context.Background(), s, syntax.Sp(0, len(text))) {
		if strings.HasSuffix(h.Label, "→") {
			t.Errorf("a step count over the run timeout: %+v", h)
		}
	}

	s = snapshot(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tr := pactTrace(ctx, s, start); tr != nil {
		t.Fatalf("explained under a cancelled request: %+v", tr)
	}
	runs = s.Workspace.evals.runs.Load()
	tr := pactTrace(context.Background(), s, start)
	if s.Workspace.evals.runs.Load() != runs+1 {
		t.Error("a trace cut short by cancellation was kept")
	}
	if tr == nil || len(tr.Steps) != 5 || tr.Steps[1].Count != 50000 || tr.Steps[4].Count != 21428 || tr.Emptied != -1 {
		t.Fatalf("trace with time enough: %+v", tr)
	}
}
