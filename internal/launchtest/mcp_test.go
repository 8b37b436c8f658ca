package launchtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
)

// tsclient returns the directory of the MCP TypeScript-SDK client
// (mcp/testdata/tsclient) with its packages installed, as
// mcp/tsclient_test.go runs it.
func tsclient(t *testing.T) string {
	t.Helper()
	need(t, "node", "npm")
	if exec.Command("node", "-e", "process.exit(+process.versions.node.split('.')[0] >= 18 ? 0 : 1)").Run() != nil {
		unavailable(t, "the MCP SDK client needs Node.js 18 or later")
	}
	dir := filepath.Join(repoRoot(t), "mcp", "testdata", "tsclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			unavailable(t, "npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return dir
}

// mcpProject is the project the SDK client expects: testdata/acp/project,
// big/ holding a relation of 80,000 tuples, and a cache over 8 MiB.
func mcpProject(t *testing.T) string {
	t.Helper()
	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.CopyFS(proj, os.DirFS(filepath.Join(repoRoot(t), "testdata", "acp", "project"))); err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder
	pad := strings.Repeat("v", 95-12)
	for i := range 80000 {
		fmt.Fprintf(&rows, "%s%010d\n", pad, i)
	}
	write(t, filepath.Join(proj, "big", "d.dl"), "relation r(S);\n")
	write(t, filepath.Join(proj, "big", "r.facts"), rows.String())
	b, err := os.ReadFile(filepath.Join(proj, acp.DefaultCacheName))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c["padding"] = strings.Repeat("p", 9<<20)
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(proj, acp.DefaultCacheName), string(b))
	return proj
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMCPThroughLaunchers runs the MCP server's TypeScript-SDK test
// (mcp/testdata/tsclient/client.mjs) against `npx @ctxql/cli mcp`, with
// the packages installed from the release's tarballs and no registry
// reachable, and against `python -m ctxql mcp` in a virtual environment
// with the wheel installed, and against `pipx run ctxql mcp` with the
// wheel as the spec and no index. The client starts the command it is given, so
// each launcher is given as a script that execs it.
func TestMCPThroughLaunchers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the launcher scripts are POSIX shell")
	}
	dist := release(t)
	client := tsclient(t)
	proj := mcpProject(t)
	npmProj := npmProject(t, one(t, dist, "ctxql-cli-0.0.0-test.1.tgz"), one(t, dist, "ctxql-cli-"+npmPlatform()+"-0.0.0-test.1.tgz"))
	py := venv(t, dist)
	scripts := t.TempDir()
	// pipx run builds its own environment from the wheel, as `pipx run
	// ctxql mcp` does from PyPI; with no index it cannot upgrade its
	// shared pip, which it reports and goes on.
	pipxHome := filepath.Join(t.TempDir(), "pipx")
	for _, l := range []struct{ name, script string }{
		{"npx", fmt.Sprintf("cd %q && exec npx --no-install @ctxql/cli \"$@\"\n", npmProj)},
		{"python", fmt.Sprintf("exec %q -m ctxql \"$@\"\n", py)},
		{"pipx", fmt.Sprintf("PIPX_HOME=%q PIPX_BIN_DIR=%q PIP_NO_INDEX=1 exec pipx run --spec %q ctxql \"$@\" 2>/dev/null\n", pipxHome, filepath.Join(pipxHome, "bin"), one(t, dist, "ctxql-*.whl"))},
	} {
		t.Run(l.name, func(t *testing.T) {
			if l.name == "pipx" {
				need(t, "pipx")
			}
			launcher := filepath.Join(scripts, l.name)
			write(t, launcher, "#!/bin/sh\n"+l.script)
			if err := os.Chmod(launcher, 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "client.mjs", launcher, proj)
			cmd.Dir, cmd.Env = client, env("npm_config_registry="+unreachable)
			out, err := cmd.CombinedOutput()
			t.Logf("client.mjs through %s:\n%s", l.name, out)
			if err != nil {
				t.Fatalf("the TypeScript SDK client failed through %s: %v", l.name, err)
			}
			passed := 0
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "ok  ") {
					passed++
				}
			}
			if passed < 20 {
				t.Errorf("%d checks of client.mjs passed, want all of them (21)", passed)
			}
		})
	}
}
