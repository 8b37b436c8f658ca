package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/ostest"
)

// usage is what a capped run of the binary used.
type usage struct {
	result
	cpu    time.Duration // user and system time
	maxRSS int64         // peak resident set, in bytes
}

// capped runs the binary in dir under an address-space limit of 4 GiB
// (ulimit -v; a runaway allocation fails instead of taking the machine) and
// GOMEMLIMIT, and fails the test if it does not finish within timeout (a
// guard against hangs only: the tests bound the work by CPU time and
// memory, which a loaded machine does not inflate).
func capped(t *testing.T, dir string, timeout time.Duration, args ...string) usage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 4194304 && exec "$0" "$@"`, bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=768MiB")
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ctxql %.200s did not finish within %v", strings.Join(args, " "), timeout)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	u := usage{result: result{out.String(), errb.String(), code}}
	u.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if rss, ok := ostest.PeakRSS(cmd.ProcessState); ok {
		u.maxRSS = rss
	}
	t.Logf("ctxql %.60s…: exit %d, %v CPU, peak RSS %d MB", strings.Join(args, " "), code, u.cpu, u.maxRSS>>20)
	return u
}

// activities is a small activities data file.
const activities = `[{"id":"a1","sessionId":"s","type":"planGenerated","timestamp":"2025-01-01T00:00:00Z"},` +
	`{"id":"a2","sessionId":"s","type":"agentMessaged","timestamp":"2025-01-01T00:00:01Z"}]`

// TestEvalJQLDeepNesting: a YAML JQL query of flow mappings nested 50,000
// deep (a 244 KB query whose parse used to grow quadratically until memory
// ran out) is refused by eval jql and check with a nesting error, in a
// process that stays small.
func TestEvalJQLDeepNesting(t *testing.T) {
	dir := t.TempDir()
	const n = 50000
	write(t, filepath.Join(dir, "deep.jql.yaml"), "from: activities\nwhere: "+strings.Repeat("{a: ", n)+"1"+strings.Repeat("}", n)+"\n", 0o644)
	write(t, filepath.Join(dir, "deep.jql"), "{from: 'activities', where: "+strings.Repeat("{a: ", n)+"1"+strings.Repeat("}", n)+"}\n", 0o644)
	write(t, filepath.Join(dir, "acts.json"), activities, 0o644)
	for _, args := range [][]string{
		{"eval", "jql", "--data", "acts.json", "--query-file", "deep.jql.yaml"},
		{"eval", "jql", "--data", "acts.json", "--query-file", "deep.jql"},
		{"check", "deep.jql.yaml", "deep.jql"},
	} {
		u := capped(t, dir, 60*time.Second, args...)
		if u.code != 1 || !strings.Contains(u.stdout+u.stderr, "nesting too deep") {
			t.Errorf("%v: exit %d, want 1 and a nesting error\n%.500s%.500s", args, u.code, u.stdout, u.stderr)
		}
		if u.maxRSS > 256<<20 {
			t.Errorf("%v: peak RSS %d MB for a 244 KB query", args, u.maxRSS>>20)
		}
	}
}

// selectPaths writes a one-line JQL query selecting n distinct paths, as
// an object literal (name.jql) or YAML (name.jql.yaml).
func selectPaths(t *testing.T, dir string, n int) {
	var lit, yml strings.Builder
	lit.WriteString("{from: 'activities', select: [")
	yml.WriteString("from: activities\nselect: [")
	for i := range n {
		if i > 0 {
			lit.WriteString(",")
			yml.WriteString(", ")
		}
		fmt.Fprintf(&lit, "'p%d.x'", i)
		fmt.Fprintf(&yml, "p%d.x", i)
	}
	lit.WriteString("]}\n")
	yml.WriteString("]\n")
	write(t, filepath.Join(dir, "sel.jql"), lit.String(), 0o644)
	write(t, filepath.Join(dir, "sel.jql.yaml"), yml.String(), 0o644)
}

// TestEvalJQLManySelectPaths: eval jql with 100,000 select paths (a 1 MB
// query, which took 52 s when projection was quadratic) evaluates in
// bounded work.
func TestEvalJQLManySelectPaths(t *testing.T) {
	dir := t.TempDir()
	selectPaths(t, dir, 100000)
	write(t, filepath.Join(dir, "acts.json"), activities, 0o644)
	for _, q := range []string{"sel.jql", "sel.jql.yaml"} {
		u := capped(t, dir, 120*time.Second, "eval", "jql", "--data", "acts.json", "--query-file", q)
		var compact bytes.Buffer
		json.Compact(&compact, []byte(u.stdout))
		if u.code != 0 || compact.String() != `[{"id":"a1"},{"id":"a2"}]` {
			t.Errorf("%s: exit %d\n%.300s%.300s", q, u.code, u.stdout, u.stderr)
		}
		// Linear work is well under a second of CPU; the quadratic
		// projection took about 50 s.
		if u.cpu > 15*time.Second {
			t.Errorf("%s: %v of CPU time for 100,000 select paths", q, u.cpu)
		}
	}
}

// TestCheckManyFindingsFormats: check of a 1 MB one-line JQL file with
// 100,000 findings in every machine format, SARIF and GitHub annotations
// included (their columns were counted from the start of the line for
// each finding: 10¹¹ steps, hours), finishes in bounded work and carries
// every finding.
func TestCheckManyFindingsFormats(t *testing.T) {
	dir := t.TempDir()
	const n = 100000
	selectPaths(t, dir, n)
	outs := map[string]string{}
	for _, c := range []struct {
		format, marker string
	}{
		{"text", ": warning: "},
		{"sarif", `"ruleId": "JQL002"`},
		{"github", "::warning file=sel.jql,"},
	} {
		u := capped(t, dir, 120*time.Second, "check", "--format", c.format, "sel.jql")
		if u.code != 0 {
			t.Fatalf("%s: exit %d\n%.500s", c.format, u.code, u.stderr)
		}
		outs[c.format] = u.stdout
		want := n
		if c.format == "text" {
			want = 100 // the per-file cap
			if !strings.Contains(u.stdout, "0 error(s), 100000 warning(s)") {
				t.Errorf("text: totals missing:\n%.300s", u.stdout[max(0, len(u.stdout)-300):])
			}
		}
		if got := strings.Count(u.stdout, c.marker); got != want {
			t.Errorf("%s: %d findings, want %d", c.format, got, want)
		}
		if u.cpu > 30*time.Second {
			t.Errorf("%s: %v of CPU time for %d findings", c.format, u.cpu, n)
		}
	}
	// The last finding's column, counted in characters, is right.
	src := read(t, filepath.Join(dir, "sel.jql"))
	col := strings.Index(src, fmt.Sprintf("'p%d.x'", n-1)) + 2 // 1-based, after the quote
	if want := fmt.Sprintf(",line=1,col=%d,", col); !strings.Contains(outs["github"], want) {
		t.Errorf("github output lacks the last finding's column %q", want)
	}
}

// TestDatalogChainPlanned: a 50-atom chain q(x0) <-- path(x0, x1), …,
// path(x49, x50) over 11 tuples, which needed more than 848 MB at 40
// atoms when joined left to right keeping every variable, evaluates in a
// small process.
func TestDatalogChainPlanned(t *testing.T) {
	dir := t.TempDir()
	var tuples []string
	for _, a := range []string{"a", "b", "c"} {
		for _, b := range []string{"a", "b", "c"} {
			tuples = append(tuples, fmt.Sprintf(`[%q,%q]`, a, b))
		}
	}
	tuples = append(tuples, `["a","d"]`, `["d","a"]`)
	write(t, filepath.Join(dir, "path.json"), `{"relations": {"path": {"param_types": ["String","String"], "tuples": [`+strings.Join(tuples, ",")+`]}}}`, 0o644)
	var body []string
	for i := range 50 {
		body = append(body, fmt.Sprintf("path(x%d, x%d)", i, i+1))
	}
	write(t, filepath.Join(dir, "chain.dl"), "relation path(String, String);\nq(x0) <-- "+strings.Join(body, ", ")+";\n", 0o644)
	u := capped(t, dir, 60*time.Second, "eval", "datalog", "--data", "path.json", "--rules", "chain.dl")
	if u.code != 0 || !strings.Contains(u.stdout, `"q":[["a"],["b"],["c"],["d"]]`) {
		t.Errorf("exit %d\n%.300s%.300s", u.code, u.stdout, u.stderr)
	}
	if u.maxRSS > 256<<20 {
		t.Errorf("peak RSS %d MB for a chain over 11 tuples", u.maxRSS>>20)
	}
}

// TestDatalogCrossProductBudget: q(a,b,c) <-- r(a),r(b),r(c) over 2,000
// rows (8·10⁹ tuples) stops at the tuple budget with an error naming the
// flag that raises it (exit 1), in a small process; a lower budget stops
// a smaller product, and a product within the budget is answered.
func TestDatalogCrossProductBudget(t *testing.T) {
	dir := t.TempDir()
	var rows []string
	for i := range 2000 {
		rows = append(rows, `["r`+strconv.Itoa(i)+`"]`)
	}
	write(t, filepath.Join(dir, "r.json"), `{"relations": {"r": {"param_types": ["String"], "tuples": [`+strings.Join(rows, ",")+`]}}}`, 0o644)
	u := capped(t, dir, 60*time.Second, "eval", "datalog", "--data", "r.json", "q(a, b, c) <-- r(a), r(b), r(c).")
	if u.code != 1 || !strings.Contains(u.stderr, "--max-tuples") {
		t.Errorf("exit %d, want 1 and an error naming --max-tuples\n%.300s", u.code, u.stderr)
	}
	if u.maxRSS > 1<<30 {
		t.Errorf("peak RSS %d MB", u.maxRSS>>20)
	}
	u = capped(t, dir, 60*time.Second, "eval", "datalog", "--max-tuples", "1000", "--data", "r.json", "q(a, b) <-- r(a), r(b).")
	if u.code != 1 || !strings.Contains(u.stderr, "--max-tuples") {
		t.Errorf("--max-tuples 1000: exit %d\n%.300s", u.code, u.stderr)
	}
	u = capped(t, dir, 60*time.Second, "eval", "datalog", "--data", "r.json", `q(a, b) <-- r(a), r(b), if a == "r1".`)
	if u.code != 0 || !strings.Contains(u.stdout, `["r1","r1999"]`) {
		t.Errorf("a product within the budget: exit %d\n%.300s", u.code, u.stderr)
	}
}

// diffTemps lists the base-revision directories of ctxql diff in dir.
func diffTemps(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "ctxql-diff-*"))
	return m
}

// TestDiffInterruptCleansUp: ctxql diff interrupted while it evaluates
// (SIGINT, SIGTERM) exits 130 or 143 and leaves no ctxql-diff-* directory
// in the temporary directory; one left by a run killed with SIGKILL, or by
// any process that no longer exists, is removed by the next run, while one
// of a running process is kept. A directory named the way earlier releases
// named it (ctxql-diff-RANDOM, no process id) is removed once it is a day
// old.
func TestDiffInterruptCleansUp(t *testing.T) {
	dir, gitRun := gitRepo(t)
	// Sample data large enough that loading it takes a while.
	var b strings.Builder
	b.WriteString(`{"root": {"children": [{"id": "seq-1", "nodeType": "^seq", "children": [`)
	for i := range 200000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": "seg:%d", "nodeType": "seg", "children": [{"id": "block:%d", "nodeType": "block", "kind": "text", "offset": 0, "ttl": 1, "content": "x"}]}`, i, i)
	}
	b.WriteString("]}]}}")
	write(t, filepath.Join(dir, "data", "tree.json"), b.String(), 0o644)
	for i := range 20 {
		write(t, filepath.Join(dir, "queries", fmt.Sprintf("q%02d.pact", i)), "// data: ../data/tree.json\n.block[ttl>=1]\n.seg\n", 0o644)
	}
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	write(t, filepath.Join(dir, "queries", "q00.pact"), "// data: ../data/tree.json\n.block[ttl>=2]\n", 0o644)
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)

	for _, sc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGKILL, -1}} {
		t.Run(sc.sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "diff")
			cmd.Dir, cmd.Env = dir, env
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the base revision is extracted (its data file is
			// complete): the run is evaluating.
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				ready := false
				for _, d := range diffTemps(tmp) {
					if fi, err := os.Stat(filepath.Join(d, "data", "tree.json")); err == nil && fi.Size() == int64(b.Len()) {
						ready = true
					}
				}
				if ready {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if len(diffTemps(tmp)) == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no ctxql-diff-* directory appeared in TMPDIR\n%s", errb.String())
			}
			if err := cmd.Process.Signal(sc.sig); err != nil {
				t.Fatalf("signal: %v (the run ended before it)", err)
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != sc.code {
				t.Errorf("exit %d, want %d\n%s", code, sc.code, errb.String())
			}
			left := diffTemps(tmp)
			if sc.sig == syscall.SIGKILL {
				if len(left) == 0 {
					t.Fatal("a killed run left nothing to clean up")
				}
				// The next run removes it.
				cmd := exec.Command(bin, "diff", "queries/q01.pact")
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("next run: %v\n%s", err, out)
				}
				left = diffTemps(tmp)
			}
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}

	// Directories of gone processes are removed, a running one's kept.
	dead := filepath.Join(tmp, "ctxql-diff-999999999-1")
	live := filepath.Join(tmp, fmt.Sprintf("ctxql-diff-%d-1", os.Getpid()))
	other := filepath.Join(tmp, "ctxql-diff-notapid")
	// Earlier releases named it ctxql-diff-RANDOM: removed once a day old.
	oldForm, recentOldForm := filepath.Join(tmp, "ctxql-diff-4181726354"), filepath.Join(tmp, "ctxql-diff-2739104455")
	for _, d := range []string{dead, live, other, oldForm, recentOldForm} {
		write(t, filepath.Join(d, "x"), "x", 0o644)
	}
	longAgo := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(oldForm, longAgo, longAgo); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "diff", "queries/q01.pact")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("the directory of a gone process was not removed")
	}
	if _, err := os.Stat(oldForm); err == nil {
		t.Error("a day-old directory named the earlier way was not removed")
	}
	for _, d := range []string{live, other, recentOldForm} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", filepath.Base(d))
		}
	}
}

// TestConfigSpecialFile: a FIFO or a link to /dev/zero named .ctxql.yaml
// is refused at once (exit 2, "not a regular file") by check and fix,
// never waited on or read without end.
func TestConfigSpecialFile(t *testing.T) {
	for _, kind := range []string{"fifo", "zero"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "a.pact"), ".seg\n", 0o644)
			cfg := filepath.Join(dir, ".ctxql.yaml")
			var err error
			if kind == "fifo" {
				err = ostest.Mkfifo(cfg)
			} else {
				err = os.Symlink("/dev/zero", cfg)
			}
			if err != nil {
				t.Skip(err)
			}
			for _, args := range [][]string{{"check", "."}, {"fix", "."}} {
				r := ctxql(t, dir, nil, args...)
				if r.code != 2 || !strings.Contains(r.stderr, ".ctxql.yaml: not a regular file") {
					t.Errorf("%v: exit %d, want 2 and \"not a regular file\"\n%s", args, r.code, r.stderr)
				}
			}
		})
	}
}
