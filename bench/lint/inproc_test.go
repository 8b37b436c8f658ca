package lint_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/format"
	"github.com/ctxql/ctxql/internal/ostest"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax/pact"
)

// canonicalFile returns a canonical .pact file of about 256 KB, made of
// the lines writeCanonicalPACT uses.
func canonicalFile(b *testing.B) string {
	b.Helper()
	lines := []string{
		"@t0 ^seq .mt .mc > .cb[role='assistant'][ttl<=%d] { author=\"u%d\" } @limit=%d",
		"@t-1 .seg > .note { lang=\"en\", n=%d } [ ttl>=%d ] @order=path @skip=%d",
		"@t0 d1..d3 .summary #k%d ?? (d%d, 0, 1) @limit=%d",
		"// a note about query %d, %d, %d",
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 256<<10; i++ {
		fmt.Fprintf(&sb, lines[i%len(lines)], i%5, i%97, 1+i%50)
		sb.WriteByte('\n')
	}
	out, err := format.PACT([]byte(sb.String()))
	if err != nil || string(out) != sb.String() {
		b.Fatalf("corpus is not canonical: %v", err)
	}
	return string(out)
}

// cpuTime returns the CPU time (user and system) the process has used so
// far: on a shared machine it moves far less than wall time with the load.
func cpuTime(b *testing.B) time.Duration {
	d, err := ostest.CPUTime()
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// reportCPU reports the CPU time per operation since start as cpu-ms/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkPACTCheckFile is the per-file work of `ctxql check` on one
// canonical 256 KB .pact file, in process (no anchor: a profiling aid for
// BenchmarkPACTVsGofmt).
func BenchmarkPACTCheckFile(b *testing.B) {
	src := canonicalFile(b)
	l, err := lint.New(pact.DialectUnset)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		if _, diags, err := l.Check(ctx, "a.pact", src); err != nil || len(diags) != 0 {
			b.Fatal(err, diags)
		}
	}
	reportCPU(b, start)
}

// BenchmarkPACTFmtCheckFile is the per-file work of `ctxql fmt --check` on
// the same file, in process.
func BenchmarkPACTFmtCheckFile(b *testing.B) {
	src := []byte(canonicalFile(b))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		if _, err := format.PACTDialect(src, pact.DialectUnset); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// datalogFile returns a .dl file of about 256 KB, the Datalog part of
// BenchmarkVsGofmt's corpus: a declared edge relation and rules joining
// it, every twentieth one unformatted.
func datalogFile() string {
	var sb strings.Builder
	sb.WriteString("relation edge(i32, i32);\n")
	for i := 0; sb.Len() < 256<<10; i++ {
		if i%20 == 0 {
			fmt.Fprintf(&sb, "p%d(x,y)<--edge(x,y);\n", i)
			continue
		}
		fmt.Fprintf(&sb, "p%d(x, z) <-- edge(x, y), edge(y, z), if x != z;\n", i)
	}
	return sb.String()
}

// BenchmarkDatalogCheckFile is the per-file work of `ctxql check` on one
// 256 KB .dl file of BenchmarkVsGofmt's corpus, in process (no anchor: a
// profiling aid for BenchmarkVsGofmt).
func BenchmarkDatalogCheckFile(b *testing.B) {
	src := datalogFile()
	l, err := lint.New(pact.DialectUnset)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		if _, _, err := l.Check(ctx, "a.dl", src); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkDatalogFmtCheckFile is the per-file work of `ctxql fmt
// --check` on the same file, in process.
func BenchmarkDatalogFmtCheckFile(b *testing.B) {
	src := []byte(datalogFile())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		if ok, err := format.DatalogIsCanonical(src); err != nil || ok {
			b.Fatal(err, ok)
		}
	}
	reportCPU(b, start)
}
