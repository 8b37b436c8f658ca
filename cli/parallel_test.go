package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestParallelOutputInFileOrder checks that check and fmt, which work on
// files in parallel, print exactly what one worker prints: every file's
// output in path order, whatever order the workers finish in.
func TestParallelOutputInFileOrder(t *testing.T) {
	dir := t.TempDir()
	srcs := []string{".seg>.block:summary\n", "@t0 .seg .summary\n", ".cb[ttl<=]\n", ".mt:nth(0)\n", "(d1,seg)  .cb\n"}
	for i := 0; i < 60; i++ {
		name := filepath.Join(dir, fmt.Sprintf("d%d", i%3), fmt.Sprintf("q%02d.pact", i))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		// Large files first so that later, small files finish earlier.
		src := strings.Repeat(srcs[i%len(srcs)], 1+(60-i)*3)
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runWith := func(procs int, args ...string) (int, string, string) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		return code, out.String(), errb.String()
	}
	for _, args := range [][]string{
		{"check", "--format", "json", dir},
		{"check", dir},
		{"fmt", "-l", dir},
		{"fmt", "-d", dir},
	} {
		c1, o1, e1 := runWith(1, args...)
		c4, o4, e4 := runWith(4, args...)
		if c1 != c4 || o1 != o4 || e1 != e4 {
			t.Errorf("%v: one worker and four differ: exit %d/%d\nstdout:\n%s\n---\n%s\nstderr:\n%s\n---\n%s", args, c1, c4, o1, o4, e1, e4)
		}
		if o1 == "" {
			t.Errorf("%v: no output", args)
		}
	}
	_, out, _ := runWith(4, "fmt", "-l", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !slices.IsSorted(lines) || len(lines) < 20 {
		t.Errorf("fmt -l lists %d files, not in path order:\n%s", len(lines), out)
	}
}
