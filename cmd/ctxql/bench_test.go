package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// corpusBytes is the size of each generated corpus.
const corpusBytes = 50 << 20

// writeQueryCorpus writes about corpusBytes of .pact, .jql and .dl files
// (a third each, 256 KB per file) into dir, every file formatted except
// for one line in twenty, and returns the number of bytes written.
func writeQueryCorpus(b *testing.B, dir string) int64 {
	b.Helper()
	var total int64
	gens := []struct {
		ext  string
		line func(i int) string
	}{
		{".pact", func(i int) string {
			switch i % 20 {
			case 0:
				return fmt.Sprintf(".seg>.note[ttl<=%d]", i%5)
			case 1:
				return fmt.Sprintf("// note %d", i)
			}
			return fmt.Sprintf("@t0 ^seq .mt .mc > .cb[role='assistant'][ttl<=%d] { author=\"u%d\" } @limit=%d", i%5, i%97, 1+i%50)
		}},
		{".dl", func(i int) string {
			if i%20 == 0 {
				return fmt.Sprintf("p%d(x,y)<--edge(x,y);", i)
			}
			return fmt.Sprintf("p%d(x, z) <-- edge(x, y), edge(y, z), if x != z;", i)
		}},
	}
	file := 0
	for total < corpusBytes {
		for _, g := range gens {
			var sb strings.Builder
			if g.ext == ".dl" {
				sb.WriteString("relation edge(i32, i32);\n")
			}
			for i := 0; sb.Len() < 256<<10; i++ {
				sb.WriteString(g.line(i))
				sb.WriteByte('\n')
			}
			p := filepath.Join(dir, fmt.Sprintf("f%05d%s", file, g.ext))
			if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			total += int64(sb.Len())
		}
		// A JQL file: one query.
		q := fmt.Sprintf("{\"from\": \"activities\", \"select\": [\"id\", \"artifacts.exitCode\"], \"where\": {\"type\": \"progressUpdated\", \"createTime\": {\"gte\": \"2024-01-%02dT00:00:00Z\"}}, \"limit\": 10}\n", 1+file%28)
		p := filepath.Join(dir, fmt.Sprintf("q%05d.jql", file))
		if err := os.WriteFile(p, []byte(q), 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(q))
		file++
	}
	return total
}

// copyGoCorpus copies .go files of GOROOT/src into dir until about
// corpusBytes, and returns the number of bytes copied.
func copyGoCorpus(b *testing.B, dir string) int64 {
	b.Helper()
	var total int64
	src := filepath.Join(runtime.GOROOT(), "src")
	errDone := fmt.Errorf("done")
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("g%06d.go", n)), data, 0o644); err != nil {
			return err
		}
		total += int64(len(data))
		if total >= corpusBytes {
			return errDone
		}
		return nil
	})
	if err != nil && err != errDone {
		b.Fatal(err)
	}
	return total
}

// BenchmarkVsGofmt runs, in the same iteration, `ctxql check` and
// `ctxql fmt --check` over a generated 50 MB corpus of PACT, JQL and
// Datalog files and `gofmt -l` over 50 MB of Go from GOROOT, as separate
// processes, and reports the throughput of each and ctxql's relative to
// gofmt (target: ctxql ≥ gofmt).
func BenchmarkVsGofmt(b *testing.B) {
	gofmt, err := exec.LookPath("gofmt")
	if err != nil {
		gofmt = filepath.Join(runtime.GOROOT(), "bin", "gofmt")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	queries, gos := filepath.Join(dir, "q"), filepath.Join(dir, "go")
	for _, d := range []string{queries, gos} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	qBytes, goBytes := writeQueryCorpus(b, queries), copyGoCorpus(b, gos)
	run := func(name string, args ...string) time.Duration {
		start := time.Now()
		cmd := exec.Command(name, args...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
			err = nil // findings or files to format: the expected outcome
		}
		if err != nil {
			b.Fatalf("%s %v: %v\n%.2000s", name, args, err, out)
		}
		return time.Since(start)
	}
	var tCheck, tFmt, tGofmt time.Duration
	for b.Loop() {
		tCheck += run(bin, "check", "--format", "json", queries)
		tFmt += run(bin, "fmt", "--check", queries)
		tGofmt += run(gofmt, "-l", gos)
	}
	n := float64(b.N)
	mbps := func(bytes int64, d time.Duration) float64 { return float64(bytes) / (float64(d) / n / 1e9) / 1e6 }
	b.ReportMetric(mbps(qBytes, tCheck), "check-MB/s")
	b.ReportMetric(mbps(qBytes, tFmt), "fmt-check-MB/s")
	b.ReportMetric(mbps(goBytes, tGofmt), "gofmt-MB/s")
	b.ReportMetric(mbps(qBytes, tCheck)/mbps(goBytes, tGofmt), "check-x-gofmt")
	b.ReportMetric(mbps(qBytes, tFmt)/mbps(goBytes, tGofmt), "fmt-x-gofmt")
}
