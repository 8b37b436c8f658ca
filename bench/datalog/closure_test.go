package datalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	dl "github.com/ctxql/ctxql/eval/datalog"
)

// chainEdges is the length of the chain whose transitive closure the
// closure benchmarks derive: 5,000 edges, 12,502,500 tuples.
const chainEdges = 5000

const chainClosure = "tc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), tc(y, z);\n"

// chainData returns the chain e(i, i+1) as data and as the JSON text of
// a data file.
func chainData(tb testing.TB, n int) (*dl.Data, []byte) {
	e := &dl.RelationData{ParamTypes: []string{"N", "N"}}
	for i := range n {
		e.Tuples = append(e.Tuples, []string{fmt.Sprint(i), fmt.Sprint(i + 1)})
	}
	d := &dl.Data{Relations: map[string]*dl.RelationData{"e": e}}
	b, err := json.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	return d, b
}

// writeBytes writes out to a new file at path in pieces of 64 KiB, as
// the result printer does, and returns the time the writes took.
func writeBytes(tb testing.TB, path string, out []byte) time.Duration {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	s := time.Now()
	for rest := out; len(rest) > 0; {
		k := min(len(rest), 64<<10)
		if _, err := f.Write(rest[:k]); err != nil {
			tb.Fatal(err)
		}
		rest = rest[k:]
	}
	return time.Since(s)
}

// BenchmarkPrintClosure evaluates the closure of the 5,000-edge chain
// in process and prints it ("ctxql eval datalog --rules" output, 194 MB)
// to a file, against writing the same bytes, already in memory, to a
// file: print-x-write is the printing time over the writing time (target:
// a few times). On a shared machine wall-clock time mostly measures
// scheduling: the CPU times of both, and their ratio cpu-print-x-write,
// are reported too, with the evaluation's CPU time.
func BenchmarkPrintClosure(b *testing.B) {
	d, _ := chainData(b, chainEdges)
	db, err := dl.Load(d)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var tEval, cEval, tPrint, tWrite, cPrint, cWrite time.Duration
	n := 0
	for b.Loop() {
		s, c0 := time.Now(), cpuTime()
		res, rels, err := dl.EvalProgramRows(context.Background(), db, "tc.dl", chainClosure, dl.Options{MaxTuples: -1})
		if err != nil || len(res.Diagnostics) > 0 {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
		tEval += time.Since(s)
		cEval += cpuTime() - c0
		if got := rels["tc"].Len(); got != chainEdges*(chainEdges+1)/2 {
			b.Fatalf("%d tuples, want %d", got, chainEdges*(chainEdges+1)/2)
		}
		f, err := os.Create(filepath.Join(dir, "print.json"))
		if err != nil {
			b.Fatal(err)
		}
		s, c0 = time.Now(), cpuTime()
		if err := dl.WriteRelationsJSON(f, rels); err != nil {
			b.Fatal(err)
		}
		tPrint += time.Since(s)
		cPrint += cpuTime() - c0
		f.Close()
		out, err := os.ReadFile(filepath.Join(dir, "print.json"))
		if err != nil {
			b.Fatal(err)
		}
		c0 = cpuTime()
		tWrite += writeBytes(b, filepath.Join(dir, "write.json"), out)
		cWrite += cpuTime() - c0
		if n == 0 {
			b.Logf("output %d bytes", len(out))
		}
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) / 1000 }
	b.ReportMetric(ms(tEval), "eval-ms")
	b.ReportMetric(ms(cEval), "eval-cpu-ms")
	b.ReportMetric(ms(tPrint), "print-ms")
	b.ReportMetric(ms(tWrite), "write-ms")
	b.ReportMetric(float64(tPrint)/float64(tWrite), "print-x-write")
	b.ReportMetric(ms(cPrint), "print-cpu-ms")
	b.ReportMetric(ms(cWrite), "write-cpu-ms")
	b.ReportMetric(float64(cPrint)/float64(cWrite), "cpu-print-x-write")
}

// BenchmarkClosureCLI runs "ctxql eval datalog --rules" on the closure of
// the 5,000-edge chain (12,502,500 tuples printed to a file) as a
// subprocess and reports its wall-clock and CPU time and its peak memory
// (maximum resident set size) per derived tuple (target: at most 48
// bytes). The anchor is the same process writing the bytes of its output
// from memory (cli-x-write): the whole run against printing alone.
//
// With CTXQL_BASELINE_REV set to a git revision of this repository, the
// benchmark also builds ctxql at that revision and runs it on the same
// files, alternating with the current binary, and reports its times and
// base-x-cli, its CPU time over the current binary's (the speed-up).
func BenchmarkClosureCLI(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	build := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	var baseBin string
	if rev := os.Getenv("CTXQL_BASELINE_REV"); rev != "" {
		baseBin = buildRevision(b, rev, dir)
	}
	_, data := chainData(b, chainEdges)
	dataPath, rulesPath := filepath.Join(dir, "chain.json"), filepath.Join(dir, "tc.dl")
	if err := os.WriteFile(dataPath, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(rulesPath, []byte(chainClosure), 0o644); err != nil {
		b.Fatal(err)
	}
	tuples := chainEdges * (chainEdges + 1) / 2
	outPath := filepath.Join(dir, "out.json")
	// run runs a ctxql binary on the closure and returns its wall-clock
	// and CPU time and peak resident memory.
	run := func(bin string) (wall, cpu time.Duration, rss int64) {
		f, err := os.Create(outPath)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		// A child's maximum resident set size counts its parent's peak
		// at the fork: start from this process's current size.
		runtime.GC()
		debug.FreeOSMemory()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Logf("peak memory includes this process's: %v", err)
		}
		cmd := exec.Command(bin, "eval", "datalog", "--data", dataPath, "--rules", rulesPath, "--max-tuples", "0")
		cmd.Stdout = f
		var errb bytes.Buffer
		cmd.Stderr = &errb
		s := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v: %s", bin, err, errb.Bytes())
		}
		wall = time.Since(s)
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss * 1024
		}
		return wall, cpu, rss
	}
	var tRun, cRun, tWrite, tBase, cBase time.Duration
	var rss int64
	n := 0
	for b.Loop() {
		if baseBin != "" {
			w, c, _ := run(baseBin)
			tBase += w
			cBase += c
		}
		w, c, r := run(bin)
		tRun += w
		cRun += c
		rss = max(rss, r)
		out, err := os.ReadFile(outPath)
		if err != nil {
			b.Fatal(err)
		}
		if got := bytes.Count(out, []byte("],[")) + 1; got != tuples {
			b.Fatalf("%d tuples printed, want %d", got, tuples)
		}
		tWrite += writeBytes(b, filepath.Join(dir, "write.json"), out)
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) / 1000 }
	b.ReportMetric(ms(tRun), "cli-ms")
	b.ReportMetric(ms(cRun), "cli-cpu-ms")
	b.ReportMetric(float64(rss)/float64(tuples), "peak-B/tuple")
	b.ReportMetric(float64(rss)/(1<<20), "peak-MiB")
	b.ReportMetric(ms(tWrite), "write-ms")
	b.ReportMetric(float64(tRun)/float64(tWrite), "cli-x-write")
	if baseBin != "" {
		b.ReportMetric(ms(tBase), "base-ms")
		b.ReportMetric(ms(cBase), "base-cpu-ms")
		b.ReportMetric(float64(cBase)/float64(cRun), "base-x-cli")
	}
}

// buildRevision builds cmd/ctxql at a git revision of the repository this
// benchmark runs in, in a detached worktree under dir, and returns the
// binary's path.
func buildRevision(b *testing.B, rev, dir string) string {
	wt := filepath.Join(dir, "baseline")
	add := exec.Command("git", "worktree", "add", "--detach", wt, rev)
	if out, err := add.CombinedOutput(); err != nil {
		b.Fatalf("git worktree add %s: %v\n%s", rev, err, out)
	}
	b.Cleanup(func() {
		exec.Command("git", "worktree", "remove", "--force", wt).Run()
	})
	bin := filepath.Join(dir, "ctxql-baseline")
	build := exec.Command("go", "build", "-o", bin, "./cmd/ctxql")
	build.Dir = wt
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build at %s: %v\n%s", rev, err, out)
	}
	return bin
}
