// Package nvimtest runs Lua scripts in a headless Neovim against ctxql
// binaries built for the test: the real-client tests of the language server
// and of the Neovim plugin share it.
package nvimtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Find returns the path of nvim. Without it the test is skipped, or fails
// when the CI environment variable is set (CI installs Neovim).
func Find(t testing.TB) string {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nvim is not installed but CI is set: install neovim (apt-get install -y neovim)")
		}
		t.Skip("nvim is not installed (apt-get install -y neovim); set CI=true to make this a failure")
	}
	return nvim
}

// Build builds the package pkg (an import path) into dir/name and returns
// the binary's path.
func Build(t testing.TB, dir, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Run runs script with nvim in a clean headless session whose home and XDG
// directories are dir, with env added to the environment and CTXQL_OUT
// naming the file the script writes its result to, and returns that
// result.
func Run(t testing.TB, nvim, dir, script string, env []string, timeout time.Duration) []byte {
	t.Helper()
	lua := filepath.Join(dir, "test.lua")
	if err := os.WriteFile(lua, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+lua)
	cmd.Env = append(append(os.Environ(), env...), "CTXQL_OUT="+out,
		"HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v", err)
	}
	return raw
}
