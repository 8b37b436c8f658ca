package mcpserver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// needNode returns the directory of the TypeScript-SDK client with its
// packages installed (npm ci, from its package-lock.json). Outside CI it
// skips when node or npm is missing or the install fails; in CI it fails.
func needNode(t *testing.T) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	dir, err := filepath.Abs("testdata/tsclient")
	must(t, err)
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable("needs %s: %v", tool, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			unavailable("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return dir
}

// TestMCPTypeScriptClient runs testdata/tsclient/client.mjs, a client built
// on the TypeScript MCP SDK (@modelcontextprotocol/sdk), against the ctxql
// binary: output schemas validated by the SDK, a large result and a large
// resource refused naming the limit, rejected requests answered for their
// id (a lone surrogate, nesting over 128 levels, a message over 16 MiB),
// long paths refused at once, no answer after a cancellation, and refused
// resource paths answered with -32602, the session living on throughout.
func TestMCPTypeScriptClient(t *testing.T) {
	bin := needBinary(t)
	dir := needNode(t)
	_, proj := project(t)
	bigRelation(t, proj, 80000, 95)
	paddedCache(t, proj, 9<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", bin, proj)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("client.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v", err)
	}
}
