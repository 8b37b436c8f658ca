package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreCommitHooks uses the real pre-commit tool with this repository as
// its hook repository (try-repo builds it with language: golang) on a
// scratch git repository: ctxql-check fails on a legacy token, ctxql-fix
// rewrites it and then passes, ctxql-check passes on the fixed file, and
// ctxql-fmt formats a file and then passes.
func TestPreCommitHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hooks with pre-commit")
	}
	if _, err := exec.LookPath("pre-commit"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pre-commit is not installed (scripts/test installs it)")
		}
		t.Skip("pre-commit is not installed")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	env := append(os.Environ(), "PRE_COMMIT_HOME="+t.TempDir(), "GOMODCACHE="+strings.TrimSpace(string(modcache)),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	run := func(name string, args ...string) (string, int) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = scratch, env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out), 0
	}
	if out, code := run("git", "init", "-q"); code != 0 {
		t.Fatalf("git init: %s", out)
	}
	bad := filepath.Join(scratch, "q.pact")
	if err := os.WriteFile(bad, []byte("@t0 .seg .block:summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("git", "add", "q.pact")
	out, code := run("pre-commit", "try-repo", root, "ctxql-check", "--files", "q.pact")
	if code == 0 || !strings.Contains(out, "PACT001") {
		t.Fatalf("ctxql-check passed a legacy token (exit %d):\n%s", code, out)
	}
	out, code = run("pre-commit", "try-repo", root, "ctxql-fix", "--files", "q.pact")
	b, _ := os.ReadFile(bad)
	if string(b) != "@t0 .seg .summary\n" {
		t.Fatalf("ctxql-fix left %q (exit %d):\n%s", b, code, out)
	}
	run("git", "add", "q.pact")
	if out, code := run("pre-commit", "try-repo", root, "ctxql-check", "--files", "q.pact"); code != 0 {
		t.Fatalf("ctxql-check fails on the fixed file (exit %d):\n%s", code, out)
	}

	// ctxql-fmt rewrites an unformatted file (pre-commit then fails the
	// hook because a file changed) and passes on the formatted file.
	messy := filepath.Join(scratch, "m.pact")
	if err := os.WriteFile(messy, []byte("@t0 .seg>.summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("git", "add", "m.pact")
	out, code = run("pre-commit", "try-repo", root, "ctxql-fmt", "--files", "m.pact")
	b, _ = os.ReadFile(messy)
	if code == 0 || string(b) != "@t0 .seg > .summary\n" {
		t.Fatalf("ctxql-fmt left %q (exit %d):\n%s", b, code, out)
	}
	run("git", "add", "m.pact")
	if out, code := run("pre-commit", "try-repo", root, "ctxql-fmt", "--files", "m.pact"); code != 0 {
		t.Fatalf("ctxql-fmt fails on the formatted file (exit %d):\n%s", code, out)
	}
}
