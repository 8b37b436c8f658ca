package jql_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"

	"github.com/ctxql/ctxql/bench/internal/gen"
	evaljql "github.com/ctxql/ctxql/eval/jql"
)

// benchQuery is the benchmarked JQL query; benchJQ is the equivalent jq
// program (newest first, limit 100, the same projection).
const benchQuery = `{from: 'activities', select: ['id', 'artifacts.command', 'artifacts.exitCode'],
 where: {sessionId: 's-42', type: 'progressUpdated', 'artifacts.exitCode': {neq: 0}}, order: 'desc', limit: 100}`

const benchJQ = `[inputs | select(.sessionId == "s-42" and .type == "progressUpdated" and any(.artifacts[]?; has("exitCode") and .exitCode != 0))]
 | sort_by(.createTime, .id) | reverse | .[:100][]
 | {id, artifacts: [.artifacts[]? | {command, exitCode} | with_entries(select(.value != null))]}`

// generate writes n activities (gen.Activities) as JSON Lines to path and
// returns the file's size.
func generate(tb testing.TB, path string, n int) int64 {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	size, err := gen.Activities(f, n)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tb.Fatal(err)
	}
	return size
}

// lineIter feeds gojq's inputs from a JSON stream.
type lineIter struct{ dec *json.Decoder }

func (it *lineIter) Next() (any, bool) {
	var v any
	if err := it.dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, false
		}
		return err, true
	}
	return v, true
}

func runGojq(tb testing.TB, path string) []string {
	q, err := gojq.Parse(benchJQ)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	code, err := gojq.Compile(q, gojq.WithInputIter(&lineIter{json.NewDecoder(bufio.NewReaderSize(f, 1<<20))}))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	it := code.Run(nil)
	for {
		v, ok := it.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			tb.Fatal(err)
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// gojqDriver is a minimal gojq command line (`gojq -n -c PROGRAM FILE`)
// built from the gojq module; the module's own cmd/gojq needs modules this
// project does not carry.
const gojqDriver = `package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/itchyny/gojq"
)

type iter struct{ dec *json.Decoder }

func (it *iter) Next() (any, bool) {
	var v any
	if err := it.dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, false
		}
		return err, true
	}
	return v, true
}

func main() {
	q, err := gojq.Parse(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code, err := gojq.Compile(q, gojq.WithInputIter(&iter{json.NewDecoder(bufio.NewReaderSize(f, 1<<20))}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	it := code.Run(nil)
	for {
		v, ok := it.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(5)
		}
		b, _ := json.Marshal(v)
		w.Write(append(b, '\n'))
	}
}
`

func buildBinaries(b *testing.B, dir string) (ctxql, gojqBin string) {
	ctxql = filepath.Join(dir, "ctxql")
	// Build from the ctxql module itself, with its own dependency set.
	build := exec.Command("go", "build", "-o", ctxql, "./cmd/ctxql")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build ctxql: %v\n%s", err, out)
	}
	mod := filepath.Join(dir, "gojqdriver")
	os.MkdirAll(mod, 0o755)
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module gojqdriver\n\ngo 1.26\n\nrequire github.com/itchyny/gojq v0.12.20\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "main.go"), []byte(gojqDriver), 0o644)
	// The benchmark module's go.sum holds gojq's hashes: with it the
	// driver builds from the module cache without asking the checksum
	// database.
	if sum, err := os.ReadFile(filepath.Join("..", "go.sum")); err == nil {
		os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644)
	}
	gojqBin = filepath.Join(dir, "gojq")
	cmd := exec.Command("go", "build", "-o", gojqBin, ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Logf("build gojq driver: %v\n%s", err, out)
		return ctxql, ""
	}
	return ctxql, gojqBin
}

// runProc runs a command and returns its stdout, wall time and peak RSS in
// bytes. The peak is the process's own resident high-water mark (VmHWM),
// polled from /proc every 2 ms while it runs. ProcessState.SysUsage's Maxrss
// is not usable on Linux: a child started with clone(CLONE_VM) and exec
// inherits the parent's high-water mark, so it reports the test process.
func runProc(b *testing.B, name string, args ...string) (string, time.Duration, int64) {
	cmd := exec.Command(name, args...)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	done := make(chan struct{})
	hwm := make(chan int64, 1)
	go func() {
		var peak int64
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		for {
			if data, err := os.ReadFile(status); err == nil {
				for _, l := range strings.Split(string(data), "\n") {
					if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
						if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
							peak = max(peak, kb*1024)
						}
					}
				}
			}
			select {
			case <-done:
				hwm <- peak
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	d := time.Since(start)
	close(done)
	peak := <-hwm
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return out.String(), d, peak
}

func ids(docs []string) []string {
	var out []string
	for _, d := range docs {
		var v struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(d), &v)
		out = append(out, v.ID)
	}
	return out
}

// BenchmarkActivities runs the query over JQL_BENCH_N (default 1,000,000)
// generated activities in JSON Lines, in-process against gojq and end to end
// (ctxql binary against a gojq binary), and prints the ratios and the peak
// RSS of each process. Run with -benchtime=1x.
func BenchmarkActivities(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("JQL_BENCH_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "activities.jsonl")
	size := generate(b, path, n)
	b.Logf("generated %d activities, %d bytes", n, size)
	ctxqlBin, gojqBin := buildBinaries(b, dir)

	var jqlDocs []string
	var tJQL, tGojq time.Duration
	b.Run("ctxql-inprocess", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			res, err := evaljql.Eval(context.Background(), benchQuery, evaljql.File{Path: path})
			if err != nil {
				b.Fatal(err)
			}
			jqlDocs = jqlDocs[:0]
			for _, d := range res.Docs {
				jqlDocs = append(jqlDocs, string(d))
			}
		}
		tJQL = time.Since(start) / time.Duration(b.N)
	})
	var jqDocs []string
	b.Run("gojq-inprocess", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			jqDocs = runGojq(b, path)
		}
		tGojq = time.Since(start) / time.Duration(b.N)
	})
	if !slices.Equal(ids(jqlDocs), ids(jqDocs)) || len(jqlDocs) == 0 {
		b.Fatalf("results differ: ctxql %d docs, gojq %d docs", len(jqlDocs), len(jqDocs))
	}
	fmt.Printf("in-process: ctxql %v, gojq %v, ratio %.1fx (%d results)\n", tJQL, tGojq, float64(tGojq)/float64(tJQL), len(jqlDocs))
	b.ReportMetric(float64(tGojq)/float64(tJQL), "x-vs-gojq-inprocess")

	var eJQL, eGojq time.Duration
	var rJQL, rGojq int64
	b.Run("ctxql-e2e", func(b *testing.B) {
		for range b.N {
			out, d, rss := runProc(b, ctxqlBin, "eval", "jql", "--data", path, benchQuery)
			var docs []json.RawMessage
			if err := json.Unmarshal([]byte(out), &docs); err != nil || len(docs) != len(jqlDocs) {
				b.Fatalf("ctxql output: %v, %d docs", err, len(docs))
			}
			eJQL += d
			rJQL = max(rJQL, rss)
		}
		eJQL /= time.Duration(b.N)
	})
	if gojqBin == "" {
		fmt.Printf("end to end: ctxql %v, peak RSS %d MB (file %d MB); gojq driver not built\n", eJQL, rJQL>>20, size>>20)
		return
	}
	b.Run("gojq-e2e", func(b *testing.B) {
		for range b.N {
			out, d, rss := runProc(b, gojqBin, benchJQ, path)
			if got := strings.Count(out, "\n"); got != len(jqlDocs) {
				b.Fatalf("gojq output: %d docs", got)
			}
			eGojq += d
			rGojq = max(rGojq, rss)
		}
		eGojq /= time.Duration(b.N)
	})
	fmt.Printf("end to end: ctxql %v (peak RSS %.1f MB), gojq %v (peak RSS %.1f MB), ratio %.1fx; file %d MB, %d activities, GOMAXPROCS %d\n",
		eJQL, float64(rJQL)/(1<<20), eGojq, float64(rGojq)/(1<<20), float64(eGojq)/float64(eJQL), size>>20, n, runtime.GOMAXPROCS(0))
	b.ReportMetric(float64(eGojq)/float64(eJQL), "x-vs-gojq-e2e")
	b.ReportMetric(float64(rJQL)/float64(size), "rss/filesize")
}
