package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/testdir"
)

func TestConfinedRefusesLinksOut(t *testing.T) {
	dir := testdir.New(t)
	outside := filepath.Join(testdir.New(t), "secret")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "facts"), 0o755); err != nil {
		t.Fatal(err)
	}
	testdir.Symlink(t, outside, filepath.Join(dir, "facts", "leak.facts"))
	if err := os.WriteFile(filepath.Join(dir, "facts", "ok.facts"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testdir.Symlink(t, "ok.facts", filepath.Join(dir, "facts", "inside.facts"))
	r, err := Confined(dir, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"facts/leak.facts", filepath.Join(dir, "facts", "leak.facts"), "../" + filepath.Base(dir) + "/../x", outside} {
		if b, err := r.ReadFile(name); err == nil {
			t.Errorf("ReadFile(%q) = %q, want an error", name, b)
		}
	}
	if _, err := r.ReadFile(outside); !errors.Is(err, ErrOutside) {
		t.Errorf("absolute path outside: err = %v, want ErrOutside", err)
	}
	for _, name := range []string{"facts/ok.facts", "facts/inside.facts", filepath.Join(dir, "facts", "ok.facts")} {
		if b, err := r.ReadFile(name); err != nil || string(b) != "a\n" {
			t.Errorf("ReadFile(%q) = %q, %v; want the file", name, b, err)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	p := filepath.Join(testdir.New(t), "big.json")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := New(99, "--max-bytes").ReadFile(p)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--max-bytes") {
		t.Errorf("err = %v, want ErrTooLarge naming --max-bytes", err)
	}
	if b, err := New(100, "").ReadFile(p); err != nil || len(b) != 100 {
		t.Errorf("at the limit: %d bytes, %v", len(b), err)
	}
	if _, err := New(10, "").ReadAll("r", strings.NewReader(strings.Repeat("y", 11))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAll over the limit: %v", err)
	}
}

// TestConfinedErrorsNameNoOutsidePath checks that a refused path is named
// relative to the reader's directory, never by its absolute name, and
// that a link out is named as the caller named it, not by its target.
func TestConfinedErrorsNameNoOutsidePath(t *testing.T) {
	base := testdir.New(t)
	dir := filepath.Join(base, "project")
	outside := filepath.Join(base, "elsewhere", "secret.json")
	for _, d := range []string{dir, filepath.Dir(outside)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	testdir.Symlink(t, outside, filepath.Join(dir, "link.json"))
	r, err := Confined(dir, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{outside, "../elsewhere/secret.json", "link.json", filepath.Join(dir, "link.json")} {
		_, err := r.ReadFile(name)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%q): %v, want ErrOutside", name, err)
			continue
		}
		if strings.Contains(err.Error(), base) || strings.Contains(err.Error(), "elsewhere") && !strings.Contains(name, "elsewhere") {
			t.Errorf("ReadFile(%q): the error %q names a path outside", name, err)
		}
		if _, err := r.Stat(name); !errors.Is(err, ErrOutside) || strings.Contains(err.Error(), base) {
			t.Errorf("Stat(%q): %v, want ErrOutside naming no absolute path", name, err)
		}
	}
}

// TestConfinedToMoreDirectories checks a reader confined to two
// directories: it opens the files of both by absolute name, relative names
// from the first, and nothing else.
func TestConfinedToMoreDirectories(t *testing.T) {
	dir, more, out := testdir.New(t), testdir.New(t), testdir.New(t)
	for d, text := range map[string]string{dir: "first", more: "second", out: "third"} {
		if err := os.WriteFile(filepath.Join(d, "f.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testdir.Symlink(t, filepath.Join(out, "f.json"), filepath.Join(more, "link.json"))
	r, err := Confined(dir, 0, "", more)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, want := range map[string]string{"f.json": "first", filepath.Join(dir, "f.json"): "first", filepath.Join(more, "f.json"): "second"} {
		if b, err := r.ReadFile(name); err != nil || string(b) != want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", name, b, err, want)
		}
	}
	for _, name := range []string{filepath.Join(out, "f.json"), filepath.Join(more, "link.json")} {
		if b, err := r.ReadFile(name); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%q) = %q, %v; want ErrOutside", name, b, err)
		}
	}
}

// TestWalkDir checks that a reader walks a tree as filepath.WalkDir does,
// and that a confined one stays inside its directory.
func TestWalkDir(t *testing.T) {
	dir, out := testdir.New(t), testdir.New(t)
	for _, p := range []string{"a/x.pact", "a/b/y.pact", "skip/z.pact", "w.pact"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testdir.Symlink(t, out, filepath.Join(dir, "a", "out"))
	walk := func(r *Reader, name string) []string {
		var got []string
		err := r.WalkDir(name, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "skip" {
				return filepath.SkipDir
			}
			got = append(got, filepath.ToSlash(p))
			return nil
		})
		if err != nil {
			t.Errorf("WalkDir(%q): %v", name, err)
		}
		return got
	}
	c, err := Confined(dir, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := walk(New(0, ""), dir)
	if len(want) != 7 {
		t.Fatalf("filepath.WalkDir through New: %q", want)
	}
	if got := walk(c, dir); !slices.Equal(got, want) {
		t.Errorf("confined WalkDir = %q, want %q", got, want)
	}
	if got := walk(c, "a"); !slices.Equal(got, []string{"a", "a/b", "a/b/y.pact", "a/out", "a/x.pact"}) {
		t.Errorf("confined WalkDir of a relative name = %q", got)
	}
	if err := c.WalkDir(out, func(string, fs.DirEntry, error) error { return nil }); err != nil {
		t.Errorf("WalkDir outside: the error %v reached the caller, not fn", err)
	}
	var gotErr error
	_ = c.WalkDir(out, func(_ string, _ fs.DirEntry, err error) error { gotErr = err; return nil })
	if !errors.Is(gotErr, ErrOutside) {
		t.Errorf("WalkDir outside: fn got %v, want ErrOutside", gotErr)
	}
}

// TestReadFileInHalves reads a file large enough to be read in two halves
// with one and with two processors, at and under the size limit and
// through a confined reader, and checks the bytes against the file's, and
// the limit's error.
func TestReadFileInHalves(t *testing.T) {
	dir := testdir.New(t)
	p := filepath.Join(dir, "big.json")
	data := make([]byte, halvesMin+12345)
	for i := range data {
		data[i] = byte(i*7 + i/4096)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	conf, err := Confined(dir, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conf.Close()
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		for _, r := range []*Reader{New(0, ""), New(int64(len(data)), ""), conf} {
			b, err := r.ReadFile(p)
			if err != nil || !slices.Equal(b, data) {
				t.Errorf("%d procs: %d bytes (%v), want the file's %d", procs, len(b), err, len(data))
			}
		}
		if _, err := New(int64(len(data))-1, "").ReadFile(p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%d procs, over the limit: %v", procs, err)
		}
		runtime.GOMAXPROCS(prev)
	}
}
