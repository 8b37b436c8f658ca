package files

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxql/ctxql/internal/testdir"
)

// TestMap checks that Map gives a file's bytes, mapped from mapMin bytes
// where the platform maps files and read below it, under the reader's
// rules, and that Close releases them.
func TestMap(t *testing.T) {
	dir := testdir.New(t)
	for _, size := range []int{0, 1, mapMin - 1, mapMin, 3*mapMin + 4097} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(i*31 + i>>12)
		}
		p := filepath.Join(dir, "data.json")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := New(0, "").Map(p)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if !bytes.Equal(m.Bytes(), want) {
			t.Errorf("size %d: Map's bytes differ from the file's", size)
		}
		if wantMapped := size >= mapMin && mapsFiles(); m.IsMapped() != wantMapped {
			t.Errorf("size %d: IsMapped %v, want %v", size, m.IsMapped(), wantMapped)
		}
		for range 2 {
			if err := m.Close(); err != nil {
				t.Errorf("size %d: Close: %v", size, err)
			}
			if m.Bytes() != nil || m.IsMapped() {
				t.Errorf("size %d: bytes kept after Close", size)
			}
		}
		// (A limit of 0 is none.)
		if _, err := New(int64(size)-1, "--max").Map(p); size > 1 && !errors.Is(err, ErrTooLarge) {
			t.Errorf("size %d over the limit: err = %v, want ErrTooLarge", size, err)
		}
	}
	if _, err := New(0, "").Map(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Map(dir): err = %v, want ErrNotRegular", err)
	}
}

// mapsFiles reports whether Map maps files on this platform.
func mapsFiles() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		return true
	}
	return false
}

// TestFaultOther checks that Fault lets any panic but a memory fault go
// on.
func TestFaultOther(t *testing.T) {
	for _, v := range []any{"boom", errors.New("boom")} {
		func() {
			defer func() {
				if got := recover(); got != v {
					t.Errorf("Fault(%v) panicked with %v, want the same value", v, got)
				}
			}()
			_ = Fault(v)
			t.Errorf("Fault(%v) returned", v)
		}()
	}
}
