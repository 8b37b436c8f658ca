package ostest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMkfifo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	err := Mkfifo(p)
	if errors.Is(err, ErrUnsupported) {
		if runtime.GOOS != "windows" && runtime.GOOS != "js" && runtime.GOOS != "wasip1" {
			t.Fatalf("Mkfifo unsupported on %s", runtime.GOOS)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("made %v, %v; want a named pipe", fi.Mode(), err)
	}
}

func TestPeakRSSAndCPUTime(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	rss, ok := PeakRSS(cmd.ProcessState)
	if ok != (runtime.GOOS != "windows") || ok && (rss < 1<<20 || rss > 1<<32) {
		t.Errorf("PeakRSS = %d, %v", rss, ok)
	}
	x := 0
	for i := range 10_000_000 {
		x ^= i
	}
	if d, err := CPUTime(); err != nil || d <= 0 {
		t.Errorf("CPUTime = %v, %v (%d)", d, err, x)
	}
}
