package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ctxql/ctxql/internal/testdir"
)

func TestWriteKeepsMode(t *testing.T) {
	dir := testdir.New(t)
	p := filepath.Join(dir, "q.pact")
	if err := os.WriteFile(p, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	// The mode the system gave the file (Windows keeps only whether it
	// is read-only).
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "new\n" || fi.Mode().Perm() != before.Mode().Perm() {
		t.Fatalf("got %q mode %v, want mode %v", b, fi.Mode(), before.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := testdir.New(t)
	target := filepath.Join(dir, "real", "q.pact")
	os.MkdirAll(filepath.Dir(target), 0o755)
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pact")
	testdir.Symlink(t, "real/q.pact", link)
	if err := Write(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Fatalf("target holds %q", b)
	}
}

func TestWriteRefusesReadOnly(t *testing.T) {
	p := filepath.Join(testdir.New(t), "q.pact")
	if err := os.WriteFile(p, []byte("old\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := Write(p, []byte("new\n"))
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("err = %v, want ErrReadOnly", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Fatalf("file holds %q", b)
	}
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := testdir.New(t)
	if err := Write(dir, []byte("x")); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("err = %v, want ErrNotRegular", err)
	}
}

func TestCleanStale(t *testing.T) {
	dir := testdir.New(t)
	p := filepath.Join(dir, "q.pact")
	os.WriteFile(p, []byte("x"), 0o644)
	dead := filepath.Join(dir, ".q.pact.ctxql-999999999-1.tmp") // beyond pid_max
	legacy := filepath.Join(dir, ".q.pact.ctxql-12345")
	mine := filepath.Join(dir, ".q.pact.ctxql-"+strconv.Itoa(os.Getpid())+"-1.tmp")
	other := filepath.Join(dir, ".r.pact.ctxql-999999999-1.tmp")
	for _, f := range []string{dead, legacy, mine, other} {
		os.WriteFile(f, []byte("partial"), 0o600)
	}
	if n := CleanStale(p); n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	for f, want := range map[string]bool{dead: false, legacy: false, mine: true, other: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}
