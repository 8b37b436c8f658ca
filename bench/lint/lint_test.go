// Package lint_test measures ctxql check and ctxql fmt --check against
// gofmt -l, the anchor, in the same run, as separate processes.
package lint_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/bench/workspace"
	"github.com/ctxql/ctxql/format"
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
	src := filepath.Join(goroot(b), "src")
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
// gofmt, per wall second and per CPU second (user and system time, which
// moves far less with the load of a shared machine).
func BenchmarkVsGofmt(b *testing.B) {
	gofmt := gofmtPath()
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	buildCtxql(b, bin)
	queries, gos := filepath.Join(dir, "q"), filepath.Join(dir, "go")
	for _, d := range []string{queries, gos} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	qBytes, goBytes := writeQueryCorpus(b, queries), copyGoCorpus(b, gos)
	var tCheck, tFmt, tGofmt, cCheck, cFmt, cGofmt time.Duration
	for b.Loop() {
		w, c := runCPU(b, "", bin, "check", "--format", "json", queries)
		tCheck, cCheck = tCheck+w, cCheck+c
		w, c = runCPU(b, "", bin, "fmt", "--check", queries)
		tFmt, cFmt = tFmt+w, cFmt+c
		w, c = runCPU(b, "", gofmt, "-l", gos)
		tGofmt, cGofmt = tGofmt+w, cGofmt+c
	}
	n := float64(b.N)
	mbps := func(bytes int64, d time.Duration) float64 { return float64(bytes) / (float64(d) / n / 1e9) / 1e6 }
	b.ReportMetric(mbps(qBytes, tCheck), "check-MB/s")
	b.ReportMetric(mbps(qBytes, tFmt), "fmt-check-MB/s")
	b.ReportMetric(mbps(goBytes, tGofmt), "gofmt-MB/s")
	b.ReportMetric(mbps(qBytes, tCheck)/mbps(goBytes, tGofmt), "check-x-gofmt")
	b.ReportMetric(mbps(qBytes, tFmt)/mbps(goBytes, tGofmt), "fmt-x-gofmt")
	b.ReportMetric(mbps(qBytes, cCheck)/mbps(goBytes, cGofmt), "check-x-gofmt-cpu")
	b.ReportMetric(mbps(qBytes, cFmt)/mbps(goBytes, cGofmt), "fmt-x-gofmt-cpu")
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("queries %.1f MB, Go %.1f MB; wall: check %.1f MB/s, fmt --check %.1f MB/s, gofmt -l %.1f MB/s (%.2fx, %.2fx); CPU: check %.1f s, fmt --check %.1f s, gofmt -l %.1f s (%.2fx, %.2fx); load average %s",
		float64(qBytes)/1e6, float64(goBytes)/1e6, mbps(qBytes, tCheck), mbps(qBytes, tFmt), mbps(goBytes, tGofmt),
		mbps(qBytes, tCheck)/mbps(goBytes, tGofmt), mbps(qBytes, tFmt)/mbps(goBytes, tGofmt),
		cCheck.Seconds()/n, cFmt.Seconds()/n, cGofmt.Seconds()/n,
		mbps(qBytes, cCheck)/mbps(goBytes, cGofmt), mbps(qBytes, cFmt)/mbps(goBytes, cGofmt), load)
}

func gofmtPath() string {
	if p, err := exec.LookPath("gofmt"); err == nil {
		return p
	}
	root, err := gorootDir()
	if err != nil {
		return "gofmt"
	}
	return filepath.Join(root, "bin", "gofmt")
}

// goroot returns the GOROOT of the go command on PATH.
func goroot(tb testing.TB) string {
	root, err := gorootDir()
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

func gorootDir() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildCtxql builds the ctxql binary into bin, in the ctxql module (whose
// go.mod and go.sum list the tool's own dependencies).
func buildCtxql(b *testing.B, bin string) {
	b.Helper()
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ctxql")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
}

// runCPU runs a command in directory dir ("": the current one) and
// returns how long it took and the CPU time (user and system) the process
// used: on a shared machine it moves far less with the load than the wall
// time does. Exit status 1 (findings, files to format) is the expected
// outcome of some runs.
func runCPU(b *testing.B, dir, name string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		b.Fatalf("%s %v: %v\n%.2000s", name, args, err, out)
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// writeCanonicalPACT writes about corpusBytes of canonical .pact files (the
// formatter's output: every file is already formatted and clean), 256 KB
// each, and returns the number of bytes written.
func writeCanonicalPACT(b *testing.B, dir string) int64 {
	b.Helper()
	lines := []string{
		"@t0 ^seq .mt .mc > .cb[role='assistant'][ttl<=%d] { author=\"u%d\" } @limit=%d",
		"@t-1 .seg > .note { lang=\"en\", n=%d } [ ttl>=%d ] @order=path @skip=%d",
		"@t0 d1..d3 .summary #k%d ?? (d%d, 0, 1) @limit=%d",
		"// a note about query %d, %d, %d",
	}
	var total int64
	for file := 0; total < corpusBytes; file++ {
		var sb strings.Builder
		for i := 0; sb.Len() < 256<<10; i++ {
			fmt.Fprintf(&sb, lines[i%len(lines)], i%5, i%97, 1+i%50)
			sb.WriteByte('\n')
		}
		out, err := format.PACT([]byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}
		if string(out) != sb.String() {
			b.Fatalf("corpus line is not canonical:\n%s", out[:200])
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%05d.pact", file)), out, 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(out))
	}
	return total
}

// BenchmarkPACTVsGofmt runs, in the same iteration, `ctxql check` and
// `ctxql fmt --check` over about 50 MB of canonical .pact files and
// `gofmt -l` over 50 MB of Go from GOROOT, and reports each throughput
// and ctxql's ratio to gofmt (target: ≥ 3×).
func BenchmarkPACTVsGofmt(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	buildCtxql(b, bin)
	pacts, gos := filepath.Join(dir, "pact"), filepath.Join(dir, "go")
	for _, d := range []string{pacts, gos} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	pBytes, goBytes := writeCanonicalPACT(b, pacts), copyGoCorpus(b, gos)
	gofmt := gofmtPath()
	var tCheck, tFmt, tGofmt, cCheck, cFmt, cGofmt time.Duration
	for b.Loop() {
		w, c := runCPU(b, "", bin, "check", "--format", "json", pacts)
		tCheck, cCheck = tCheck+w, cCheck+c
		w, c = runCPU(b, "", bin, "fmt", "--check", pacts)
		tFmt, cFmt = tFmt+w, cFmt+c
		w, c = runCPU(b, "", gofmt, "-l", gos)
		tGofmt, cGofmt = tGofmt+w, cGofmt+c
	}
	n := float64(b.N)
	mbps := func(bytes int64, d time.Duration) float64 { return float64(bytes) / (float64(d) / n / 1e9) / 1e6 }
	b.ReportMetric(mbps(pBytes, tCheck), "check-MB/s")
	b.ReportMetric(mbps(pBytes, tFmt), "fmt-check-MB/s")
	b.ReportMetric(mbps(goBytes, tGofmt), "gofmt-MB/s")
	b.ReportMetric(mbps(pBytes, tCheck)/mbps(goBytes, tGofmt), "check-x-gofmt")
	b.ReportMetric(mbps(pBytes, tFmt)/mbps(goBytes, tGofmt), "fmt-x-gofmt")
	// The same ratios in bytes per second of CPU time.
	b.ReportMetric(mbps(pBytes, cCheck)/mbps(goBytes, cGofmt), "check-x-gofmt-cpu")
	b.ReportMetric(mbps(pBytes, cFmt)/mbps(goBytes, cGofmt), "fmt-x-gofmt-cpu")
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("PACT %.1f MB, Go %.1f MB; wall: check %.1f MB/s, fmt --check %.1f MB/s, gofmt -l %.1f MB/s (%.2fx, %.2fx); CPU: %.2fx, %.2fx; load average %s",
		float64(pBytes)/1e6, float64(goBytes)/1e6, mbps(pBytes, tCheck), mbps(pBytes, tFmt), mbps(goBytes, tGofmt),
		mbps(pBytes, tCheck)/mbps(goBytes, tGofmt), mbps(pBytes, tFmt)/mbps(goBytes, tGofmt),
		mbps(pBytes, cCheck)/mbps(goBytes, cGofmt), mbps(pBytes, cFmt)/mbps(goBytes, cGofmt), load)
}

// goModule writes a Go module of n files into dir, in directories of 100
// like workspace.Generate's queries, each file of about size bytes (a
// short function padded with a comment), and returns the bytes written.
func goModule(b *testing.B, dir string, sizes []int) int64 {
	b.Helper()
	var total int64
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i, size := range sizes {
		d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		src := fmt.Sprintf("package d%03d\n\n// Q%d is query %d.\nfunc Q%d(x int) int { return x + %d }\n", i/100, i, i, i, i%4)
		if pad := size - len(src) - 4; pad > 0 {
			src += "\n// " + strings.Repeat("x", pad) + "\n"
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("q%05d.go", i)), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(src))
	}
	return total
}

// BenchmarkWorkspaceVsGofmt runs, in the same iteration and each in its
// directory, `ctxql check .` and `ctxql fmt --check .` over a generated
// workspace of WORKSPACE_FILES (default 10,000) query files
// (bench/workspace: PACT, JQL and Datalog naming sample data) and
// `gofmt -l .` over a Go module of as many files of the same sizes, and
// reports each command's time and ctxql's relative to gofmt, in wall and
// in CPU time (target: ctxql no slower). Per-file cost, not throughput.
func BenchmarkWorkspaceVsGofmt(b *testing.B) {
	n := 10_000
	if s := os.Getenv("WORKSPACE_FILES"); s != "" {
		fmt.Sscan(s, &n)
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	buildCtxql(b, bin)
	ws, gomod := filepath.Join(dir, "ws"), filepath.Join(dir, "gomod")
	files, err := workspace.Generate(ws, n)
	if err != nil {
		b.Fatal(err)
	}
	var sizes []int
	var qBytes int64
	for _, q := range files.Queries {
		st, err := os.Stat(filepath.Join(ws, filepath.FromSlash(q)))
		if err != nil {
			b.Fatal(err)
		}
		sizes = append(sizes, int(st.Size()))
		qBytes += st.Size()
	}
	if err := os.Mkdir(gomod, 0o755); err != nil {
		b.Fatal(err)
	}
	goBytes := goModule(b, gomod, sizes)
	gofmt := gofmtPath()
	var tCheck, tFmt, tGofmt, cCheck, cFmt, cGofmt time.Duration
	for b.Loop() {
		w, c := runCPU(b, ws, bin, "check", ".")
		tCheck, cCheck = tCheck+w, cCheck+c
		w, c = runCPU(b, ws, bin, "fmt", "--check", ".")
		tFmt, cFmt = tFmt+w, cFmt+c
		w, c = runCPU(b, gomod, gofmt, "-l", ".")
		tGofmt, cGofmt = tGofmt+w, cGofmt+c
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
	b.ReportMetric(per(tCheck), "check-ms")
	b.ReportMetric(per(tFmt), "fmt-check-ms")
	b.ReportMetric(per(tGofmt), "gofmt-ms")
	b.ReportMetric(float64(tCheck)/float64(tGofmt), "check/gofmt")
	b.ReportMetric(float64(tFmt)/float64(tGofmt), "fmt/gofmt")
	b.ReportMetric(float64(cCheck)/float64(cGofmt), "check/gofmt-cpu")
	b.ReportMetric(float64(cFmt)/float64(cGofmt), "fmt/gofmt-cpu")
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d query files (%.2f MB), %d Go files (%.2f MB); wall: check %.0f ms, fmt --check %.0f ms, gofmt -l %.0f ms (ratios %.2f, %.2f); CPU: %.0f, %.0f, %.0f ms (ratios %.2f, %.2f); ratio > 1: ctxql slower; load average %s",
		n, float64(qBytes)/1e6, len(sizes), float64(goBytes)/1e6, per(tCheck), per(tFmt), per(tGofmt),
		float64(tCheck)/float64(tGofmt), float64(tFmt)/float64(tGofmt),
		per(cCheck), per(cFmt), per(cGofmt), float64(cCheck)/float64(cGofmt), float64(cFmt)/float64(cGofmt), load)
}
