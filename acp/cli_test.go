package acp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/cli"
	"github.com/ctxql/ctxql/internal/golden"
)

const fixture = "../testdata/acp/project/.acp.cache.json"

// TestCLIGolden runs `ctxql acp ...` in-process for each archive: the args
// section holds one argument per line (--cache FIXTURE is appended), the
// stdout, stderr and exit sections the expected results.
func TestCLIGolden(t *testing.T) {
	golden.Run(t, "../testdata/acp/cli/*.txtar", func(t *testing.T, c *golden.Case) {
		args := strings.Split(strings.TrimRight(c.Input("args"), "\n"), "\n")
		args = append(args, "--cache", fixture)
		var out, errb bytes.Buffer
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		c.Want("stdout", out.String())
		c.Want("stderr", errb.String())
		c.Want("exit", fmt.Sprintf("%d\n", code))
	})
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), code
}

// TestCLICacheDiscoveryStaleForce checks that the cache is found by walking
// up from the working directory, that a stale cache warns on stderr without
// changing the exit code, that --force skips the check, and that an
// unreadable cache exits 2.
func TestCLICacheDiscoveryStaleForce(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, acp.DefaultCacheName), b, 0o644)
	sub := filepath.Join(dir, "src", "auth")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "jwt.ts"), []byte("x"), 0o644) // newer than generated_at
	t.Chdir(sub)
	out, errs, code := run(t, "acp", "query", "callers", "verifyToken")
	if code != 0 || !strings.Contains(out, "authMiddleware") || !strings.Contains(errs, "warning: cache is stale: src/auth/jwt.ts") {
		t.Errorf("stale: code %d, stdout %q, stderr %q", code, out, errs)
	}
	_, errs, code = run(t, "acp", "query", "callers", "verifyToken", "--force")
	if code != 0 || errs != "" {
		t.Errorf("--force: code %d, stderr %q", code, errs)
	}
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{"), 0o644)
	if _, errs, code = run(t, "acp", "query", "stats", "--cache", filepath.Join(dir, "bad.json")); code != 2 {
		t.Errorf("unreadable cache: code %d, stderr %q", code, errs)
	}
	if _, _, code = run(t, "acp", "query", "stats", "--cache", filepath.Join(dir, "missing.json")); code != 2 {
		t.Errorf("missing cache: code %d", code)
	}
	empty := t.TempDir()
	t.Chdir(empty)
	if _, errs, code = run(t, "acp", "query", "stats"); code != 2 || !strings.Contains(errs, "no .acp.cache.json found") {
		t.Errorf("no cache: code %d, stderr %q", code, errs)
	}
}
