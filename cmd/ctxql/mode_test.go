package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModeNeedsTime pins PACT v2 §3.7 ("Validators MUST reject such facets
// when no @t is provided"): eval and check refuse ".block @mode=latest"
// (exit 1) and accept it with "@t0"; fmt -w leaves the invalid query as it
// is written, says so on stderr, and formats the file's other queries, so
// formatting does not make the file valid.
func TestModeNeedsTime(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "history.json"), read(t, "../../testdata/pact/history.json"), 0o644)
	const msg = "@mode needs a time prefix"
	r := ctxql(t, dir, nil, "eval", "pact", "--data", "history.json", ".block @mode=latest")
	if r.code != 1 || !strings.Contains(r.stderr, "1:8: "+msg) {
		t.Errorf("eval: exit %d, want 1 and %q\n%s%s", r.code, msg, r.stdout, r.stderr)
	}
	r = ctxql(t, dir, nil, "eval", "pact", "--data", "history.json", "@t0 .block @mode=latest")
	if r.code != 0 {
		t.Errorf("eval with @t0: exit %d\n%s", r.code, r.stderr)
	}
	q := filepath.Join(dir, "q.pact")
	write(t, q, ".block   @mode=latest\n.seg>.cb\n", 0o644)
	r = ctxql(t, dir, nil, "check", "q.pact")
	if r.code != 1 || !strings.Contains(r.stdout, "q.pact:1:10: error: "+msg) {
		t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = ctxql(t, dir, nil, "fmt", "-w", "q.pact")
	if r.code != 0 || !strings.Contains(r.stderr, "q.pact:1:10: invalid query left as it is: "+msg) {
		t.Errorf("fmt -w: exit %d, want 0 and a note\n%s", r.code, r.stderr)
	}
	if got, want := read(t, q), ".block   @mode=latest\n@t0 .seg > .cb\n"; got != want {
		t.Errorf("fmt -w wrote %q, want %q", got, want)
	}
	if r := ctxql(t, dir, nil, "check", "q.pact"); r.code != 1 {
		t.Errorf("check after fmt: exit %d, want 1 (formatting made the file valid)\n%s", r.code, r.stdout)
	}
}
