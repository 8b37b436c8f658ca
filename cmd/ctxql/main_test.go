package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/gittest"
	"github.com/ctxql/ctxql/internal/ostest"
)

// bin is the ctxql binary built once for the tests that run it as a user
// does, as a separate process.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxql-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = filepath.Join(dir, "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build ctxql: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of the binary showed.
type result struct {
	stdout, stderr string
	code           int
}

// ctxql runs the binary in dir with args and stdin (nil: empty) and fails
// the test when it does not finish within 30 seconds (a hang).
func ctxql(t *testing.T, dir string, stdin io.Reader, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ctxql %s did not finish within 30 s (stderr: %s)", strings.Join(args, " "), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ctxql %s: %v", strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// temps lists the temporary files of rewrites left in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".ctxql-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestSourcesSpecialFiles: a FIFO named x.pact and a file over
// --max-file-bytes are each reported (exit 2) while the other files are
// still checked; a link to /dev/zero met in the walk is skipped (it leads
// outside the named directory), and named on the command line it is refused
// as no regular file; nothing hangs or reads without end. The same for fmt,
// fix and migrate, and for standard input.
func TestSourcesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "good.pact"), "@t0 .seg .block:summary\n", 0o644)
	write(t, filepath.Join(dir, "big.pact"), strings.Repeat("@t0 .seg > .summary\n", 20), 0o644)
	if err := ostest.Mkfifo(filepath.Join(dir, "x.pact")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.pact")); err != nil {
		t.Fatal(err)
	}
	r := ctxql(t, dir, nil, "check", "--max-file-bytes", "100", ".")
	if r.code != 2 {
		t.Errorf("check: exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"x.pact: not a regular file", "zero.pact: skipped: a link to /dev/zero",
		"big.pact: file too large: over 100 bytes (raise with --max-file-bytes)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("check: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "good.pact:1:10: error:") || !strings.Contains(r.stdout, "PACT001") {
		t.Errorf("check: the readable file was not checked:\n%s", r.stdout)
	}
	// Named on the command line, the special files are refused the same way.
	r = ctxql(t, dir, nil, "check", "x.pact", "zero.pact")
	if r.code != 2 || strings.Count(r.stderr, "not a regular file") != 2 {
		t.Errorf("check x.pact zero.pact: exit %d\n%s", r.code, r.stderr)
	}
	// Raising the limit reads the large file.
	r = ctxql(t, dir, nil, "check", "--max-file-bytes", "0", "big.pact")
	if r.code != 0 {
		t.Errorf("check --max-file-bytes 0 big.pact: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"fmt", "-l", "."}, {"fmt", "-w", "."}, {"fix", "."}, {"migrate", "-w", "."}} {
		r := ctxql(t, dir, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "x.pact: not a regular file") || !strings.Contains(r.stderr, "zero.pact: skipped: a link to /dev/zero") {
			t.Errorf("%v: exit %d, want 2 naming both special files\n%s", args, r.code, r.stderr)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "zero.pact")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("zero.pact is no longer a link")
	}
	// Standard input that never ends is cut at the limit.
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	r = ctxql(t, dir, zero, "check", "--max-file-bytes", "4096", "-")
	if r.code != 2 || !strings.Contains(r.stderr, "file too large") {
		t.Errorf("check - < /dev/zero: exit %d\n%s", r.code, r.stderr)
	}
}

// TestEvalDataSpecialFiles: eval refuses a FIFO or a link to /dev/zero as
// --data at once (exit 2), and a data file over --max-data-bytes with a
// message naming the flag.
func TestEvalDataSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := ostest.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "facts"), 0o755)
	write(t, filepath.Join(dir, "facts", "r.dl"), "relation r(String);\n", 0o644)
	if err := ostest.Mkfifo(filepath.Join(dir, "facts", "r.facts")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "real.json"), `{"relations": {"r": {"param_types": ["String"], "tuples": [["a"]]}}}`, 0o644)
	write(t, filepath.Join(dir, "q.jql"), `{from: 'sessions'}`, 0o644)
	cases := [][]string{
		{"eval", "pact", "--data", "fifo.json", ".seg"},
		{"eval", "pact", "--data", "zero.json", ".seg"},
		{"eval", "jql", "--data", "fifo.json", "{from: 'sessions'}"},
		{"eval", "jql", "--data", "zero.json", "{from: 'sessions'}"},
		{"eval", "datalog", "--data", "fifo.json", "q(x) <-- r(x)."},
		{"eval", "datalog", "--data", "zero.json", "q(x) <-- r(x)."},
		{"eval", "datalog", "--data", "facts", "q(x) <-- r(x)."},
		{"eval", "datalog", "--data", "real.json", "--rules", "fifo.json"},
		{"eval", "jql", "--data", "real.json", "--query-file", "zero.json"},
	}
	for _, args := range cases {
		r := ctxql(t, dir, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("%v: exit %d, want 2 and \"not a regular file\"\n%s", args, r.code, r.stderr)
		}
	}
	r := ctxql(t, dir, nil, "eval", "datalog", "--max-data-bytes", "10", "--data", "real.json", "q(x) <-- r(x).")
	if r.code != 2 || !strings.Contains(r.stderr, "raise with --max-data-bytes") {
		t.Errorf("over --max-data-bytes: exit %d\n%s", r.code, r.stderr)
	}
	r = ctxql(t, dir, nil, "eval", "datalog", "--data", "real.json", "q(x) <-- r(x).")
	if r.code != 0 || strings.TrimSpace(r.stdout) != `[["a"]]` {
		t.Errorf("within the limit: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
}

// rewrites are the three commands that rewrite files, each with a source
// it changes and the result.
var rewrites = []struct {
	name     string
	args     []string
	src, out string
}{
	{"fix", []string{"fix"}, "@t0 .seg .block:summary\n", "@t0 .seg .summary\n"},
	{"fmt", []string{"fmt", "-w"}, "@t0 .seg>.summary\n", "@t0 .seg > .summary\n"},
	{"migrate", []string{"migrate", "-w"}, "@t0 .seg .block:summary { ttl>=2 }\n", "@t0 .seg .summary [ ttl>=2 ]\n"},
}

// TestRewriteThroughSymlink: fix, fmt -w and migrate -w rewrite a link's
// target and keep the link, whether the link is named or found in a
// directory that is named together with the target's directory. (A link
// found in a walk that leads outside the named paths is skipped:
// TestWalkSkipsLinksOutside.)
func TestRewriteThroughSymlink(t *testing.T) {
	for _, rw := range rewrites {
		for _, viaDir := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dir=%v", rw.name, viaDir), func(t *testing.T) {
				dir := t.TempDir()
				target := filepath.Join(dir, "shared", "q.pact")
				write(t, target, rw.src, 0o640)
				os.Mkdir(filepath.Join(dir, "work"), 0o755)
				link := filepath.Join(dir, "work", "q.pact")
				if err := os.Symlink("../shared/q.pact", link); err != nil {
					t.Fatal(err)
				}
				args := []string{"work/q.pact"}
				if viaDir {
					args = []string{"work", "shared"}
				}
				r := ctxql(t, dir, nil, append(rw.args, args...)...)
				if r.code != 0 {
					t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
				fi, err := os.Lstat(link)
				if err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("the link was replaced (mode %v, %v)", fi.Mode(), err)
				}
				if got := read(t, target); got != rw.out {
					t.Errorf("target holds %q, want %q", got, rw.out)
				}
				if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
					t.Errorf("target mode %v, want 0640", st.Mode().Perm())
				}
				if tt := temps(t, dir); len(tt) > 0 {
					t.Errorf("temporary files left: %v", tt)
				}
			})
		}
	}
}

// TestRewriteRefusesReadOnly: a 0444 file is left alone with a clear error
// (exit 2), as gofmt does, while a writable file beside it is rewritten.
func TestRewriteRefusesReadOnly(t *testing.T) {
	for _, rw := range rewrites {
		t.Run(rw.name, func(t *testing.T) {
			dir := t.TempDir()
			ro, rwf := filepath.Join(dir, "a.pact"), filepath.Join(dir, "b.pact")
			write(t, ro, rw.src, 0o444)
			write(t, rwf, rw.src, 0o644)
			r := ctxql(t, dir, nil, append(rw.args, ".")...)
			if r.code != 2 || !strings.Contains(r.stderr, "a.pact: file is read-only (mode 0444): not rewritten") {
				t.Errorf("exit %d, want 2 and a read-only message\n%s", r.code, r.stderr)
			}
			if got := read(t, ro); got != rw.src {
				t.Errorf("the read-only file was rewritten: %q", got)
			}
			if st, _ := os.Stat(ro); st.Mode().Perm() != 0o444 {
				t.Errorf("mode %v", st.Mode().Perm())
			}
			if got := read(t, rwf); got != rw.out {
				t.Errorf("the writable file holds %q, want %q", got, rw.out)
			}
		})
	}
}

// TestMigrateWriteGoesOn: migrate -w over a directory migrates every file
// it can, reports the one with a syntax error with its position, and exits
// 2 (a file had syntax errors).
func TestMigrateWriteGoesOn(t *testing.T) {
	dir := t.TempDir()
	legacy, migrated := "@t0 .seg .block:summary { ttl>=2 }\n", "@t0 .seg .summary [ ttl>=2 ]\n"
	write(t, filepath.Join(dir, "a.pact"), legacy, 0o644)
	write(t, filepath.Join(dir, "b.pact"), ".cb[ttl<=]\n", 0o644)
	write(t, filepath.Join(dir, "c.pact"), legacy, 0o644)
	r := ctxql(t, dir, nil, "migrate", "-w", ".")
	if r.code != 2 {
		t.Errorf("exit %d, want 2", r.code)
	}
	if !strings.Contains(r.stderr, "b.pact:1:10: expected a value") || !strings.Contains(r.stderr, "1 file(s) left unchanged") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	for _, f := range []string{"a.pact", "c.pact"} {
		if got := read(t, filepath.Join(dir, f)); got != migrated {
			t.Errorf("%s = %q, want %q", f, got, migrated)
		}
	}
	if got := read(t, filepath.Join(dir, "b.pact")); got != ".cb[ttl<=]\n" {
		t.Errorf("b.pact = %q", got)
	}
}

// TestLongLineFindings: a 190 KB one-line JQL file with 20,000 warnings
// prints clipped code frames and the first 100 findings with a summary
// line, not the whole line 20,000 times; --max-findings 0 prints each
// finding, still with clipped frames; JSON keeps every finding.
func TestLongLineFindings(t *testing.T) {
	dir := t.TempDir()
	var vals []string
	for i := range 20000 {
		vals = append(vals, fmt.Sprintf("'zz%d'", i))
	}
	write(t, filepath.Join(dir, "w.jql"), "{from: 'activities', where: {type: {in: ["+strings.Join(vals, ",")+"]}}}\n", 0o644)
	r := ctxql(t, dir, nil, "check", "w.jql")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if len(r.stdout) > 100<<10 {
		t.Errorf("printed %d bytes", len(r.stdout))
	}
	if n := strings.Count(r.stdout, ": warning: "); n != 100 {
		t.Errorf("%d findings printed, want 100", n)
	}
	for _, want := range []string{"… and 19900 more finding(s) in w.jql (print them with --max-findings 0)\n", "0 error(s), 20000 warning(s)\n",
		"','zz60','zz61','zz62'", // a frame clipped on both sides
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	clipped := 0
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "  ") && len([]rune(line)) > 200 {
			t.Fatalf("a code frame line of %d characters: %.80s…", len([]rune(line)), line)
		}
		if strings.HasPrefix(line, "  …") && strings.HasSuffix(line, "…") {
			clipped++
		}
	}
	if clipped == 0 {
		t.Error("no code frame is clipped on both sides")
	}
	all := ctxql(t, dir, nil, "check", "--max-findings", "0", "w.jql")
	if n := strings.Count(all.stdout, ": warning: "); n != 20000 || len(all.stdout) > 20000*500 {
		t.Errorf("--max-findings 0: %d findings in %d bytes", n, len(all.stdout))
	}
	js := ctxql(t, dir, nil, "check", "--format", "json", "w.jql")
	if n := strings.Count(js.stdout, `"code": "JQL007"`); n != 20000 {
		t.Errorf("JSON carries %d findings, want 20000", n)
	}
}

// slowFiles writes n copies of src into dir as fNNNN.pact, large enough
// that rewriting them all takes a while.
func slowFiles(t *testing.T, dir string, n int, src string) []string {
	t.Helper()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%04d.pact", i))
		write(t, p, src, 0o644)
		paths = append(paths, p)
	}
	return paths
}

// startWhenWriting starts the binary on args in dir and returns once the
// first of paths no longer holds old (the run is writing), or after 3 s.
func startWhenWriting(t *testing.T, dir string, paths []string, old string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		changed := false
		for _, p := range paths[:min(len(paths), 8)] {
			if b, err := os.ReadFile(p); err == nil && string(b) != old {
				changed = true
			}
		}
		if changed {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return cmd, &errb
}

// checkOldOrNew fails unless every file holds old or new, and returns how
// many hold new.
func checkOldOrNew(t *testing.T, paths []string, old, new string) int {
	t.Helper()
	n := 0
	for _, p := range paths {
		switch read(t, p) {
		case old:
		case new:
			n++
		default:
			t.Fatalf("%s holds neither the old nor the new content", p)
		}
	}
	return n
}

// TestInterrupt: SIGINT stops fmt -w and SIGTERM stops fix mid-run with
// exit 130 and 143 (never 0 or 1), within the grace period; every file
// holds its old or its new content, nothing is written after the exit, and
// no temporary file is left.
func TestInterrupt(t *testing.T) {
	var line strings.Builder
	var fixed strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&line, "@t0 .seg>.summary[ttl<=%d] .block:summary\n", i)
		fmt.Fprintf(&fixed, "@t0 .seg>.summary[ttl<=%d] .summary\n", i)
	}
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
		args []string
	}{
		{"fmt-SIGINT", syscall.SIGINT, 130, []string{"fmt", "-w", "."}},
		{"fix-SIGTERM", syscall.SIGTERM, 143, []string{"fix", "."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := slowFiles(t, dir, 200, line.String())
			// The new content, as the same command writes it for one file.
			one := t.TempDir()
			write(t, filepath.Join(one, "f.pact"), line.String(), 0o644)
			ctxql(t, one, nil, append(slices.Clone(tc.args[:len(tc.args)-1]), "f.pact")...)
			want := read(t, filepath.Join(one, "f.pact"))
			if want == line.String() {
				t.Fatal("the command changes nothing")
			}
			cmd, errb := startWhenWriting(t, dir, paths, line.String(), tc.args...)
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatalf("signal: %v (the run ended before it)", err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			code := cmd.ProcessState.ExitCode()
			if _, ok := err.(*exec.ExitError); !ok || code != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), "ctxql: interrupted (SIG") {
				t.Errorf("stderr: %s", errb.String())
			}
			if took > 2*time.Second {
				t.Errorf("took %v to stop", took)
			}
			stamp := map[string]time.Time{}
			for _, p := range paths {
				fi, _ := os.Stat(p)
				stamp[p] = fi.ModTime()
			}
			n := checkOldOrNew(t, paths, line.String(), want)
			t.Logf("%d of %d files rewritten before the signal took effect after %v", n, len(paths), took)
			if n == len(paths) {
				t.Error("every file was rewritten: the run was not interrupted")
			}
			time.Sleep(1500 * time.Millisecond)
			for _, p := range paths {
				if fi, _ := os.Stat(p); !fi.ModTime().Equal(stamp[p]) {
					t.Fatalf("%s was written after the process exited", p)
				}
			}
			if tt := temps(t, dir); len(tt) > 0 {
				t.Errorf("temporary files left: %v", tt)
			}
		})
	}
}

// TestInterruptEval: a long evaluation stops on SIGINT with exit 130, not
// with 1 (the invalid-query code).
func TestInterruptEval(t *testing.T) {
	dir := t.TempDir()
	var tuples []string
	for i := range 3000 {
		tuples = append(tuples, fmt.Sprintf(`["n%d","n%d"]`, i, i+1))
	}
	write(t, filepath.Join(dir, "chain.json"), `{"relations": {"e": {"param_types": ["String","String"], "tuples": [`+strings.Join(tuples, ",")+`]}}}`, 0o644)
	write(t, filepath.Join(dir, "tc.dl"), "relation e(String, String);\ntc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), e(y, z);\n", 0o644)
	cmd := exec.Command(bin, "eval", "datalog", "--data", "chain.json", "--rules", "tc.dl")
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("signal: %v (the evaluation ended before it)", err)
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, errb.String())
	}
	if took := time.Since(sent); took > 2*time.Second {
		t.Errorf("took %v to stop", took)
	}
}

// TestKilledRewriteCleanedUp: after a rewrite killed with SIGKILL, files
// hold old or new content, and the next run removes every temporary file
// such a run leaves (the killed one's and older ones) and finishes the job.
func TestKilledRewriteCleanedUp(t *testing.T) {
	var line strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&line, "@t0 .seg>.summary[ttl<=%d]\n", i)
	}
	dir := t.TempDir()
	paths := slowFiles(t, dir, 60, line.String())
	want := strings.ReplaceAll(line.String(), ">", " > ")
	cmd, _ := startWhenWriting(t, dir, paths, line.String(), "fmt", "-w", ".")
	cmd.Process.Kill()
	cmd.Wait()
	checkOldOrNew(t, paths, line.String(), want)
	// What a kill between writing a temporary file and renaming it leaves
	// (a pid above pid_max cannot be running), and an older release's name.
	write(t, filepath.Join(dir, ".f0001.pact.ctxql-999999999-42.tmp"), "partial", 0o600)
	write(t, filepath.Join(dir, ".f0002.pact.ctxql-123456"), "partial", 0o600)
	t.Logf("temporary files after the kill: %d", len(temps(t, dir)))
	r := ctxql(t, dir, nil, "fmt", "-w", ".")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := checkOldOrNew(t, paths, line.String(), want); n != len(paths) {
		t.Errorf("%d of %d files formatted", n, len(paths))
	}
	if tt := temps(t, dir); len(tt) > 0 {
		t.Errorf("temporary files left: %v", tt)
	}
}

// gitRepo makes a git repository in a new directory and returns it with a
// function running git there.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitRun := func(args ...string) string {
		t.Helper()
		return gittest.Run(t, dir, args...)
	}
	gitRun("init", "-q")
	return dir, gitRun
}

// diffJSON is the JSON report of ctxql diff.
type diffJSON struct {
	Base      string `json:"base"`
	Commit    string `json:"commit"`
	Queries   int    `json:"queries"`
	Unchanged int    `json:"unchanged_files"`
	Changed   []struct {
		File      string   `json:"file"`
		BaseFile  string   `json:"base_file"`
		Language  string   `json:"language"`
		Query     string   `json:"query"`
		Status    string   `json:"status"`
		Line      int      `json:"line"`
		Column    int      `json:"column"`
		EndLine   int      `json:"end_line"`
		EndColumn int      `json:"end_column"`
		Added     []string `json:"added"`
		Removed   []string `json:"removed"`
		Count     int      `json:"count"`
		BaseCount int      `json:"base_count"`
		Error     string   `json:"error"`
		BaseError string   `json:"base_error"`
	} `json:"changed"`
}

const (
	diffTree = `{"root": {"children": [
  {"id": "seq-1", "nodeType": "^seq", "children": [
    {"id": "seg:1", "nodeType": "seg", "children": [
      {"id": "block:u1", "nodeType": "block", "kind": "text", "offset": 0, "ttl": 2, "content": "U1"},
      {"id": "block:a1", "nodeType": "block", "kind": "text", "offset": 0, "ttl": 1, "content": "A1"}]},
    {"id": "seg:2", "nodeType": "seg", "children": [
      {"id": "block:u2", "nodeType": "block", "kind": "text", "offset": 0, "content": "U2"}]}]}]}}`
	diffActivities = `[{"id":"a1","type":"planGenerated"},{"id":"a2","type":"agentMessaged"},{"id":"a3","type":"agentMessaged"}]`
	diffEdges      = `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [["a","b"],["b","c"]]}}}`
)

// TestDiff builds a git repository with PACT, JQL and Datalog queries and
// their sample data (named by "// data:" lines and by .ctxql.yaml), then
// changes a query, changes data, renames a file and deletes one, and checks
// what ctxql diff reports in each format and its exit status.
func TestDiff(t *testing.T) {
	dir, gitRun := gitRepo(t)
	write(t, filepath.Join(dir, "data", "tree.json"), diffTree, 0o644)
	write(t, filepath.Join(dir, "data", "activities.json"), diffActivities, 0o644)
	write(t, filepath.Join(dir, "data", "edges.json"), diffEdges, 0o644)
	write(t, filepath.Join(dir, ".ctxql.yaml"), "data:\n  \"queries/*.jql\": data/activities.json\n", 0o644)
	write(t, filepath.Join(dir, "queries", "blocks.pact"), "// data: ../data/tree.json\n.block[ttl>=1]\n.seg\n", 0o644)
	jqlQueries := "{from: 'activities', where: {type: 'agentMessaged'}}\n{from: 'activities', where: {type: 'planGenerated'}}\n{from: 'activities'}\n"
	write(t, filepath.Join(dir, "queries", "agent.jql"), jqlQueries, 0o644)
	write(t, filepath.Join(dir, "queries", "paths.dl"), "// data: ../data/edges.json\nrelation edge(Node, Node);\npath(x, y) <-- edge(x, y);\npath(x, z) <-- path(x, y), edge(y, z);\n", 0o644)
	write(t, filepath.Join(dir, "queries", "old.pact"), "// data: ../data/tree.json\n.seg\n", 0o644)
	write(t, filepath.Join(dir, "queries", "nodata.pact"), ".seg\n", 0o644)
	// Ignored files are no saved queries: they are not counted.
	write(t, filepath.Join(dir, ".gitignore"), "build/\n", 0o644)
	write(t, filepath.Join(dir, "build", "gen.pact"), "// data: ../data/tree.json\n.seg\n", 0o644)
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")

	// Nothing changed: exit 0, and no file needs evaluating; --all
	// evaluates every query all the same.
	r := ctxql(t, dir, nil, "diff")
	if r.code != 0 || !strings.Contains(r.stdout, "0 of 0 queries changed results since HEAD") || !strings.Contains(r.stdout, "; 5 unchanged file(s) not evaluated") {
		t.Fatalf("clean tree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = ctxql(t, dir, nil, "diff", "--all")
	if r.code != 0 || !strings.Contains(r.stdout, "0 of 7 queries changed results since HEAD") || strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("clean tree, --all: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A changed query, changed data, a renamed file, a deleted file.
	write(t, filepath.Join(dir, "queries", "blocks.pact"), "// data: ../data/tree.json\n.block[ttl>=2]\n.seg\n", 0o644)
	write(t, filepath.Join(dir, "data", "edges.json"), strings.Replace(diffEdges, `["b","c"]`, `["b","c"],["c","d"]`, 1), 0o644)
	gitRun("mv", "queries/agent.jql", "queries/agents.jql")
	gitRun("rm", "-q", "queries/old.pact")
	r = ctxql(t, dir, nil, "diff", "--format", "json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rep diffJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, c := range rep.Changed {
		got[c.File+" "+c.Query] = fmt.Sprintf("%s %d:%d-%d:%d +%v -%v %d→%d", c.Status, c.Line, c.Column, c.EndLine, c.EndColumn, c.Added, c.Removed, c.BaseCount, c.Count)
	}
	want := map[string]string{
		"queries/blocks.pact .block[ttl>=2]": "changed 2:1-2:15 +[] -[block:a1] 2→1",
		"queries/paths.dl path":              `changed 3:1-3:27 +[["a","d"] ["b","d"] ["c","d"]] -[] 3→6`,
		"queries/old.pact .seg":              "removed 2:1-2:5 +[] -[seg:1 seg:2] 2→0",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	if len(rep.Changed) != len(want) || rep.Queries != 7 || rep.Base != "HEAD" || len(rep.Commit) != 40 {
		t.Errorf("report: %d changes (want %d), %d queries, base %q commit %q\n%s", len(rep.Changed), len(want), rep.Queries, rep.Base, rep.Commit, r.stdout)
	}

	// The text report names each change with its position and results.
	r = ctxql(t, dir, nil, "diff")
	for _, w := range []string{
		"queries/blocks.pact:2:1: query .block[ttl>=2]: results changed: 0 added, 1 removed (2 → 1)\n  - block:a1\n",
		"queries/old.pact:2:1: query .seg: query removed (it had 2 result(s))\n  - seg:1\n  - seg:2\n",
		"queries/paths.dl:3:1: relation path: results changed: 3 added, 0 removed (3 → 6)\n  + [\"a\",\"d\"]\n",
		"3 of 7 queries changed results since HEAD",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("text output lacks %q:\n%s", w, r.stdout)
		}
	}
	// GitHub annotations and SARIF carry one warning per change.
	r = ctxql(t, dir, nil, "diff", "--format", "github")
	if n := strings.Count(r.stdout, "::warning file=queries/"); n != 3 || !strings.Contains(r.stdout, "::warning file=queries/blocks.pact,line=2,col=1,endLine=2,endColumn=15,title=DIFF001::") {
		t.Errorf("github output:\n%s", r.stdout)
	}
	r = ctxql(t, dir, nil, "diff", "--format", "sarif")
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sarif); err != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 3 || sarif.Runs[0].Results[0].RuleID != "DIFF001" {
		t.Errorf("sarif (%v):\n%s", err, r.stdout)
	}

	// A path limits the comparison; the renamed JQL file is compared with
	// its old name and its results did not change.
	r = ctxql(t, dir, nil, "diff", "queries/agents.jql")
	if r.code != 0 || !strings.Contains(r.stdout, "0 of 3 queries changed") {
		t.Errorf("diff queries/agents.jql: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A renamed file whose query changed is reported with its old name.
	write(t, filepath.Join(dir, "queries", "agents.jql"), strings.Replace(jqlQueries, "'agentMessaged'}", "'agentMessaged'}, limit: 1", 1), 0o644)
	gitRun("add", "-A")
	r = ctxql(t, dir, nil, "diff", "--format", "json", "queries")
	rep = diffJSON{}
	json.Unmarshal([]byte(r.stdout), &rep)
	found := false
	for _, c := range rep.Changed {
		if c.File == "queries/agents.jql" {
			found = true
			if c.BaseFile != "queries/agent.jql" || c.Status != "changed" || len(c.Added) != 0 || len(c.Removed) != 1 ||
				!strings.Contains(c.Removed[0], `"a3"`) || c.Language != "jql" || c.Line != 1 || c.BaseCount != 2 || c.Count != 1 {
				t.Errorf("renamed JQL change: %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("the renamed, changed JQL query is not reported:\n%s", r.stdout)
	}

	// Commit everything; comparing with the first commit reads the queries
	// and the data of that commit from git, not from the working tree.
	gitRun("add", "-A")
	gitRun("commit", "-qm", "second")
	r = ctxql(t, dir, nil, "diff")
	if r.code != 0 {
		t.Errorf("after the commit: exit %d\n%s", r.code, r.stdout)
	}
	r = ctxql(t, dir, nil, "diff", "--base", "HEAD~1", "--format", "json")
	rep = diffJSON{}
	json.Unmarshal([]byte(r.stdout), &rep)
	if r.code != 1 || len(rep.Changed) != 4 || rep.Base != "HEAD~1" {
		t.Errorf("--base HEAD~1: exit %d, %d changes\n%s%s", r.code, len(rep.Changed), r.stdout, r.stderr)
	}

	// A new query file is an added query; --ignore-added leaves it out.
	write(t, filepath.Join(dir, "queries", "new.pact"), "// data: ../data/tree.json\n.seg\n", 0o644)
	r = ctxql(t, dir, nil, "diff")
	if r.code != 1 || !strings.Contains(r.stdout, "queries/new.pact:2:1: query .seg: new query with 2 result(s)\n  + seg:1\n  + seg:2\n") {
		t.Errorf("new query: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = ctxql(t, dir, nil, "diff", "--ignore-added")
	if r.code != 0 || strings.Contains(r.stdout, "new.pact") {
		t.Errorf("--ignore-added: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Usage errors: an unknown revision, outside a repository, a bad format.
	for _, tc := range []struct {
		dir  string
		args []string
		msg  string
	}{
		{dir, []string{"diff", "--base", "no-such-ref"}, "unknown revision"},
		{t.TempDir(), []string{"diff"}, "not inside a git work tree"},
		{dir, []string{"diff", "--format", "xml"}, "unknown --format"},
	} {
		r := ctxql(t, tc.dir, nil, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", tc.args, r.code, tc.msg, r.stderr)
		}
	}
}
