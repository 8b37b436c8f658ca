package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/acp"
)

func load(t *testing.T) *acp.Index {
	t.Helper()
	ix, err := acp.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestProgrammaticAPI covers the programmatic-access functions of the
// specification: symbol lookup, callers, can-modify and domain files.
func TestProgrammaticAPI(t *testing.T) {
	ix := load(t)
	syms, err := ix.Symbol("validateSession")
	if err != nil || syms[0].QualifiedName != "src/auth/session.ts:SessionService.validateSession" {
		t.Errorf("Symbol(validateSession) = %v, %v", syms, err)
	}
	if _, err := ix.Symbol("nope"); !acp.IsNotFound(err) {
		t.Errorf("Symbol(nope) error = %v, want not found", err)
	}
	callers, _ := ix.Callers("src/auth/jwt.ts:verifyToken")
	if diff := cmp.Diff([]string{"src/auth/session.ts:SessionService.validateSession", "src/api/middleware.ts:authMiddleware"}, callers); diff != "" {
		t.Errorf("Callers (-want +got):\n%s", diff)
	}
	if l, err := ix.Callers("src/auth/session.ts:SessionService.validateSession"); err != nil || len(l) != 0 {
		t.Errorf("Callers of an uncalled symbol = %v, %v; want empty", l, err)
	}
	if diff := cmp.Diff([]string{"src/auth/session.ts", "src/auth/jwt.ts"}, ix.DomainFiles("authentication")); diff != "" {
		t.Errorf("DomainFiles (-want +got):\n%s", diff)
	}
	if l := ix.DomainFiles("nope"); l == nil || len(l) != 0 {
		t.Errorf("DomainFiles(nope) = %#v, want empty", l)
	}
	if got := ix.SymbolsInFile("src/auth/jwt.ts"); !cmp.Equal(got, []string{"src/auth/jwt.ts:verifyToken"}) {
		t.Errorf("SymbolsInFile = %v", got)
	}
}

// TestCanModify pins the three readings of "can modify": the programmatic
// check refuses only frozen files; the CLI's can_modify is false whenever
// approval is needed; the MCP can_modify.allowed is false only for frozen.
func TestCanModify(t *testing.T) {
	ix := load(t)
	for _, c := range []struct {
		file                  string
		api, cli, mcp, approv bool
		reason                string
	}{
		{"src/config/production.ts", false, false, false, false, "Deployed configuration"},
		{"src/auth/session.ts", true, false, true, true, ""},
		{"src/api/middleware.ts", true, true, true, false, ""},
		{"src/unlisted.ts", true, true, true, false, ""},
	} {
		ok, reason := ix.CanModify(c.file)
		rep := ix.CheckConstraints(c.file)
		tool := rep.Tool()
		if ok != c.api || reason != c.reason || rep.CanModify != c.cli || tool.CanModify.Allowed != c.mcp || rep.ApprovalNeeded != c.approv {
			t.Errorf("%s: api %v %q, cli %v, mcp %v, approval %v; want %v %q, %v, %v, %v",
				c.file, ok, reason, rep.CanModify, tool.CanModify.Allowed, rep.ApprovalNeeded, c.api, c.reason, c.cli, c.mcp, c.approv)
		}
	}
}

// TestStaleness checks both staleness signals: a listed source file newer
// than generated_at, and git_commit differing from HEAD (read from .git).
func TestStaleness(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "a.ts"), []byte("x"), 0o644)
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(src, "a.ts"), old, old)
	cache := `{"version":"1.0.0","generated_at":"2024-12-18T15:30:00Z","project":{"name":"p","git_commit":"%s"},
"files":{"src/a.ts":{"path":"src/a.ts"}},"symbols":{},"graph":{"forward":{},"reverse":{}},"domains":{},"constraints":{"by_file":{},"by_lock_level":{}}}`
	write := func(commit string) *acp.Index {
		p := filepath.Join(dir, acp.DefaultCacheName)
		os.WriteFile(p, []byte(strings.Replace(cache, "%s", commit, 1)), 0o644)
		ix, err := acp.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	if w := write("").Staleness(); len(w) != 0 {
		t.Errorf("fresh cache: warnings %v", w)
	}
	os.Chtimes(filepath.Join(src, "a.ts"), time.Now(), time.Now())
	if w := write("").Staleness(); len(w) != 1 || !strings.Contains(w[0], "src/a.ts was modified after") {
		t.Errorf("modified file: warnings %v", w)
	}
	os.Chtimes(filepath.Join(src, "a.ts"), old, old)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "src")
	git("commit", "-qm", "c")
	head := git("rev-parse", "HEAD")
	if got := acp.GitHead(dir); got != head {
		t.Errorf("GitHead = %q, want %q", got, head)
	}
	if w := write(head).Staleness(); len(w) != 0 {
		t.Errorf("matching commit: warnings %v", w)
	}
	if w := write("0123456789abcdef0123456789abcdef01234567").Staleness(); len(w) != 1 || !strings.Contains(w[0], "HEAD is") {
		t.Errorf("other commit: warnings %v", w)
	}
}
