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
)

// TestLimitMessages checks that the evaluation limits an editor user meets
// are reported in editor terms: the run timeout names its setting, and the
// Datalog tuple budget (which has none) says how to evaluate past it, not a
// bare CLI flag.
func TestLimitMessages(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.json")
	if err := os.WriteFile(data, []byte(`{"relations": {"r": {"param_types": ["i32"], "tuples": [`+rows(300)+`]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dl := lang.ByID(lang.Datalog)
	d, err := dl.Load(context.Background(), nil, data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dl.Evaluate(context.Background(), d, lang.Query{Name: "x.dl", Src: "relation q(i32, i32, i32);\nq(a, b, c) <-- r(a), r(b), r(c);\n", Program: true},
		lang.Budget{MaxTuples: 1000})
	if err == nil {
		t.Fatal("no budget error")
	}
	msg := timeoutMessage(err, time.Second).Error()
	if !strings.Contains(msg, "1000 tuples") || !strings.Contains(msg, "language server's budget") || !strings.Contains(msg, "ctxql eval datalog --max-tuples") {
		t.Errorf("budget message %q", msg)
	}
	msg = timeoutMessage(fmt.Errorf("run: %w", context.DeadlineExceeded), 2*time.Second).Error()
	if !strings.Contains(msg, "2s") || !strings.Contains(msg, settingRunTimeout) {
		t.Errorf("timeout message %q", msg)
	}
	if other := fmt.Errorf("other"); timeoutMessage(other, time.Second) != other {
		t.Error("other errors are not passed through")
	}
}

func rows(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["%d"]`, i)
	}
	return b.String()
}
