package cpuprof

import (
	"os"
	"path/filepath"
	"testing"
)

// spin burns some CPU so that the profile has samples.
func spin() int {
	n := 0
	for i := range 50_000_000 {
		n += i % 7
	}
	return n
}

func TestStartWritesProfile(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{filepath.Join(dir, "a.pprof"), dir} {
		stop := Start(func(string) string { return target }, os.Stderr)
		if spin() < 0 {
			t.Fatal("spin returned a negative sum")
		}
		stop()
	}
	data, err := os.ReadFile(filepath.Join(dir, "a.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	// A pprof profile is a gzipped protocol buffer.
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("a.pprof does not start like a gzipped profile: % x", data[:min(len(data), 4)])
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "ctxql-*.pprof"))
	if len(matches) != 1 {
		t.Errorf("profiles named by process id in the directory: %v, want one", matches)
	}
}

func TestStartWithoutVariable(t *testing.T) {
	stop := Start(func(string) string { return "" }, os.Stderr)
	stop() // nothing to stop; must not fail
}
