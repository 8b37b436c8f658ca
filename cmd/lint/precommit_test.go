package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestPreCommitHooks runs the real pre-commit tool with this repository's
// .pre-commit-hooks.yaml (language: golang, so pre-commit builds ctxql
// itself) on a scratch git repository: ctxql-check fails on a legacy token,
// ctxql-fix rewrites it and then passes, ctxql-check passes on the fixed
// file, ctxql-fmt formats a file and then passes, ctxql-diff fails when
// a data change alters a saved query's results and passes once committed,
// and ctxql-test fails on a failing query test and passes once it is
// fixed.
//
// The hook repository is a snapshot of the module's sources committed with
// fixed dates, so its revision only changes with the sources; it and
// pre-commit's environment (PRE_COMMIT_HOME) live in the user cache
// directory, one per checkout, so pre-commit builds the hooks once per source version and
// later runs reuse the build.
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
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	// One cache per checkout: two checkouts testing at once must not
	// replace each other's hook repository and environment.
	where := sha256.Sum256([]byte(root))
	cache = filepath.Join(cache, "ctxql-test", "pre-commit", hex.EncodeToString(where[:])[:12])
	env := append(os.Environ(), "PRE_COMMIT_HOME="+filepath.Join(cache, "home"), "GOMODCACHE="+strings.TrimSpace(string(modcache)),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM=1")
	runIn := func(dir, name string, args ...string) (string, int) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out), 0
	}
	hookRepo, rev := hookRepository(t, root, cache, runIn)

	scratch := t.TempDir()
	run := func(name string, args ...string) (string, int) { return runIn(scratch, name, args...) }
	config := filepath.Join(t.TempDir(), "pre-commit-config.yaml")
	if err := os.WriteFile(config, []byte("repos:\n- repo: "+hookRepo+"\n  rev: "+rev+"\n  hooks:\n"+
		"  - id: ctxql-check\n  - id: ctxql-fix\n  - id: ctxql-fmt\n  - id: ctxql-diff\n  - id: ctxql-test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook := func(id string, files ...string) (string, int) {
		return run("pre-commit", append([]string{"run", "--config", config, id, "--files"}, files...)...)
	}
	if out, code := run("git", "init", "-q"); code != 0 {
		t.Fatalf("git init: %s", out)
	}
	start := time.Now()
	if out, code := run("pre-commit", "install-hooks", "--config", config); code != 0 {
		t.Fatalf("pre-commit install-hooks (exit %d):\n%s", code, out)
	}
	t.Logf("hook environment ready in %v", time.Since(start).Round(time.Millisecond))

	bad := filepath.Join(scratch, "q.pact")
	if err := os.WriteFile(bad, []byte("@t0 .seg .block:summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("git", "add", "q.pact")
	out, code := hook("ctxql-check", "q.pact")
	if code == 0 || !strings.Contains(out, "PACT001") {
		t.Fatalf("ctxql-check passed a legacy token (exit %d):\n%s", code, out)
	}
	out, code = hook("ctxql-fix", "q.pact")
	b, _ := os.ReadFile(bad)
	if string(b) != "@t0 .seg .summary\n" {
		t.Fatalf("ctxql-fix left %q (exit %d):\n%s", b, code, out)
	}
	run("git", "add", "q.pact")
	if out, code := hook("ctxql-check", "q.pact"); code != 0 {
		t.Fatalf("ctxql-check fails on the fixed file (exit %d):\n%s", code, out)
	}

	// ctxql-fmt rewrites an unformatted file (pre-commit then fails the
	// hook because a file changed) and passes on the formatted file.
	messy := filepath.Join(scratch, "m.pact")
	if err := os.WriteFile(messy, []byte("@t0 .seg>.summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("git", "add", "m.pact")
	out, code = hook("ctxql-fmt", "m.pact")
	b, _ = os.ReadFile(messy)
	if code == 0 || string(b) != "@t0 .seg > .summary\n" {
		t.Fatalf("ctxql-fmt left %q (exit %d):\n%s", b, code, out)
	}
	run("git", "add", "m.pact")
	if out, code := hook("ctxql-fmt", "m.pact"); code != 0 {
		t.Fatalf("ctxql-fmt fails on the formatted file (exit %d):\n%s", code, out)
	}

	// ctxql-diff: a staged data change that alters a saved query's results
	// fails the hook, naming the query and the result; once committed it
	// passes.
	data := filepath.Join(scratch, "edges.json")
	edges := `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [["a","b"],["b","c"]]}}}`
	os.WriteFile(data, []byte(edges), 0o644)
	os.WriteFile(filepath.Join(scratch, "paths.dl"), []byte("// data: edges.json\nrelation edge(Node, Node);\npath(x, y) <-- edge(x, y);\npath(x, z) <-- path(x, y), edge(y, z);\n"), 0o644)
	run("git", "add", "-A")
	if out, code := run("git", "commit", "-qm", "queries"); code != 0 {
		t.Fatalf("git commit: %s", out)
	}
	if out, code := hook("ctxql-diff", "edges.json"); code != 0 {
		t.Fatalf("ctxql-diff fails on a clean tree (exit %d):\n%s", code, out)
	}
	os.WriteFile(data, []byte(strings.Replace(edges, `["b","c"]`, `["b","c"],["c","d"]`, 1)), 0o644)
	run("git", "add", "edges.json")
	out, code = hook("ctxql-diff", "edges.json")
	if code == 0 || !strings.Contains(out, "paths.dl:3:1: relation path: results changed: 3 added, 0 removed") || !strings.Contains(out, `+ ["a","d"]`) {
		t.Fatalf("ctxql-diff passed a changed result (exit %d):\n%s", code, out)
	}
	run("git", "commit", "-qm", "more edges")
	if out, code := hook("ctxql-diff", "edges.json"); code != 0 {
		t.Fatalf("ctxql-diff fails after the commit (exit %d):\n%s", code, out)
	}

	// ctxql-test: a query test that no longer holds fails the hook with
	// the results added; corrected, it passes.
	tests := filepath.Join(scratch, "paths.ctxqltest.yaml")
	os.WriteFile(tests, []byte("data: edges.json\nfile: paths.dl\ntests:\n  - name: paths\n    relation: path\n    count: 3\n"), 0o644)
	run("git", "add", "paths.ctxqltest.yaml")
	out, code = hook("ctxql-test", "paths.ctxqltest.yaml")
	if code == 0 || !strings.Contains(out, "count: want 3 result(s), got 6") || !strings.Contains(out, "0 passed, 1 failed") {
		t.Fatalf("ctxql-test passed a failing test (exit %d):\n%s", code, out)
	}
	os.WriteFile(tests, []byte("data: edges.json\nfile: paths.dl\ntests:\n  - name: paths\n    relation: path\n    count: 6\n"), 0o644)
	run("git", "add", "paths.ctxqltest.yaml")
	if out, code := hook("ctxql-test", "paths.ctxqltest.yaml"); code != 0 {
		t.Fatalf("ctxql-test fails on a passing test (exit %d):\n%s", code, out)
	}
}

// hookRepository returns a git repository holding a snapshot of the
// module's sources (non-test Go files, the files they embed, go.mod, go.sum
// and the hook manifest) and the revision to use, reusing the one in cache when the
// sources are the same. A new snapshot replaces the old one and the hook
// environment built from it.
func hookRepository(t *testing.T, root, cache string, runIn func(dir, name string, args ...string) (string, int)) (string, string) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || rel == "bench" || rel == "editors") {
				return filepath.SkipDir
			}
			return nil
		}
		embedded := strings.HasPrefix(rel, "play/dist/") || strings.HasPrefix(rel, "play/examples/") || strings.HasPrefix(rel, "play/module/") // files the binary embeds
		if rel == "go.mod" || rel == "go.sum" || rel == ".pre-commit-hooks.yaml" || embedded ||
			strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(h, p+"\x00")
		io.Copy(h, f)
		f.Close()
		io.WriteString(h, "\x00")
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	repo := filepath.Join(cache, "repo")
	if b, err := os.ReadFile(filepath.Join(cache, "key")); err == nil && string(b) == key {
		if out, code := runIn(repo, "git", "rev-parse", "HEAD"); code == 0 {
			t.Logf("reusing the hook repository and environment of sources %s", key)
			return repo, strings.TrimSpace(out)
		}
	}
	t.Logf("new sources %s: building the hook environment", key)
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "snapshot " + key}} {
		if out, code := runIn(repo, "git", args...); code != 0 {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	out, code := runIn(repo, "git", "rev-parse", "HEAD")
	if code != 0 {
		t.Fatal(out)
	}
	if err := os.WriteFile(filepath.Join(cache, "key"), []byte(key), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, strings.TrimSpace(out)
}
