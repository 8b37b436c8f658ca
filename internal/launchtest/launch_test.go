package launchtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// version is the release the tests build; the wheel carries it as
// 0.0.0+test.1, the npm packages as 0.0.0-test.1.
const version = "v0.0.0-test.1"

// unreachable is a registry address nothing listens on: installs must
// not need ctxql's packages from a registry.
const unreachable = "http://127.0.0.1:9/"

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  error
	releaseOut  []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if releaseDir != "" {
		os.RemoveAll(releaseDir)
	}
	os.Exit(code)
}

// repoRoot is the module's root directory, two levels up.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// unavailable skips the test outside CI and fails it in CI.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable(t, "needs %s: %v", tool, err)
		}
	}
}

// release runs scripts/release for this platform once per test binary and
// returns the directory of what it built.
func release(t *testing.T) string {
	t.Helper()
	need(t, "bash", "git", "tar", "sha256sum", "python3", "node", "npm")
	if testing.Short() {
		t.Skip("builds the release packages (not in -short mode)")
	}
	root := repoRoot(t)
	releaseOnce.Do(func() {
		releaseDir, releaseErr = os.MkdirTemp("", "ctxql-launchtest")
		if releaseErr != nil {
			return
		}
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "release"), "--no-wasm", "--targets", runtime.GOOS+"/"+runtime.GOARCH, version)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "DIST="+releaseDir)
		releaseOut, releaseErr = cmd.CombinedOutput()
	})
	if releaseErr != nil {
		t.Fatalf("scripts/release: %v\n%s", releaseErr, releaseOut)
	}
	return releaseDir
}

// one returns the single file of dir matching pattern.
func one(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(m) != 1 {
		t.Fatalf("%s in %s: %v %v", pattern, dir, m, err)
	}
	return m[0]
}

// run runs a command and returns its standard output, standard error and
// exit status.
func run(t *testing.T, dir string, env []string, stdin string, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s %v: %v", name, args, err)
		}
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

// venv creates a virtual environment and installs the release's wheel into
// it with pip and no index; it returns the environment's python.
func venv(t *testing.T, dist string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command("python3", "-m", "venv", dir).CombinedOutput(); err != nil {
		unavailable(t, "python3 -m venv (Debian: apt-get install python3-venv): %v\n%s", err, out)
	}
	py := filepath.Join(dir, "bin", "python")
	if runtime.GOOS == "windows" {
		py = filepath.Join(dir, "Scripts", "python.exe")
	}
	wheel := one(t, dist, "ctxql-*.whl")
	if out, err := exec.Command(py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q", wheel).CombinedOutput(); err != nil {
		t.Fatalf("pip install %s: %v\n%s", filepath.Base(wheel), err, out)
	}
	return py
}

// env is the test's environment without what would point the packages at
// another binary or a registry.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CTXQL_BINARY=") || strings.HasPrefix(strings.ToLower(kv), "npm_config_registry=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// TestPythonPackage installs the wheel into a fresh virtual environment
// and runs python/tests against it: each language's check, format,
// migrate, load and evaluate, why and why-not and one-shot evaluation
// compared with the binary's own output, the error's fields, threads
// sharing the worker, a forked child, the worker dying with its Python
// process (SIGKILL and exit), and python -m ctxql and the console script
// (version, exit codes, signals).
func TestPythonPackage(t *testing.T) {
	dist := release(t)
	py := venv(t, dist)
	tests := filepath.Join(repoRoot(t), "python", "tests")
	stdout, stderr, code := run(t, t.TempDir(), env(), "", py, "-m", "unittest", "discover", "-v", "-s", tests, "-t", tests)
	t.Logf("python -m unittest:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("the Python package's tests failed (exit %d)", code)
	}
	m := regexp.MustCompile(`(?m)^Ran (\d+) tests`).FindStringSubmatch(stderr)
	var n int
	if m != nil {
		fmt.Sscan(m[1], &n)
	}
	if n < 20 || !strings.Contains(stderr, "\nOK") {
		t.Errorf("want at least 20 tests run and OK, got %q", m)
	}
	if runtime.GOOS != "windows" && !regexp.MustCompile(`test_the_worker_dies_with_its_process .*\.\.\. ok`).MatchString(stderr) {
		t.Error("the worker-death test did not run and pass")
	}
}

// TestPythonRunCases runs cases through python/tests/runcases.py and the
// same operations as raw requests to the wheel's own `ctxql worker`: the
// Python package's typed results, turned back into JSON, lose nothing.
func TestPythonRunCases(t *testing.T) {
	dist := release(t)
	py := venv(t, dist)
	dir := t.TempDir()
	ctx, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "acp", "project", "data", "context.json"))
	if err != nil {
		t.Fatal(err)
	}
	type kase struct {
		ID       string         `json:"id"`
		Op       string         `json:"op"`
		Language string         `json:"language,omitempty"`
		Text     string         `json:"text"`
		Options  map[string]any `json:"options,omitempty"`
		Data     string         `json:"data,omitempty"`
		DataName string         `json:"dataName,omitempty"`
	}
	cases := []kase{
		{ID: "check-pact", Op: "check", Language: "pact", Text: ".block[\n.cb:summary", Options: map[string]any{"dialect": "v1"}},
		{ID: "check-jql", Op: "check", Language: "jql", Text: `{"from": "nowhere"}`},
		{ID: "check-datalog", Op: "check", Language: "datalog", Text: "q(x) <-- r(x), !s(x)."},
		{ID: "format-datalog", Op: "format", Language: "datalog", Text: "q(x,y)<--e(x,y)."},
		{ID: "format-invalid", Op: "format", Language: "pact", Text: ".block["},
		{ID: "migrate", Op: "migrate", Text: "// pact: v1\n.cb:summary\n.cb, .mt\n", Options: map[string]any{"to": "v2"}},
		{ID: "eval-pact", Op: "evaluate", Language: "pact", Text: ".block", Data: string(ctx), DataName: "context.json"},
		{ID: "eval-explain", Op: "evaluate", Language: "pact", Text: ".block[kind=zz]", Options: map[string]any{"explain": true}, Data: string(ctx)},
		{ID: "eval-jql", Op: "evaluate", Language: "jql", Text: `{"from": "activities", "where": {"type": "b"}}`, Data: `[{"id": "1", "type": "a"}, {"id": "2", "type": "b"}]`, DataName: "a.json"},
		{ID: "eval-program", Op: "evaluate", Language: "datalog", Text: "p(x, y) <-- e(x, y).\np(x, z) <-- e(x, y), p(y, z).", Options: map[string]any{"program": true}, Data: `{"relations": {"e": {"param_types": ["S", "S"], "tuples": [["a", "b"], ["b", "c"]]}}}`},
		{ID: "eval-error", Op: "evaluate", Language: "datalog", Text: "q(x <-- e(x).", Data: `{"relations": {}}`},
	}
	b, err := json.Marshal(map[string]any{"cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	in, out := filepath.Join(dir, "cases.json"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(repoRoot(t), "python", "tests", "runcases.py")
	if stdout, stderr, code := run(t, dir, env(), "", py, runner, in, out); code != 0 {
		t.Fatalf("runcases.py: exit %d\n%s%s", code, stdout, stderr)
	}
	var got struct {
		Outputs map[string]any `json:"outputs"`
	}
	b, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}

	// The same operations as raw requests to the worker, one at a time.
	bins, _ := filepath.Glob(filepath.Join(filepath.Dir(py), "..", "lib", "python3*", "site-packages", "ctxql", "bin", "ctxql"))
	if len(bins) != 1 {
		t.Fatalf("the wheel's binary in the venv: %v", bins)
	}
	w := exec.Command(bins[0], "worker")
	w.Env = env()
	win, err := w.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	wout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		win.Close()
		w.Wait()
	}()
	lines := bufio.NewReader(wout)
	id := 0
	call := func(method string, params map[string]any) map[string]any {
		t.Helper()
		id++
		b, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := win.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatalf("ctxql worker: %v", err)
		}
		var a map[string]any
		if err := json.Unmarshal(line, &a); err != nil || a["id"] != float64(id) {
			t.Fatalf("worker answer %q to request %d: %v", line, id, err)
		}
		delete(a, "id")
		return a
	}
	for _, c := range cases {
		params := map[string]any{"text": c.Text}
		if c.Language != "" {
			params["language"] = c.Language
		}
		for k, v := range c.Options {
			params[k] = v
		}
		var want map[string]any
		if c.Op == "evaluate" {
			load := map[string]any{"language": c.Language, "data": c.Data}
			if c.DataName != "" {
				load["name"] = c.DataName
			}
			h, ok := call("load", load)["result"].(map[string]any)
			if !ok {
				t.Fatalf("%s: load gave no handle", c.ID)
			}
			params["handle"], params["query"] = h["handle"], c.Text
			delete(params, "text")
			delete(params, "language")
			want = call("evaluate", params)
			call("release", map[string]any{"handle": h["handle"]})
		} else {
			want = call(c.Op, params)
		}
		g, _ := json.Marshal(got.Outputs[c.ID])
		wb, _ := json.Marshal(want)
		if !bytes.Equal(canon(t, g), canon(t, wb)) {
			t.Errorf("%s: Python gives\n%s\nthe worker\n%s", c.ID, g, wb)
		}
	}
	if len(got.Outputs) != len(cases) {
		t.Errorf("runcases.py wrote %d outputs for %d cases", len(got.Outputs), len(cases))
	}
}

// canon re-encodes JSON with sorted keys.
func canon(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// npmProject installs the given tarballs of the release into an empty
// project with the registry unreachable and returns the project.
func npmProject(t *testing.T, tarballs ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "project", "private": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"install", "--no-audit", "--no-fund", "--fetch-retries", "0", "--registry", unreachable}, tarballs...)
	if stdout, stderr, code := run(t, dir, env(), "", "npm", args...); code != 0 {
		t.Fatalf("npm %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return dir
}

// npmPlatform is the name npm gives this platform: linux-x64, win32-arm64….
func npmPlatform() string {
	os, arch := runtime.GOOS, runtime.GOARCH
	if os == "windows" {
		os = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return os + "-" + arch
}

// TestNPMLauncher installs @ctxql/cli and this platform's package from the
// release's tarballs into an empty project, with no registry reachable
// (npm skips the other platforms' optional packages it cannot fetch), and
// runs the command by path and through npx: the binary's version, its exit
// codes, SIGTERM and SIGINT (no terminal) passed on to the binary and its
// exit status passed back;
// without the platform package the launcher says which one to install.
func TestNPMLauncher(t *testing.T) {
	dist := release(t)
	cli := one(t, dist, "ctxql-cli-0.0.0-test.1.tgz")
	plat := one(t, dist, "ctxql-cli-"+npmPlatform()+"-0.0.0-test.1.tgz")
	proj := npmProject(t, cli, plat)
	launcher := filepath.Join(proj, "node_modules", ".bin", "ctxql")
	e := env("npm_config_registry=" + unreachable)

	want := "ctxql " + version + " "
	for _, argv := range [][]string{{launcher}, {"npx", "--no-install", "@ctxql/cli"}} {
		stdout, stderr, code := run(t, proj, e, "", argv[0], append(argv[1:], "version")...)
		if code != 0 || !strings.HasPrefix(stdout, want) {
			t.Errorf("%v version: exit %d, %q %s; want %q…", argv, code, stdout, stderr, want)
		}
	}
	if _, stderr, code := run(t, proj, e, ".block[", launcher, "check", "--stdin-filename", "q.pact", "-"); code != 1 {
		t.Errorf("check of an invalid query: exit %d, want 1 (%s)", code, stderr)
	}
	if _, stderr, code := run(t, proj, e, "", launcher, "eval", "jql", "--no-such-flag"); code != 2 || !strings.Contains(stderr, "unknown flag") {
		t.Errorf("an unknown flag: exit %d %q, want 2", code, stderr)
	}

	if runtime.GOOS == "linux" {
		bin := filepath.Join(proj, "node_modules", "@ctxql", "cli-"+npmPlatform(), "bin", "ctxql")
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			if signal.Ignored(sig) {
				// A process started with a signal ignored passes that on to
				// the binary run directly (not to the one the launcher
				// runs), which then cannot be compared.
				t.Logf("%v is ignored in this test process (started in the background?): not checked", sig)
				continue
			}
			direct, _ := terminated(t, sig, bin)
			through, child := terminated(t, sig, launcher)
			if through != direct || direct != 128+int(sig) {
				t.Errorf("%v to the launcher: exit %d; to the binary itself: %d (want %d)", sig, through, direct, 128+int(sig))
			}
			if child == 0 {
				t.Error("the launcher started no ctxql process")
			} else if alive(child) {
				t.Errorf("ctxql (pid %d) outlived its launcher", child)
			}
		}
	}

	bare := npmProject(t, cli)
	_, stderr, code := run(t, bare, e, "", filepath.Join(bare, "node_modules", ".bin", "ctxql"), "version")
	if code != 2 || !strings.Contains(stderr, "@ctxql/cli-"+npmPlatform()) {
		t.Errorf("without the platform package: exit %d %q; want 2 naming @ctxql/cli-%s", code, stderr, npmPlatform())
	}
}

// terminated starts `argv lsp`, waits for its answer to initialize (the
// server is up, its signal handlers set), sends it sig and returns the
// exit status and the pid of the ctxql process (the command's own, or its
// child's).
func terminated(t *testing.T, sig syscall.Signal, argv ...string) (code, ctxql int) {
	t.Helper()
	cmd := exec.Command(argv[0], append(argv[1:], "lsp")...)
	cmd.Env = env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	answered := make(chan bool, 1)
	go func() {
		b := make([]byte, 1)
		_, err := stdout.Read(b)
		answered <- err == nil
		io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(init), init)
	select {
	case ok := <-answered:
		if !ok {
			t.Fatalf("%v lsp wrote nothing", argv)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v lsp did not answer initialize", argv)
	}
	ctxql = findCtxql(cmd.Process.Pid)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		if p, err := os.FindProcess(ctxql); ctxql != 0 && err == nil {
			p.Kill() // a child left behind holds the output open
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		t.Fatalf("%v did not exit on %v", argv, sig)
	}
	// The child, if any, has exited too: give the system a moment to reap it.
	for end := time.Now().Add(5 * time.Second); ctxql != 0 && alive(ctxql) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	return cmd.ProcessState.ExitCode(), ctxql
}

// findCtxql returns pid if it is a ctxql process, else the pid of its
// first child that is, else 0.
func findCtxql(pid int) int {
	if comm(pid) == "ctxql" {
		return pid
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	for _, f := range strings.Fields(string(b)) {
		var c int
		fmt.Sscan(f, &c)
		if comm(c) == "ctxql" {
			return c
		}
	}
	return 0
}

func comm(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
