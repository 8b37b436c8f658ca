package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPlayServesUntilInterrupted runs `ctxql play PATH`, loads the printed
// address and interrupts it; a PATH outside the project is a usage error.
func TestPlayServesUntilInterrupted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q.pact"), []byte(".cb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := Main(context.Background(), []string{"play", "--dir", dir, "../q.pact"}, Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}); code != ExitUsage {
		t.Errorf("PATH outside the project: exit %d (%s), want %d", code, stderr.String(), ExitUsage)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"play", "--dir", dir, "q.pact"}, Env{Stdout: pw, Stderr: &bytes.Buffer{}})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	m := regexp.MustCompile(`^ctxql play: serving (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})\n$`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("the first line %q (%v) is not the address", line, err)
	}
	url := m[1]
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Errorf("GET %s: %s %v", url, resp.Status, resp.Header)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Errorf("interrupted: exit %d, want %d", code, ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ctxql play did not stop when interrupted")
	}
}

// TestPlayExport runs `ctxql play --export DIR --wasm PKGDIR`: the site is
// written and the module files copied; a build without a module and
// without --wasm, an unwritable directory, a PATH and the served
// playground's flags are usage errors.
func TestPlayExport(t *testing.T) {
	pkg := t.TempDir()
	for _, name := range []string{"browser.js", "core.js", "wasm_exec.js", "ctxql.wasm"} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte("module file "+name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := filepath.Join(t.TempDir(), "a", "site")
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"play", "--export", site, "--wasm", pkg}, Env{Stdout: &stdout, Stderr: &stderr}); code != ExitOK {
		t.Fatalf("export: exit %d (%s)", code, stderr.String())
	}
	if want := "ctxql play: exported the playground to " + site + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	for _, name := range []string{"index.html", "info.json", "assets/app.js", "assets/app.css", "examples/examples.json"} {
		if _, err := os.Stat(filepath.Join(site, filepath.FromSlash(name))); err != nil {
			t.Errorf("the site lacks %s: %v", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(site, "ctxql", "ctxql.wasm")); err != nil || string(b) != "module file ctxql.wasm" {
		t.Errorf("ctxql/ctxql.wasm: %q, %v", b, err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(pkg, "core.js")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"play", "--export", filepath.Join(t.TempDir(), "s")},                     // this build carries no module
		{"play", "--export", filepath.Join(t.TempDir(), "s"), "--wasm", pkg},      // a module file missing
		{"play", "--export", filepath.Join(t.TempDir(), "s"), "--wasm", pkg, "q"}, // PATH
		{"play", "--export", filepath.Join(t.TempDir(), "s"), "--addr", "127.0.0.1:0"},
		{"play", "--wasm", pkg},
	} {
		stderr.Reset()
		if code := Main(context.Background(), args, Env{Stdout: io.Discard, Stderr: &stderr}); code != ExitUsage {
			t.Errorf("%q: exit %d (%s), want %d", args, code, stderr.String(), ExitUsage)
		}
	}
	// An unwritable directory, with a complete module.
	if err := os.WriteFile(filepath.Join(pkg, "core.js"), []byte("module file core.js"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := Main(context.Background(), []string{"play", "--export", filepath.Join(file, "s"), "--wasm", pkg}, Env{Stdout: io.Discard, Stderr: &stderr}); code != ExitUsage ||
		!strings.Contains(stderr.String(), "export directory") {
		t.Errorf("unwritable directory: exit %d (%s), want %d", code, stderr.String(), ExitUsage)
	}
}
