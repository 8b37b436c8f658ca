//go:build unix

package files

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.pact")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	r := New(0, "")
	for _, name := range []string{fifo, zero, "/dev/stdin", dir} {
		if _, err := r.ReadFile(name); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%q): err = %v, want ErrNotRegular", name, err)
		}
	}
}
