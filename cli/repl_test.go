package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/ostest"
)

// TestOpenHistory: the REPL's history file is opened through
// internal/files — a FIFO or a link to a device is refused at once (never
// waited on or read without end), a file over the limit is refused, a
// regular file is read.
func TestOpenHistory(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := ostest.Mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x\n", maxHistoryBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("q(x) <-- r(x).\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
	}{{fifo, files.ErrNotRegular}, {zero, files.ErrNotRegular}, {big, files.ErrTooLarge}} {
		start := time.Now()
		f, err := openHistory(c.path)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", filepath.Base(c.path), err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: refused after %v", filepath.Base(c.path), d)
		}
	}
	f, err := openHistory(good)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
