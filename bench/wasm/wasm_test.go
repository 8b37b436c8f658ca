// Package wasm_test measures the WebAssembly build of ctxql's library
// (the npm package @ctxql/ctxql in Node) against the native library in
// the same run, on the benchmarks' large inputs: the PACT selections over
// the 1,000,000-node tree and the JQL query over 200,000 activities. It
// reports each ratio, the module's ready time in Node and the .wasm's
// gzipped size.
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
	"slices"
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

const runs = 5

// nodeResult is what bench.mjs prints.
type nodeResult struct {
	ReadyMs    float64 `json:"readyMs"`
	PACTLoadMs float64 `json:"pactLoadMs"`
	PACT       map[string]struct {
		Ms      float64 `json:"ms"`
		Results int     `json:"results"`
	} `json:"pact"`
	JQLLoadMs float64 `json:"jqlLoadMs"`
	JQL       struct {
		Ms      float64 `json:"ms"`
		Results int     `json:"results"`
	} `json:"jql"`
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
	pkg := filepath.Join(dir, "package")
	wasm, err := os.ReadFile(filepath.Join(pkg, "ctxql.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	zw.Close()

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
		qs, _ := json.Marshal(pactQueries)
		cmd := exec.Command(node, "bench.mjs", pkg, pactPath, jqlPath, fmt.Sprint(runs))
		cmd.Env = append(os.Environ(), "PACT_QUERIES="+string(qs), "JQL_QUERY="+jqlQuery)
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
		fmt.Printf("module ready in Node: %.0f ms; ctxql.wasm %d bytes, %d gzipped (%.2f MB)\n", w.ReadyMs, len(wasm), gz.Len(), float64(gz.Len())/1e6)
		fmt.Printf("PACT load of %d MB: wasm %.0f ms, native %.0f ms, ratio %.1fx\n", len(pactJSON)>>20, w.PACTLoadMs, ms(pactLoad), w.PACTLoadMs/ms(pactLoad))
		for _, name := range []string{"assistant", "ttl", "id", "nth"} {
			d, n := native(b, s, pl.Handle, pactQueries[name], "v1")
			nw := w.PACT[name]
			if n != nw.Results {
				b.Fatalf("%s: native %d results, wasm %d", name, n, nw.Results)
			}
			fmt.Printf("PACT %-9s (%7d ids): wasm %8.2f ms, native %8.2f ms, ratio %.1fx\n", name, n, nw.Ms, ms(d), nw.Ms/ms(d))
			b.ReportMetric(nw.Ms/ms(d), "x-slower-pact-"+name)
		}
		t0 = time.Now()
		jl, err := s.Load(ctx, api.LoadParams{Language: "jql", Bytes: jqlBytes, Name: "activities.jsonl"})
		if err != nil {
			b.Fatal(err)
		}
		jqlLoad := time.Since(t0)
		d, n := native(b, s, jl.Handle, jqlQuery, "")
		if n != w.JQL.Results {
			b.Fatalf("jql: native %d results, wasm %d", n, w.JQL.Results)
		}
		fmt.Printf("JQL load of %d activities (%d MB): wasm %.0f ms, native %.0f ms\n", 200_000, jqlSize>>20, w.JQLLoadMs, ms(jqlLoad))
		fmt.Printf("JQL query (%d results): wasm %.1f ms, native %.1f ms, ratio %.1fx\n", n, w.JQL.Ms, ms(d), w.JQL.Ms/ms(d))
		b.ReportMetric(w.JQL.Ms/ms(d), "x-slower-jql")
		b.ReportMetric(w.ReadyMs, "ready-ms")
		b.ReportMetric(float64(gz.Len()), "wasm-gz-bytes")
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// native is the median time of runs evaluations of q on handle h, and the
// number of results.
func native(b *testing.B, s *api.Session, h int, q, dialect string) (time.Duration, int) {
	var ds []time.Duration
	n := 0
	for range runs {
		t0 := time.Now()
		res, err := s.Evaluate(context.Background(), api.EvaluateParams{Handle: h, Query: q, EvalOptions: api.EvalOptions{Dialect: dialect}})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		var v []json.RawMessage
		if err := json.Unmarshal(res.(json.RawMessage), &v); err != nil {
			b.Fatal(err)
		}
		n = len(v)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], n
}
