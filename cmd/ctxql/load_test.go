package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// TestEvalTimeoutStopsLoad runs "ctxql eval datalog --timeout 50ms" over
// a data file that takes far longer than that to load: the load stops at
// the deadline and the run exits as an evaluation stopped by its time
// limit does (1, "context deadline exceeded"), long before a run without
// the limit ends; data cut short is still unreadable data (exit 2).
func TestEvalTimeoutStopsLoad(t *testing.T) {
	dir := t.TempDir()
	src := canceltest.DatalogJSON(2000000) // about 70 MB
	if err := os.WriteFile(filepath.Join(dir, "big.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rule := `q(x) <-- e(x, "none").`

	start := time.Now()
	full := ctxql(t, dir, nil, "eval", "datalog", "--data", "big.json", rule)
	whole := time.Since(start)
	if full.code != 0 || strings.TrimSpace(full.stdout) != "[]" {
		t.Fatalf("without a time limit: exit %d, stdout %.100q, stderr %.300s", full.code, full.stdout, full.stderr)
	}

	start = time.Now()
	r := ctxql(t, dir, nil, "eval", "datalog", "--timeout", "50ms", "--data", "big.json", rule)
	took := time.Since(start)
	t.Logf("whole run %v; with --timeout 50ms %v: exit %d, %s", whole, took, r.code, strings.TrimSpace(r.stderr))
	if r.code != 1 || !strings.Contains(r.stderr, "context deadline exceeded") {
		t.Errorf("--timeout 50ms: exit %d, stderr %q; want exit 1 and the deadline", r.code, r.stderr)
	}
	if took > whole/2 {
		t.Errorf("--timeout 50ms: the run took %v, the whole run %v: the load did not stop at the deadline", took, whole)
	}

	if err := os.WriteFile(filepath.Join(dir, "cut.json"), []byte(src[:len(src)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := ctxql(t, dir, nil, "eval", "datalog", "--timeout", "10s", "--data", "cut.json", rule); r.code != 2 || !strings.Contains(r.stderr, "decode data") {
		t.Errorf("data cut short: exit %d, stderr %q; want exit 2 and a decoding error", r.code, r.stderr)
	}
}
