package jql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	evaljql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/ostest"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// loadedQueries are the queries of BenchmarkLoaded: the bar query and two
// full scans (no equality to pre-filter the bytes on). bench/duckdb/jql.mjs
// holds their SQL under the same names.
var loadedQueries = []struct{ name, src string }{
	{"bar", benchQuery},
	{"timeExit", `{from: 'activities', select: ['id', 'type', 'createTime'],
 where: {createTime: {gte: '2024-01-02T00:00:00Z'}, 'artifacts.exitCode': {gt: 1}}, order: 'desc', limit: 100}`},
	{"contains", `{from: 'activities', select: ['id', 'type', 'createTime'],
 where: {message: {contains: 'READY FOR REVIEW'}}, order: 'desc', limit: 100}`},
}

// duckResult is what bench/duckdb/jql.mjs prints.
type duckResult struct {
	Version  string                        `json:"version"`
	Rows     map[string][]string           `json:"rows"`
	Prebuilt map[string]map[string]float64 `json:"prebuilt"`
	E2E      map[string]map[string]float64 `json:"e2e"`
	LoadMs   map[string]float64            `json:"loadMs"`
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ctxqlTimes is one block of ctxql measurements of one query.
type ctxqlTimes struct {
	first, warm1, warm2 []time.Duration
	// stream1 and stream2 are the one-shot streaming evaluation over the
	// file with GOMAXPROCS (and workers) 1 and 2, cpu1 and cpu2 their CPU
	// times.
	stream1, stream2, scpu1, scpu2 []time.Duration
	// shuf1 and shuf2 are the warm evaluation with 1 and 2 workers on a
	// Table of the same documents stored in random order.
	shuf1, shuf2 []time.Duration
	// e2e1 and e2e2 are the binary end to end with GOMAXPROCS 1 and 2.
	e2e1, e2e2 []time.Duration
	ids        []string
}

// shuffleLines writes the lines of src to dst in a random (seeded) order.
func shuffleLines(tb testing.TB, src, dst string) {
	data, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	r := rand.New(rand.NewPCG(3, 4))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	if err := os.WriteFile(dst, bytes.Join(lines, nil), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkLoaded measures the JQL queries on data loaded in memory (a
// Table, warm columns) with 1 and 2 workers, the same on a Table of the
// documents stored in random order (where the scan in the order's
// direction stops nothing early: every document is tested), the first
// query on a fresh Table (the bar query scans the bytes, the full scans
// build their columns), the one-shot streaming evaluation (the path of
// `ctxql eval jql`) with GOMAXPROCS 1 and 2, the load, and the ctxql
// binary end to end with GOMAXPROCS 1 and 2; and, in the same run, DuckDB through npm
// @duckdb/node-api (bench/duckdb, `npm ci` there first) with 1 and 2
// threads on a prebuilt table and straight from the file. The ctxql block
// runs before and after DuckDB and the medians of both count. Every engine
// must return the same ids in the same order. JQL_BENCH_N activities
// (default 200,000), JQL_BENCH_REPS repetitions (default 7). Run with
// -benchtime=1x.
func BenchmarkLoaded(b *testing.B) {
	n, reps := 200_000, 7
	if s := os.Getenv("JQL_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("JQL_BENCH_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "activities.jsonl")
	size := generate(b, path, n)
	shufPath := filepath.Join(dir, "shuffled.jsonl")
	shuffleLines(b, path, shufPath)
	ctxqlBin, _ := buildBinaries(b, dir)
	ctx := context.Background()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d activities, %.1f MB, GOMAXPROCS %d, load average %s", n, float64(size)/1e6, runtime.GOMAXPROCS(0), load)

	parsed := make([]*syn.Query, len(loadedQueries))
	for i, q := range loadedQueries {
		pq, ds := syn.ParseQuery(q.src)
		if len(ds) > 0 {
			b.Fatalf("%s: %v", q.name, ds)
		}
		parsed[i] = pq
	}
	idsOf := func(res *evaljql.Result) []string {
		var out []string
		for _, d := range res.Docs {
			var v struct{ ID string }
			json.Unmarshal(d, &v)
			out = append(out, v.ID)
		}
		return out
	}
	var cpu1, cpu2 time.Duration // CPU time of the warm evaluations with 1 and 2 workers
	eval := func(q *syn.Query, src evaljql.Source, workers int) (time.Duration, []string) {
		c0 := processCPU(b)
		start := time.Now()
		res, err := evaljql.EvalQueryOptions(ctx, q, nil, src, evaljql.Options{Workers: workers})
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		switch workers {
		case 1:
			cpu1 += processCPU(b) - c0
		case 2:
			cpu2 += processCPU(b) - c0
		}
		return d, idsOf(res)
	}
	times := make([]ctxqlTimes, len(loadedQueries))
	var loads []time.Duration
	var scpu1, scpu2 time.Duration // CPU of the warm evaluations on the shuffled Table
	// stream runs the one-shot evaluation over the file as `ctxql eval
	// jql` does, with GOMAXPROCS procs (its default number of workers).
	stream := func(q *syn.Query, procs int) (time.Duration, time.Duration, []string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c0 := processCPU(b)
		start := time.Now()
		res, err := evaljql.EvalQueryOptions(ctx, q, nil, evaljql.File{Path: path}, evaljql.Options{})
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		return d, processCPU(b) - c0, idsOf(res)
	}
	block := func() {
		for range max(1, reps/3) {
			start := time.Now()
			t, err := evaljql.Load(ctx, evaljql.File{Path: path})
			if err != nil {
				b.Fatal(err)
			}
			loads = append(loads, time.Since(start))
			for i, q := range parsed {
				d, ids := eval(q, t, 0)
				times[i].first = append(times[i].first, d)
				if times[i].ids == nil {
					times[i].ids = ids
				} else if !slices.Equal(ids, times[i].ids) {
					b.Fatalf("%s: ids differ between runs", loadedQueries[i].name)
				}
			}
			for i, q := range parsed {
				// The query after the first builds the columns a first
				// query with an equality leaves unbuilt.
				eval(q, t, 0)
				for range reps {
					d1, ids1 := eval(q, t, 1)
					d2, ids2 := eval(q, t, 2)
					if !slices.Equal(ids1, times[i].ids) || !slices.Equal(ids2, times[i].ids) {
						b.Fatalf("%s: 1 and 2 workers differ", loadedQueries[i].name)
					}
					times[i].warm1 = append(times[i].warm1, d1)
					times[i].warm2 = append(times[i].warm2, d2)
				}
			}
			t = nil
			shuf, err := evaljql.Load(ctx, evaljql.File{Path: shufPath})
			if err != nil {
				b.Fatal(err)
			}
			k1, k2 := cpu1, cpu2 // the shuffled Table's CPU counts apart
			for i, q := range parsed {
				eval(q, shuf, 0)
				eval(q, shuf, 0)
				for range reps {
					c0 := processCPU(b)
					d1, ids1 := eval(q, shuf, 1)
					c1 := processCPU(b)
					d2, ids2 := eval(q, shuf, 2)
					scpu1 += c1 - c0
					scpu2 += processCPU(b) - c1
					if !slices.Equal(ids1, times[i].ids) || !slices.Equal(ids2, times[i].ids) {
						b.Fatalf("%s: the shuffled Table's result differs", loadedQueries[i].name)
					}
					times[i].shuf1 = append(times[i].shuf1, d1)
					times[i].shuf2 = append(times[i].shuf2, d2)
				}
			}
			cpu1, cpu2 = k1, k2
			shuf = nil
			runtime.GC()
			for i, q := range parsed {
				for range max(1, reps/2) {
					d1, c1, ids1 := stream(q, 1)
					d2, c2, ids2 := stream(q, 2)
					if !slices.Equal(ids1, times[i].ids) || !slices.Equal(ids2, times[i].ids) {
						b.Fatalf("%s: streaming and loaded differ", loadedQueries[i].name)
					}
					times[i].stream1 = append(times[i].stream1, d1)
					times[i].stream2 = append(times[i].stream2, d2)
					times[i].scpu1 = append(times[i].scpu1, c1)
					times[i].scpu2 = append(times[i].scpu2, c2)
				}
			}
		}
		for i, q := range loadedQueries {
			for range 3 {
				for _, procs := range []int{1, 2} {
					start := time.Now()
					cmd := exec.Command(ctxqlBin, "eval", "jql", "--data", path, q.src)
					cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
					out, err := cmd.Output()
					if err != nil {
						b.Fatal(err)
					}
					d := time.Since(start)
					var docs []struct{ ID string }
					if err := json.Unmarshal(out, &docs); err != nil || len(docs) != len(times[i].ids) {
						b.Fatalf("%s: binary output: %v", q.name, err)
					}
					if procs == 1 {
						times[i].e2e1 = append(times[i].e2e1, d)
					} else {
						times[i].e2e2 = append(times[i].e2e2, d)
					}
				}
			}
		}
	}
	duck := func() *duckResult {
		script, _ := filepath.Abs(filepath.Join("..", "duckdb", "jql.mjs"))
		if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@duckdb", "node-api")); err != nil {
			fmt.Println("DuckDB: bench/duckdb/node_modules missing (run `npm ci` in bench/duckdb); not measured")
			return nil
		}
		cmd := exec.Command("node", script, path, strconv.Itoa(reps))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			fmt.Printf("DuckDB: %v; not measured\n", err)
			return nil
		}
		var r duckResult
		if err := json.Unmarshal(out, &r); err != nil {
			b.Fatalf("DuckDB output: %v", err)
		}
		return &r
	}
	block()
	dr := duck()
	block()

	fmt.Printf("ctxql load (read + split into documents): %.1f ms (%.0f MB/s)\n", ms(median(loads)), float64(size)/1e6/median(loads).Seconds())
	if dr != nil {
		fmt.Printf("DuckDB %s: CREATE TABLE from the file %.0f ms (1 thread), %.0f ms (2 threads)\n", dr.Version, dr.LoadMs["1"], dr.LoadMs["2"])
	}
	fmt.Println("query     | rows | ctxql loaded 1w | 2w | 2w speed-up | first query | binary e2e 2 procs | DuckDB prebuilt 1t | 2t | ratio 1w/1t | 2w/2t | DuckDB e2e 1t | 2t | ratio e2e/2t")
	for i, q := range loadedQueries {
		t := times[i]
		w1, w2 := median(t.warm1), median(t.warm2)
		e2e := median(t.e2e2)
		line := fmt.Sprintf("%-9s | %4d | %7.2f ms | %7.2f ms | %.2fx | %7.1f ms | %7.1f ms", q.name, len(t.ids),
			ms(w1), ms(w2), float64(w1)/float64(w2), ms(median(t.first)), ms(e2e))
		if dr != nil {
			if !slices.Equal(dr.Rows[q.name], t.ids) {
				b.Fatalf("%s: DuckDB returns other rows (%d) than ctxql (%d)", q.name, len(dr.Rows[q.name]), len(t.ids))
			}
			p1, p2 := dr.Prebuilt[q.name]["1"], dr.Prebuilt[q.name]["2"]
			e1, e2 := dr.E2E[q.name]["1"], dr.E2E[q.name]["2"]
			line += fmt.Sprintf(" | %7.2f ms | %7.2f ms | %.2f | %.2f | %7.1f ms | %7.1f ms | %.2f",
				p1, p2, ms(w1)/p1, ms(w2)/p2, e1, e2, ms(e2e)/e2)
			b.ReportMetric(ms(w1)/p1, q.name+"-ratio-1w/duck-1t")
		}
		fmt.Println(line)
		b.ReportMetric(float64(w1)/float64(w2), q.name+"-speedup-2w")
	}
	fmt.Println("ratio: ctxql time / DuckDB time (< 1: ctxql faster)")
	fmt.Println("query     | shuffled Table 1w | 2w | speed-up | stream (one-shot) 1 proc | 2 procs | speed-up | CPU 1 proc | 2 procs | binary e2e 1 proc | 2 procs | speed-up")
	for i, q := range loadedQueries {
		t := times[i]
		s1, s2 := median(t.shuf1), median(t.shuf2)
		o1, o2 := median(t.stream1), median(t.stream2)
		b1, b2 := median(t.e2e1), median(t.e2e2)
		fmt.Printf("%-9s | %7.2f ms | %7.2f ms | %.2fx | %7.1f ms | %7.1f ms | %.2fx | %7.1f ms | %7.1f ms | %7.1f ms | %7.1f ms | %.2fx\n", q.name,
			ms(s1), ms(s2), float64(s1)/float64(s2), ms(o1), ms(o2), float64(o1)/float64(o2),
			ms(median(t.scpu1)), ms(median(t.scpu2)), ms(b1), ms(b2), float64(b1)/float64(b2))
		b.ReportMetric(float64(s1)/float64(s2), q.name+"-shuffled-speedup-2w")
		b.ReportMetric(float64(o1)/float64(o2), q.name+"-stream-speedup-2p")
	}
	// On a machine whose cores are busy the wall times of 2 workers say
	// little; the CPU time says whether splitting the scan costs work.
	fmt.Printf("CPU time of the warm evaluations: 1 worker %.0f ms, 2 workers %.0f ms (ratio %.2f: 1.00 means the split adds no work); shuffled Table %.0f ms, %.0f ms (%.2f)\n",
		ms(cpu1), ms(cpu2), float64(cpu2)/float64(cpu1), ms(scpu1), ms(scpu2), float64(scpu2)/float64(scpu1))
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("load average at the end: %s", load)
}

// processCPU returns the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	d, err := ostest.CPUTime()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
