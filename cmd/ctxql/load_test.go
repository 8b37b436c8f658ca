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

// TestEvalTimeoutEveryLanguage pins --timeout on eval pact and eval jql as
// on eval datalog: a limit that has run out before the run stops it with
// exit 1 and the deadline, a negative one is a usage error (exit 2), and
// a generous one changes nothing.
func TestEvalTimeoutEveryLanguage(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"tree.json": `{"root": {"id": "r", "nodeType": "root", "children": [{"id": "a", "nodeType": "mt"}]}}`,
		"acts.json": `{"activities": [{"id": "a1", "sessionId": "s1", "type": "planGenerated", "timestamp": "2025-01-01T00:00:00Z"}]}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs := map[string][]string{
		"pact": {"eval", "pact", "--data", "tree.json", ".mt"},
		"jql":  {"eval", "jql", "--data", "acts.json", `{"from": "activities"}`},
	}
	for name, args := range runs {
		with := func(limit string) result {
			return ctxql(t, dir, nil, append(append([]string{}, args[:2]...), append([]string{"--timeout", limit}, args[2:]...)...)...)
		}
		if r := with("1ns"); r.code != 1 || !strings.Contains(r.stderr, "context deadline exceeded") {
			t.Errorf("%s --timeout 1ns: exit %d, stderr %q; want exit 1 and the deadline", name, r.code, r.stderr)
		}
		if r := with("-1s"); r.code != 2 || !strings.Contains(r.stderr, "--timeout must not be negative") {
			t.Errorf("%s --timeout -1s: exit %d, stderr %q; want a usage error", name, r.code, r.stderr)
		}
		if r := with("1m"); r.code != 0 || !strings.Contains(r.stdout, `"a`) {
			t.Errorf("%s --timeout 1m: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
}
