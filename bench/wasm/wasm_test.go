// Package wasm_test measures the WebAssembly build of ctxql's library
// (the npm package @ctxql/ctxql in Node) against the native library in
// the same run, on the benchmarks' large inputs: the PACT selections over
// the 1,000,000-node tree and the JQL query over 200,000 activities. It
// reports each ratio, the module's ready time in Node and the .wasm's
// gzipped size.
//
// Both sides do the same thing: a query evaluated on a loaded handle, its
// result as JSON text (api.Session.Call natively; in Node, the npm
// package's evaluate, which also parses that text into JavaScript
// values). WebAssembly runs on one thread; the native library uses
// GOMAXPROCS threads (JQL splits a Table's segments among them), so the
// native side runs twice, on one core (GOMAXPROCS 1: the same-thread
// comparison) and on two, and each ratio is printed against both. Beside
// the median wall time each side's least is printed (the evaluation least
// disturbed by other work on the machine), and each evaluation is also
// timed in CPU time (the Node process's, every thread, and its main
// thread's, on which the module runs; the native process's on one core),
// which moves less than the wall time on a loaded machine; the ratios of
// those are printed too.
package wasm_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxql/ctxql/api"
	"github.com/ctxql/ctxql/bench/internal/gen"
)

// pactQueries are the selections of bench/pact's BenchmarkSelect.
var pactQueries = map[string]string{
	"assistant": "^seq .mt .mc > .cb[role='assistant']",
	"ttl":       ".cb[ttl<=1]",
	"id":        "#cb:1500:2:77",
	"nth":       ".mc > .cb:nth(2)",
}

// jqlQuery is bench/jql's query.
const jqlQuery = `{from: 'activities', select: ['id', 'artifacts.command', 'artifacts.exitCode'],
 where: {sessionId: 's-42', type: 'progressUpdated', 'artifacts.exitCode': {neq: 0}}, order: 'desc', limit: 100}`

// runs is the number of timed evaluations of each query (the median is
// reported), after warmup untimed ones.
const (
	runs   = 9
	warmup = 10
)

// nodeResult is what bench.mjs prints.
type nodeResult struct {
	ReadyMs    float64             `json:"readyMs"`
	PACTLoadMs float64             `json:"pactLoadMs"`
	PACT       map[string]nodeTime `json:"pact"`
	JQLLoadMs  float64             `json:"jqlLoadMs"`
	JQL        nodeTime            `json:"jql"`
}

// nodeTime is one query's times in Node, in milliseconds: the median and
// the least wall time, the median CPU time of the process and of its main
// thread (NaN where unknown); and the number of results.
type nodeTime struct {
	Ms          float64 `json:"ms"`
	MinMs       float64 `json:"minMs"`
	CPUMs       float64 `json:"cpuMs"`
	ThreadCPUMs float64 `json:"threadCpuMs"`
	Results     int     `json:"results"`
}

// BenchmarkWASM builds and packs the npm package (scripts/npm-wasm), runs
// bench.mjs on it in Node and the same loads and evaluations natively, and
// prints the times and ratios.
func BenchmarkWASM(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skipf("needs node: %v", err)
	}
	dir := b.TempDir()
	pkg, wasm, gz := buildPackage(b, dir)

	pactJSON, _ := gen.PACTTree()
	pactPath := filepath.Join(dir, "tree.json")
	if err := os.WriteFile(pactPath, pactJSON, 0o644); err != nil {
		b.Fatal(err)
	}
	jqlPath := filepath.Join(dir, "activities.jsonl")
	f, err := os.Create(jqlPath)
	if err != nil {
		b.Fatal(err)
	}
	jqlSize, err := gen.Activities(f, 200_000)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	jqlBytes, err := os.ReadFile(jqlPath)
	if err != nil {
		b.Fatal(err)
	}

	for b.Loop() {
		var ready, imports []float64
		for range runs {
			out, err := exec.Command(node, "bench.mjs", pkg, "ready").Output()
			if err != nil {
				b.Fatalf("node bench.mjs ready: %v", err)
			}
			var r struct{ ReadyMs, ImportMs float64 }
			if err := json.Unmarshal(out, &r); err != nil {
				b.Fatalf("bench.mjs printed %s: %v", out, err)
			}
			ready, imports = append(ready, r.ReadyMs), append(imports, r.ImportMs)
		}
		slices.Sort(ready)
		slices.Sort(imports)
		qs, _ := json.Marshal(pactQueries)
		cmd := exec.Command(node, "bench.mjs", pkg, pactPath, jqlPath, fmt.Sprint(runs))
		cmd.Env = append(os.Environ(), "PACT_QUERIES="+string(qs), "JQL_QUERY="+jqlQuery, fmt.Sprintf("WARMUP=%d", warmup))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("node bench.mjs: %v\n%s", err, stderr.String())
		}
		var w nodeResult
		if err := json.Unmarshal(out, &w); err != nil {
			b.Fatalf("bench.mjs printed %s: %v", out, err)
		}

		s := api.NewSession("devel", "")
		ctx := context.Background()
		t0 := time.Now()
		pl, err := s.Load(ctx, api.LoadParams{Language: "pact", Bytes: pactJSON, Name: "tree.json"})
		if err != nil {
			b.Fatal(err)
		}
		pactLoad := time.Since(t0)
		fmt.Printf("load average %s\n", loadAverage())
		fmt.Printf("module ready in Node (await init(), %d fresh processes): median %.0f ms, min %.0f ms (the import before it: median %.0f ms); in the run below %.0f ms\n",
			runs, ready[len(ready)/2], ready[0], imports[len(imports)/2], w.ReadyMs)
		fmt.Printf("ctxql.wasm %d bytes, %d gzipped (%.2f MB)\n", len(wasm), gz.Len(), float64(gz.Len())/1e6)
		fmt.Printf("PACT load of %d MB: wasm %.0f ms, native %.0f ms, ratio %.1fx\n", len(pactJSON)>>20, w.PACTLoadMs, ms(pactLoad), w.PACTLoadMs/ms(pactLoad))
		for _, name := range []string{"assistant", "ttl", "id", "nth"} {
			t, n := native(b, s, pl.Handle, pactQueries[name], "v1")
			nw := w.PACT[name]
			if n != nw.Results {
				b.Fatalf("%s: native %d results, wasm %d", name, n, nw.Results)
			}
			fmt.Printf("PACT %-9s (%7d ids): %s\n", name, n, t.compare(nw))
			b.ReportMetric(nw.Ms/ms(t.two), "x-slower-pact-"+name)
			b.ReportMetric(nw.Ms/ms(t.one), "x-slower-1core-pact-"+name)
		}
		t0 = time.Now()
		jl, err := s.Load(ctx, api.LoadParams{Language: "jql", Bytes: jqlBytes, Name: "activities.jsonl"})
		if err != nil {
			b.Fatal(err)
		}
		jqlLoad := time.Since(t0)
		t, n := native(b, s, jl.Handle, jqlQuery, "")
		if n != w.JQL.Results {
			b.Fatalf("jql: native %d results, wasm %d", n, w.JQL.Results)
		}
		fmt.Printf("JQL load of %d activities (%d MB): wasm %.0f ms, native %.0f ms\n", 200_000, jqlSize>>20, w.JQLLoadMs, ms(jqlLoad))
		fmt.Printf("JQL query (%d results): %s\n", n, t.compare(w.JQL))
		fmt.Printf("load average %s\n", loadAverage())
		b.ReportMetric(w.JQL.Ms/ms(t.two), "x-slower-jql")
		b.ReportMetric(w.JQL.Ms/ms(t.one), "x-slower-1core-jql")
		b.ReportMetric(ready[len(ready)/2], "ready-ms")
		b.ReportMetric(float64(gz.Len()), "wasm-gz-bytes")
	}
}

// buildPackage builds and unpacks the npm package into dir with
// scripts/npm-wasm, and returns the package's directory, its .wasm and
// the .wasm gzipped.
func buildPackage(b *testing.B, dir string) (pkg string, wasm []byte, gz *bytes.Buffer) {
	b.Helper()
	build := exec.Command("bash", "scripts/npm-wasm", dir)
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("scripts/npm-wasm: %v\n%s", err, out)
	}
	tgz, _ := filepath.Glob(filepath.Join(dir, "ctxql-ctxql-*.tgz"))
	if len(tgz) != 1 {
		b.Fatalf("packed %v", tgz)
	}
	if out, err := exec.Command("tar", "-xzf", tgz[0], "-C", dir).CombinedOutput(); err != nil {
		b.Fatalf("tar: %v\n%s", err, out)
	}
	pkg = filepath.Join(dir, "package")
	var err error
	wasm, err = os.ReadFile(filepath.Join(pkg, "ctxql.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	// gzip -9 where there is one, as internal/pkgtest's TestWasmSize
	// measures the budget (compress/gzip compresses less).
	gz = new(bytes.Buffer)
	gzcmd := exec.Command("gzip", "-9", "-c")
	gzcmd.Stdin, gzcmd.Stdout = bytes.NewReader(wasm), gz
	if err := gzcmd.Run(); err != nil {
		gz.Reset()
		zw, _ := gzip.NewWriterLevel(gz, gzip.BestCompression)
		zw.Write(wasm)
		zw.Close()
	}

	return pkg, wasm, gz
}

// readyRuns is the number of fresh Node processes BenchmarkWASMReady
// starts for each measure.
const readyRuns = 15

// BenchmarkWASMReady measures the module's start alone: over fresh Node
// processes, the time from the import to the end of `await init()` and
// the process's CPU time (user and system, every thread: V8 validates and
// compiles on background threads), against an anchor in the same run, a
// Node process that imports nothing. The CPU time moves less than the
// wall time on a loaded machine.
func BenchmarkWASMReady(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skipf("needs node: %v", err)
	}
	pkg, wasm, gz := buildPackage(b, b.TempDir())
	for b.Loop() {
		var ready, cpu, bare []float64
		for range readyRuns {
			cmd := exec.Command(node, "bench.mjs", pkg, "ready")
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("node bench.mjs ready: %v", err)
			}
			var r struct{ ReadyMs float64 }
			if err := json.Unmarshal(out, &r); err != nil {
				b.Fatalf("bench.mjs printed %s: %v", out, err)
			}
			ready = append(ready, r.ReadyMs)
			cpu = append(cpu, ms(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()))
			anchor := exec.Command(node, "-e", "")
			if err := anchor.Run(); err != nil {
				b.Fatalf("node -e '': %v", err)
			}
			bare = append(bare, ms(anchor.ProcessState.UserTime()+anchor.ProcessState.SystemTime()))
		}
		slices.Sort(ready)
		slices.Sort(cpu)
		slices.Sort(bare)
		mid := readyRuns / 2
		fmt.Printf("load average %s\n", loadAverage())
		fmt.Printf("ctxql.wasm %d bytes, %d gzipped (%.2f MB)\n", len(wasm), gz.Len(), float64(gz.Len())/1e6)
		fmt.Printf("module ready in Node (await init(), %d fresh processes): median %.0f ms, min %.0f ms\n", readyRuns, ready[mid], ready[0])
		fmt.Printf("CPU time of the process: median %.0f ms; of a bare node process: median %.0f ms; the module's start: %.0f ms\n", cpu[mid], bare[mid], cpu[mid]-bare[mid])
		fmt.Printf("load average %s\n", loadAverage())
		b.ReportMetric(ready[mid], "ready-ms")
		b.ReportMetric(cpu[mid]-bare[mid], "start-cpu-ms")
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// loadAverage is the machine's load average over 1, 5 and 15 minutes, or
// "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// nativeTime is one query's native times: the median wall time on one
// core and on two, the least on one core, and the median CPU time on one
// core.
type nativeTime struct{ one, two, oneMin, oneCPU time.Duration }

// compare is the lines that set w's times beside t's.
func (t nativeTime) compare(w nodeTime) string {
	return fmt.Sprintf("wasm %.2f ms (least %.2f; CPU %.2f, main thread %.2f); native 1 core %.2f ms (least %.2f; CPU %.2f); 2 cores %.2f ms\n"+
		"    ratios: against 1 core %.2fx (least %.2fx, CPU %.2fx, main thread's CPU %.2fx); against 2 cores %.2fx",
		w.Ms, w.MinMs, w.CPUMs, w.ThreadCPUMs, ms(t.one), ms(t.oneMin), ms(t.oneCPU), ms(t.two),
		w.Ms/ms(t.one), w.MinMs/ms(t.oneMin), w.CPUMs/ms(t.oneCPU), w.ThreadCPUMs/ms(t.oneCPU), w.Ms/ms(t.two))
}

// native times runs evaluations of q on handle h, as the npm package's
// evaluate calls them (api.Session.Call: JSON parameters, the result as
// JSON text), on one core (GOMAXPROCS 1) and on two, and returns the
// number of results. The first warmup evaluations, which build what later
// ones reuse, are not timed (nor are bench.mjs's).
func native(b *testing.B, s *api.Session, h int, q, dialect string) (t nativeTime, n int) {
	params, _ := json.Marshal(api.EvaluateParams{Handle: h, Query: q, EvalOptions: api.EvalOptions{Dialect: dialect}})
	eval := func() json.RawMessage {
		res, aerr := s.Call(context.Background(), "evaluate", params)
		if aerr != nil {
			b.Fatal(aerr)
		}
		return res
	}
	var v []json.RawMessage
	if err := json.Unmarshal(eval(), &v); err != nil {
		b.Fatal(err)
	}
	for range warmup - 1 {
		eval()
	}
	median := func(procs int) (wall, least, cpu time.Duration) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var ds, cs []time.Duration
		for range runs {
			c0 := cpuTime()
			t0 := time.Now()
			eval()
			ds = append(ds, time.Since(t0))
			cs = append(cs, cpuTime()-c0)
		}
		slices.Sort(ds)
		slices.Sort(cs)
		return ds[len(ds)/2], ds[0], cs[len(cs)/2]
	}
	t.one, t.oneMin, t.oneCPU = median(1)
	t.two, _, _ = median(2)
	return t, len(v)
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
