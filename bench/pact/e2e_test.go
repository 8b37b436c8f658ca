package pact_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ctxql/ctxql/bench/internal/gen"
)

// cascadiaDriver is the end-to-end anchor: a command that reads an HTML
// file, parses it with golang.org/x/net/html, compiles a CSS selector with
// cascadia, matches it and prints the id attributes of the matches as a
// JSON array, as `ctxql eval pact` prints node ids.
const cascadiaDriver = `package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	doc, err := html.Parse(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sel, err := cascadia.Compile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ids := []string{}
	for _, n := range sel.MatchAll(doc) {
		for _, a := range n.Attr {
			if a.Key == "id" {
				ids = append(ids, a.Val)
			}
		}
	}
	w := bufio.NewWriter(os.Stdout)
	json.NewEncoder(w).Encode(ids)
	w.Flush()
}
`

// buildE2E builds the ctxql binary from the main module and the cascadia
// driver from the benchmark module's dependency set, into dir.
func buildE2E(b *testing.B, dir string) (ctxql, anchor string) {
	ctxql = filepath.Join(dir, "ctxql")
	build := exec.Command("go", "build", "-o", ctxql, "./cmd/ctxql")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build ctxql: %v\n%s", err, out)
	}
	mod := filepath.Join(dir, "cascadiadriver")
	os.MkdirAll(mod, 0o755)
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module cascadiadriver\n\ngo 1.26\n\nrequire (\n\tgithub.com/andybalholm/cascadia v1.3.5\n\tgolang.org/x/net v0.62.0\n)\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "main.go"), []byte(cascadiaDriver), 0o644)
	// The benchmark module's go.sum holds the hashes: the driver builds
	// from the module cache without asking the checksum database.
	if sum, err := os.ReadFile(filepath.Join("..", "go.sum")); err == nil {
		os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644)
	}
	anchor = filepath.Join(dir, "cascadia")
	cmd := exec.Command("go", "build", "-o", anchor, ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build cascadia driver: %v\n%s", err, out)
	}
	return ctxql, anchor
}

// run runs a command and returns its stdout, wall time and CPU time (user
// and system).
func run(b *testing.B, name string, args ...string) ([]byte, time.Duration, time.Duration) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v", name, args, err)
	}
	return out, d, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkE2E runs, as whole processes, `ctxql eval pact --dialect v1`
// over the generated tree's JSON (about 1,000,000 nodes, 87 MB) and, as the
// anchor, a small Go command that parses the same tree rendered as HTML
// (50 MB) with golang.org/x/net/html and matches the equivalent CSS
// selector with cascadia (both built in the same run): load, select and
// print. Both must print the same ids in the same order (checked before
// any timing); the runs alternate, PACT_E2E_REPS times each (default 5),
// and the medians of wall and CPU time and their ratios are printed
// (ctxql / cascadia: below 1, ctxql is faster).
func BenchmarkE2E(b *testing.B) {
	reps := 5
	if s := os.Getenv("PACT_E2E_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	js, hs := gen.PACTTree()
	jsonPath, htmlPath := filepath.Join(dir, "tree.json"), filepath.Join(dir, "tree.html")
	if err := os.WriteFile(jsonPath, js, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(htmlPath, hs, 0o644); err != nil {
		b.Fatal(err)
	}
	ctxql, anchor := buildE2E(b, dir)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("tree: %.1f MB JSON, %.1f MB HTML; load average %s", float64(len(js))/1e6, float64(len(hs))/1e6, load)
	fmt.Println("selector   | ids | ctxql wall | cascadia wall | ratio | ctxql CPU | cascadia CPU | ratio")
	var sumC, sumA, sumCC, sumAC time.Duration
	for b.Loop() {
		for _, sc := range selectCases {
			var wc, wa, cc, ca []time.Duration
			var n int
			for i := range reps + 1 {
				outC, dC, cpuC := run(b, ctxql, "eval", "pact", "--dialect", "v1", "--data", jsonPath, sc.pact)
				outA, dA, cpuA := run(b, anchor, htmlPath, sc.css)
				if i == 0 {
					// The first pair checks the ids and warms the page cache.
					var idsC, idsA []string
					if err := json.Unmarshal(outC, &idsC); err != nil {
						b.Fatalf("%s: ctxql output: %v", sc.name, err)
					}
					if err := json.Unmarshal(outA, &idsA); err != nil {
						b.Fatalf("%s: cascadia output: %v", sc.name, err)
					}
					if !slices.Equal(idsC, idsA) {
						b.Fatalf("%s: ctxql returns %d ids, cascadia %d, or another order", sc.name, len(idsC), len(idsA))
					}
					n = len(idsC)
					continue
				}
				wc, wa, cc, ca = append(wc, dC), append(wa, dA), append(cc, cpuC), append(ca, cpuA)
			}
			mc, ma, mcc, mac := medianOf(wc), medianOf(wa), medianOf(cc), medianOf(ca)
			sumC, sumA, sumCC, sumAC = sumC+mc, sumA+ma, sumCC+mcc, sumAC+mac
			fmt.Printf("%-10s | %6d | %7.1f ms | %7.1f ms | %.3f | %7.1f ms | %7.1f ms | %.3f\n", sc.name, n,
				ms(mc), ms(ma), float64(mc)/float64(ma), ms(mcc), ms(mac), float64(mcc)/float64(mac))
			b.ReportMetric(float64(mc)/float64(ma), sc.name+"-x-cascadia")
		}
	}
	fmt.Printf("all four  | wall ratio %.3f | CPU ratio %.3f\n", float64(sumC)/float64(sumA), float64(sumCC)/float64(sumAC))
	b.ReportMetric(float64(sumC)/float64(sumA), "x-cascadia")
	b.ReportMetric(float64(sumCC)/float64(sumAC), "cpu-x-cascadia")
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("load average at the end: %s", load)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
