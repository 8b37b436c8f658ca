package platformtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wineEnv is a Wine installation ready to run Windows programs: the
// loader, and the environment that names its prefix.
type wineEnv struct {
	loader string
	env    []string
}

// findWine returns the Wine loader: "wine" (Debian's wine package), else
// the 64-bit loader Debian's wine64 package installs off PATH.
func findWine() (string, error) {
	if p, err := exec.LookPath("wine"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/lib/wine/wine64", "/usr/lib64/wine/wine64"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath("wine64")
}

// unavailable skips the test with the reason, or fails it in CI.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: failing)", msg)
	}
	t.Skipf("SKIPPING the Windows smoke test: %s", msg)
}

// startWine prepares a Wine prefix (kept in the user's cache directory, as
// making one takes a while) and a wineserver that stays up for the test,
// so that each program starts in about a second.
func startWine(t *testing.T) *wineEnv {
	t.Helper()
	loader, err := findWine()
	if err != nil {
		unavailable(t, "Wine is not installed (Debian: apt-get install wine wine64)")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	prefix := filepath.Join(cache, "ctxql-wine")
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	w := &wineEnv{loader: loader, env: append(os.Environ(),
		"WINEPREFIX="+prefix,
		"WINEDEBUG=-all",
		"WINEDLLOVERRIDES=mscoree,mshtml=", // no Mono or Gecko installer
		"DISPLAY=",
	)}
	if server := wineserver(loader); server != "" {
		cmd := exec.Command(server, "-p")
		cmd.Env = w.env
		if err := cmd.Run(); err == nil {
			t.Cleanup(func() {
				kill := exec.Command(server, "-k")
				kill.Env = w.env
				kill.Run()
			})
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, loader, "cmd", "/c", "echo", "ready")
	cmd.Env = w.env
	out, errOut, err := runToFiles(t, cmd)
	if err != nil || !strings.Contains(out, "ready") {
		unavailable(t, "Wine cannot start (%s): %v\n%s%s", loader, err, out, errOut)
	}
	t.Logf("Wine started in %s", time.Since(start).Round(time.Millisecond))
	ensureProcessPrng(t, filepath.Join(prefix, "drive_c", "windows", "system32"))
	return w
}

// prngAsm is a DLL exporting ProcessPrng, the random source Go programs
// take from bcryptprimitives.dll since Go 1.22 (Windows 10 has it), built on
// advapi32's RtlGenRandom (SystemFunction036), which Wine has always had.
// Wine before 9.0 has no bcryptprimitives.dll, and Go programs stop at
// start without it.
const prngAsm = `	.text
	.globl	DllMain
DllMain:
	movl	$1, %eax
	ret
	.globl	ProcessPrng
ProcessPrng:
	subq	$40, %rsp
	call	*__imp_SystemFunction036(%rip)
	movzbl	%al, %eax
	addq	$40, %rsp
	ret
`

// ensureProcessPrng puts a bcryptprimitives.dll into the prefix's
// system32 when Wine has none, assembled and linked with the MinGW-w64
// binutils (Debian: binutils-mingw-w64-x86-64).
func ensureProcessPrng(t *testing.T, system32 string) {
	t.Helper()
	dll := filepath.Join(system32, "bcryptprimitives.dll")
	if _, err := os.Stat(dll); err == nil {
		return
	}
	for _, tool := range []string{"x86_64-w64-mingw32-as", "x86_64-w64-mingw32-dlltool", "x86_64-w64-mingw32-ld"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable(t, "this Wine has no bcryptprimitives.dll, which Go programs need, and %s is missing to make one (Debian: binutils-mingw-w64-x86-64)", tool)
		}
	}
	dir := t.TempDir()
	files := map[string]string{
		"prng.s":               prngAsm,
		"advapi32.def":         "LIBRARY advapi32.dll\nEXPORTS\nSystemFunction036\n",
		"bcryptprimitives.def": "LIBRARY bcryptprimitives.dll\nEXPORTS\nProcessPrng\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"x86_64-w64-mingw32-as", "-o", "prng.o", "prng.s"},
		{"x86_64-w64-mingw32-dlltool", "-d", "advapi32.def", "-l", "libadvapi32.a"},
		{"x86_64-w64-mingw32-ld", "--dll", "-e", "DllMain", "-o", "bcryptprimitives.dll", "prng.o", "bcryptprimitives.def", "libadvapi32.a"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "bcryptprimitives.dll"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dll, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// wineserver finds the wineserver that goes with loader.
func wineserver(loader string) string {
	for _, p := range []string{filepath.Join(filepath.Dir(loader), "wineserver"), "/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("wineserver")
	return p
}

// command is an exec.Cmd running a Windows program under Wine in dir.
func (w *wineEnv) command(ctx context.Context, dir, exe string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.loader, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = w.env
	return cmd
}

// run runs a Windows program to its end and returns its stdout, stderr and
// exit code.
func (w *wineEnv) run(t *testing.T, dir, exe string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, errOut, err := runToFiles(t, w.command(ctx, dir, exe, args...))
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wine %s %v: %v", filepath.Base(exe), args, err)
	}
	return out, errOut, code
}

// runToFiles runs cmd with its output in files rather than pipes: the
// services Wine starts with the first program inherit its output, and a
// pipe they hold open would never reach its end.
func runToFiles(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, err error) {
	t.Helper()
	dir := t.TempDir()
	var files [2]*os.File
	for i := range files {
		f, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files[i] = f
	}
	cmd.Stdout, cmd.Stderr = files[0], files[1]
	err = cmd.Run()
	out, _ := os.ReadFile(files[0].Name())
	errOut, _ := os.ReadFile(files[1].Name())
	return string(out), string(errOut), err
}

// buildWindows builds a Windows amd64 binary of pkg (the same way
// scripts/release does) into dir; with test set, the package's test binary.
func buildWindows(t *testing.T, dir, pkg, name string, test bool) string {
	t.Helper()
	exe := filepath.Join(dir, name)
	args := []string{"build", "-trimpath", "-o", exe, pkg}
	if test {
		args = []string{"test", "-c", "-trimpath", "-o", exe, pkg}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s for windows: %v\n%s", pkg, err, out)
	}
	return exe
}

// driveURI is the file: URI VS Code gives the Windows path Wine shows for
// the Unix path p (drive Z: is the Unix root): file:///z%3A/tmp/....
func driveURI(p string) string {
	return "file:///z%3A" + (&url.URL{Path: filepath.ToSlash(p)}).EscapedPath()
}

// TestWindowsBinaryUnderWine runs the Windows build of ctxql under Wine as a
// user on Windows would: eval, check, fmt -w on a file with CRLF line ends,
// and the language server over stdio with drive-letter URIs.
func TestWindowsBinaryUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Windows smoke test starts Wine")
	}
	w := startWine(t)
	bin := t.TempDir()
	exe := buildWindows(t, bin, "./cmd/ctxql", "ctxql.exe", false)
	root := repoRoot(t)
	dir := t.TempDir()
	fixture, err := os.ReadFile(filepath.Join(root, "testdata", "pact", "spec-v1-fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data.json", string(fixture))

	t.Run("version", func(t *testing.T) {
		out, errOut, code := w.run(t, dir, exe, "version")
		if code != 0 || !strings.Contains(out, "windows/amd64") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})

	t.Run("eval", func(t *testing.T) {
		out, errOut, code := w.run(t, dir, exe, "eval", "pact", "--dialect", "v1", "--data", "data.json", "@t0 ^seq .mt:depth(1-2) .cb[ttl<=1]")
		if code != 0 || strings.TrimSpace(out) != `["cb:a1"]` {
			t.Errorf("exit %d, stdout %q, stderr %q; want [\"cb:a1\"]", code, out, errOut)
		}
	})

	t.Run("check", func(t *testing.T) {
		write("ok.pact", "// pact: v1\n@t0 ^seq .mt .cb\n")
		write("bad.pact", "// pact: v1\n.mt >> .x\n")
		if out, errOut, code := w.run(t, dir, exe, "check", "ok.pact"); code != 0 {
			t.Errorf("check ok.pact: exit %d, %s%s", code, out, errOut)
		}
		out, errOut, code := w.run(t, dir, exe, "check", "--format", "json", "bad.pact")
		if code != 1 || !strings.Contains(out, `"bad.pact"`) {
			t.Errorf("check bad.pact: exit %d, stdout %q, stderr %q; want exit 1 with a finding in bad.pact", code, out, errOut)
		}
	})

	t.Run("fmt-w-crlf", func(t *testing.T) {
		sub := t.TempDir()
		src := "// pact: v1\r\n.mt   .cb\r\n\r\n\r\n.cb[ttl<=1]\r\n"
		p := filepath.Join(sub, "q.pact")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// The temporary file of a killed run: no process has the id
		// 999999, and the write removes it.
		if err := os.WriteFile(filepath.Join(sub, ".q.pact.ctxql-999999-1.tmp"), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, errOut, code := w.run(t, sub, exe, "fmt", "-w", "q.pact"); code != 0 {
			t.Fatalf("fmt -w: exit %d, %s%s", code, out, errOut)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := "// pact: v1\r\n.mt .cb\r\n\r\n.cb[ttl<=1]\r\n"; string(got) != want {
			t.Errorf("fmt -w wrote %q, want %q", got, want)
		}
		if ents, _ := os.ReadDir(sub); len(ents) != 1 {
			t.Errorf("files left next to q.pact: %v", ents)
		}
		if out, errOut, code := w.run(t, sub, exe, "fmt", "--check", "q.pact"); code != 0 {
			t.Errorf("fmt --check after fmt -w: exit %d, %s%s", code, out, errOut)
		}
	})

	t.Run("fmt-w-read-only", func(t *testing.T) {
		sub := t.TempDir()
		p := filepath.Join(sub, "q.pact")
		const src = ".mt   .cb\r\n"
		if err := os.WriteFile(p, []byte(src), 0o444); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := w.run(t, sub, exe, "fmt", "-w", "q.pact")
		if got, _ := os.ReadFile(p); code != 2 || string(got) != src || !strings.Contains(errOut, "read-only") {
			t.Errorf("fmt -w on a read-only file: exit %d, stderr %q, file %q; want exit 2, a read-only error and the file unchanged", code, errOut, got)
		}
	})

	// The unit tests of the packages with a Windows implementation. Wine 8
	// cannot remove a test's temporary directory the way Go 1.26 does, nor
	// follow symbolic links: those tests use internal/testdir, which says
	// so instead of failing.
	t.Run("windows-implementations", func(t *testing.T) {
		for pkg, run := range map[string]string{
			"./internal/process": "", "./internal/fileuri": "", "./internal/atomicfile": "", "./internal/files": "",
			"./acp": "Lock",
		} {
			test := buildWindows(t, bin, pkg, filepath.Base(pkg)+".test.exe", true)
			args := []string{"-test.v"}
			if run != "" {
				args = append(args, "-test.run", run)
			}
			out, errOut, code := w.run(t, dir, test, args...)
			if code != 0 || !strings.Contains(out, "--- PASS") {
				t.Errorf("%s tests under Wine: exit %d\n%s%s", pkg, code, out, errOut)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "--- SKIP") || strings.Contains(l, "do not work here") {
					t.Logf("%s: %s", pkg, strings.TrimSpace(l))
				}
			}
		}
	})

	t.Run("lsp", func(t *testing.T) {
		write("q.pact", "// pact: v1\n// data: ./data.json\n@t0 ^seq .mt:depth(1-2) .cb[ttl<=1]\n")
		cmd, c, stderr := w.startLSP(t, dir, exe)
		uri := driveURI(filepath.Join(dir, "q.pact"))
		doc := map[string]any{"uri": uri}
		c.call(1, "initialize", map[string]any{"processId": nil, "rootUri": driveURI(dir), "capabilities": map[string]any{}})
		c.notify("initialized", map[string]any{})
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "pact", "version": 1,
			"text": "// pact: v1\n// data: ./data.json\n@t0 ^seq .mt:depth(1-2) .cb[ttl<=1]\n"}})
		hover := c.call(2, "textDocument/hover", map[string]any{"textDocument": doc, "position": map[string]any{"line": 2, "character": 25}})
		var h struct {
			Contents struct{ Value string } `json:"contents"`
		}
		if err := json.Unmarshal(hover, &h); err != nil || h.Contents.Value == "" {
			t.Errorf("hover over .cb: %s (%v)", hover, err)
		}
		// The result count needs the data file named relative to the
		// document: the server must turn the drive-letter URI into the
		// Windows path.
		hints := c.call(3, "textDocument/inlayHint", map[string]any{"textDocument": doc,
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 3, "character": 0}}})
		if !bytes.Contains(hints, []byte(`→ 1"`)) {
			t.Errorf("inlay hints %s: want the result count → 1 of the query on data.json", hints)
		}
		c.call(4, "shutdown", nil)
		c.notify("exit", nil)
		c.in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("ctxql lsp: %v\n%s", err, stderr.String())
		}
	})

	// Wine delivers SIGINT to a console program as Ctrl-C.
	t.Run("ctrl-c", func(t *testing.T) {
		cmd, c, stderr := w.startLSP(t, dir, exe)
		defer c.in.Close()
		c.call(1, "initialize", map[string]any{"processId": nil, "rootUri": driveURI(dir), "capabilities": map[string]any{}})
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted (SIGINT)") {
			t.Errorf("after Ctrl-C: %v, stderr %q; want exit 130 and \"interrupted (SIGINT)\"", err, stderr.String())
		}
	})
}

// startLSP starts "ctxql lsp" under Wine in dir and returns the process, a
// client on its stdin and stdout, and what it writes to stderr. The test's
// end kills a server still running.
func (w *wineEnv) startLSP(t *testing.T, dir, exe string) (*exec.Cmd, *lspClient, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := w.command(ctx, dir, exe, "lsp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &lspClient{t: t, in: stdin, out: bufio.NewReader(stdout)}, stderr
}

// lspClient speaks JSON-RPC with Content-Length framing over a server's
// stdin and stdout.
type lspClient struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
}

func (c *lspClient) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *lspClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"method": method, "params": params})
}

// call sends a request and returns its result, skipping the notifications
// and server requests that come before the response.
func (c *lspClient) call(id int, method string, params any) json.RawMessage {
	c.t.Helper()
	c.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		b, err := c.read()
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Result json.RawMessage  `json:"result"`
			Error  json.RawMessage  `json:"error"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			c.t.Fatalf("%s: %v in %s", method, err, b)
		}
		if m.ID == nil || m.Method != "" || string(*m.ID) != strconv.Itoa(id) {
			continue
		}
		if len(m.Error) > 0 && string(m.Error) != "null" {
			c.t.Fatalf("%s: error %s", method, m.Error)
		}
		return m.Result
	}
}

// read reads one framed message.
func (c *lspClient) read() ([]byte, error) {
	n := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(c.out, b)
	return b, err
}
