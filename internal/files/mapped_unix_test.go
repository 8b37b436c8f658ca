//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package files

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestMapTruncated truncates a mapped file and reads its lost bytes: the
// fault, recovered on a goroutine reading with SetPanicOnFault, is
// ErrTruncated through Fault, and the process goes on.
func TestMapTruncated(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(p, make([]byte, 4*mapMin), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := New(0, "").Map(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !m.IsMapped() {
		t.Fatal("not mapped")
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	read := func() (n int, err error) {
		old := debug.SetPanicOnFault(true)
		defer debug.SetPanicOnFault(old)
		defer func() {
			if v := recover(); v != nil {
				err = Fault(v)
			}
		}()
		b := m.Bytes()
		for i := 0; i < len(b); i += 4096 {
			n += int(b[i])
		}
		return n, nil
	}
	if _, err := read(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("reading a truncated mapping: err = %v, want ErrTruncated", err)
	}
}
