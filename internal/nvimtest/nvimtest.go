// Package nvimtest runs Lua scripts in a headless Neovim against ctxql
// binaries built for the test: the real-client tests of the language server
// and of the Neovim plugin share it.
package nvimtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// Tmux is a Neovim running in a terminal: a tmux session of its own (its
// own server socket), typed into with send-keys and read with
// capture-pane.
type Tmux struct {
	t      testing.TB
	socket string
	target string
}

// FindTmux returns the path of tmux, skipping the test without it (failing
// when CI is set, as Find does).
func FindTmux(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed but CI is set: install tmux (apt-get install -y tmux)")
		}
		t.Skip("tmux is not installed (apt-get install -y tmux); set CI=true to make this a failure")
	}
	return p
}

// StartTmux starts argv in a detached width×height tmux session whose
// home and XDG directories are dir, with env added to the environment. The
// session is killed when the test ends.
func StartTmux(t testing.TB, dir string, width, height int, env []string, argv ...string) *Tmux {
	t.Helper()
	FindTmux(t)
	m := &Tmux{t: t, socket: filepath.Join(dir, "tmux.sock"), target: "ctxql"}
	args := []string{"-S", m.socket, "-f", "/dev/null", "new-session", "-d", "-s", m.target,
		"-x", strconv.Itoa(width), "-y", strconv.Itoa(height)}
	vars := append([]string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir,
		"XDG_STATE_HOME=" + dir, "XDG_CACHE_HOME=" + dir, "TERM=xterm-256color"}, env...)
	for _, v := range vars {
		args = append(args, "-e", v)
	}
	args = append(args, argv...)
	cmd := exec.Command("tmux", args...)
	cmd.Env = append(os.Environ(), vars...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", m.socket, "kill-server").Run() })
	return m
}

// Keys types keys (tmux send-keys key names, e.g. "Escape", "Enter", or
// literal text).
func (m *Tmux) Keys(keys ...string) {
	m.t.Helper()
	args := append([]string{"-S", m.socket, "send-keys", "-t", m.target}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		m.t.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

// Screen returns what the terminal shows; with colors it keeps the escape
// sequences of the text attributes.
func (m *Tmux) Screen(colors bool) string {
	m.t.Helper()
	args := []string{"-S", m.socket, "capture-pane", "-p", "-t", m.target}
	if colors {
		args = append(args, "-e")
	}
	out, err := exec.Command("tmux", args...).Output()
	if err != nil {
		m.t.Fatalf("tmux capture-pane: %v", err)
	}
	return string(out)
}

// WaitFor polls the screen until ok accepts it and returns that screen, or
// fails the test with the last screen after timeout.
func (m *Tmux) WaitFor(what string, timeout time.Duration, colors bool, ok func(screen string) bool) string {
	m.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := m.Screen(colors)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
