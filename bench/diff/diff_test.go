// Package diff_test measures ctxql diff on a generated 10,000-file
// repository against its anchor, git diff (plus the evaluation of the
// changed file), as separate processes in the same run.
package diff_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/bench/workspace"
)

// files is the size of the generated repository.
const files = 10000

// repo is a generated git repository and the ctxql binary built for it.
type repo struct {
	dir, bin string
	ws       *workspace.Files
}

// setup builds ctxql, generates the workspace and commits it.
func setup(b *testing.B) *repo {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	tmp := b.TempDir()
	r := &repo{dir: filepath.Join(tmp, "repo"), bin: filepath.Join(tmp, "ctxql")}
	// Built in the ctxql module itself (two directories up), with its own
	// go.sum.
	build := exec.Command("go", "build", "-o", r.bin, "./cmd/ctxql")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build ctxql: %v\n%s", err, out)
	}
	ws, err := workspace.Generate(r.dir, files)
	if err != nil {
		b.Fatal(err)
	}
	r.ws = ws
	r.git(b, "init", "-q")
	// Let the files' times fall before the index's, as in a repository
	// whose files were not all written this second (git compares the
	// content of "racily clean" files on every run).
	time.Sleep(1100 * time.Millisecond)
	r.git(b, "add", "-A")
	r.git(b, "commit", "-qm", "base")
	return r
}

func (r *repo) git(b *testing.B, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b",
		"GIT_COMMITTER_EMAIL=b@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// cost is what running commands took: wall-clock time, and CPU time
// (user and system, the processes they waited for included), which a
// loaded machine inflates less.
type cost struct{ wall, cpu time.Duration }

func (c *cost) add(d cost) { c.wall += d.wall; c.cpu += d.cpu }

// timed runs a command in the repository and returns what it took; exit
// status 1 (findings) counts as success.
func (r *repo) timed(b *testing.B, name string, args ...string) cost {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = r.dir
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		b.Fatalf("%s %v: %v\n%s%s", name, args, err, out, ee.Stderr)
	}
	return cost{took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// report prints the milliseconds of each command per iteration and the
// ratio of ctxql diff's wall and CPU time to the anchor's.
func report(b *testing.B, diff cost, anchor map[string]cost, ratio string) {
	n := float64(b.N)
	b.ReportMetric(float64(diff.wall.Milliseconds())/n, "diff-ms")
	var total cost
	for name, c := range anchor {
		b.ReportMetric(float64(c.wall.Milliseconds())/n, name+"-ms")
		total.add(c)
	}
	b.ReportMetric(float64(diff.wall)/float64(total.wall), ratio)
	b.ReportMetric(float64(diff.cpu)/float64(total.cpu), ratio+"-cpu")
}

// BenchmarkDiffOneChange changes one PACT file of the 10,000 and runs, in
// each iteration, the anchor — git diff, and ctxql eval of the changed
// file's query — and ctxql diff. Metrics: each one's milliseconds and
// x-vs-anchor, ctxql diff's time over the anchor's (target: at most 2).
func BenchmarkDiffOneChange(b *testing.B) {
	r := setup(b)
	changed := r.ws.Queries[5000]
	if !strings.HasSuffix(changed, ".pact") {
		b.Fatalf("%s is not a PACT file", changed)
	}
	query := "@t0 .seg > .block[ttl>=3]"
	if err := os.WriteFile(filepath.Join(r.dir, changed), []byte("// data: ../data/tree.json\n"+query+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(filepath.Dir(changed), "..", "data", "tree.json")
	r.timed(b, r.bin, "diff") // warm the page cache
	var gitT, evalT, diffT cost
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gitT.add(r.timed(b, "git", "diff"))
		evalT.add(r.timed(b, r.bin, "eval", "pact", "--data", data, query))
		diffT.add(r.timed(b, r.bin, "diff"))
	}
	b.StopTimer()
	report(b, diffT, map[string]cost{"git-diff": gitT, "eval": evalT}, "x-vs-anchor")
}

// BenchmarkDiffNoChange runs ctxql diff and git diff on the unchanged
// 10,000-file repository. x-vs-git-diff is ctxql diff's time over git
// diff's.
func BenchmarkDiffNoChange(b *testing.B) {
	r := setup(b)
	r.timed(b, r.bin, "diff")
	var gitT, diffT cost
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gitT.add(r.timed(b, "git", "diff"))
		diffT.add(r.timed(b, r.bin, "diff"))
	}
	b.StopTimer()
	report(b, diffT, map[string]cost{"git-diff": gitT}, "x-vs-git-diff")
}

// BenchmarkDiffEveryFile runs ctxql diff --all, which evaluates all 10,000
// files at both revisions, beside git diff: what a diff costs when every
// file changed.
func BenchmarkDiffEveryFile(b *testing.B) {
	r := setup(b)
	var gitT, diffT cost
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gitT.add(r.timed(b, "git", "diff"))
		diffT.add(r.timed(b, r.bin, "diff", "--all"))
	}
	b.StopTimer()
	report(b, diffT, map[string]cost{"git-diff": gitT}, "x-vs-git-diff")
}
