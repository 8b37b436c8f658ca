// Package golden runs data-driven tests stored as txtar archives.
//
// An archive holds input sections, which a test reads with Case.Input, and
// output sections, which it compares with Case.Want. Running the tests with
// -update rewrites the output sections from what the code produced; it never
// rewrites a section the test read as input, and refuses to try.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// Update is the -update flag: rewrite output sections instead of comparing.
var update = flag.Bool("update", false, "rewrite golden output sections from the current results")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Case is one txtar archive.
type Case struct {
	t       testing.TB
	Path    string
	Name    string // the archive's base name without ".txtar"
	Archive *txtar.Archive
	inputs  map[string]bool
	dirty   bool
}

// Run calls f for every archive matching the glob pattern (relative to the
// test's package directory), each in a subtest named after the file. It
// fails when the pattern matches nothing.
func Run(t *testing.T, pattern string, f func(t *testing.T, c *Case)) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("golden: bad pattern %q: %v", pattern, err)
	}
	if len(paths) == 0 {
		t.Fatalf("golden: no archives match %q", pattern)
	}
	sort.Strings(paths)
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		t.Run(name, func(t *testing.T) {
			c := Load(t, p)
			f(t, c)
			c.Flush()
		})
	}
}

// Load reads one archive.
func Load(t testing.TB, path string) *Case {
	t.Helper()
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	return &Case{t: t, Path: path, Name: strings.TrimSuffix(filepath.Base(path), ".txtar"), Archive: a, inputs: map[string]bool{}}
}

// Comment returns the archive's leading comment, trimmed.
func (c *Case) Comment() string { return strings.TrimSpace(string(c.Archive.Comment)) }

// Has reports whether the archive has a section called name.
func (c *Case) Has(name string) bool { return c.index(name) >= 0 }

// Input returns the content of section name and marks it as an input, which
// -update will never rewrite. A missing section fails the test.
func (c *Case) Input(name string) string {
	c.t.Helper()
	i := c.index(name)
	if i < 0 {
		c.t.Fatalf("golden: %s: no section %q", c.Path, name)
	}
	c.inputs[name] = true
	return string(c.Archive.Files[i].Data)
}

// InputOr returns section name as an input, or def when it is absent.
func (c *Case) InputOr(name, def string) string {
	if !c.Has(name) {
		return def
	}
	return c.Input(name)
}

// Want compares got with the output section name. With -update it stores got
// instead (adding the section when missing). Comparing against a section read
// as an input is a test bug and fails.
func (c *Case) Want(name, got string) {
	c.t.Helper()
	if c.inputs[name] {
		c.t.Fatalf("golden: %s: section %q is an input and cannot be an expected output", c.Path, name)
	}
	if got != "" && !strings.HasSuffix(got, "\n") {
		got += "\n"
	}
	i := c.index(name)
	if *update {
		if i < 0 {
			c.Archive.Files = append(c.Archive.Files, txtar.File{Name: name, Data: []byte(got)})
			c.dirty = true
		} else if string(c.Archive.Files[i].Data) != got {
			c.Archive.Files[i].Data = []byte(got)
			c.dirty = true
		}
		return
	}
	if i < 0 {
		c.t.Errorf("golden: %s: no section %q; run with -update to add it. Got:\n%s", c.Path, name, got)
		return
	}
	if want := string(c.Archive.Files[i].Data); want != got {
		c.t.Errorf("golden: %s: section %q mismatch (-want +got):\n%s", c.Path, name, cmp.Diff(want, got))
	}
}

// Flush writes the archive back when -update changed an output section.
// Run calls it; tests using Load directly must call it themselves.
func (c *Case) Flush() {
	c.t.Helper()
	if !c.dirty {
		return
	}
	info, err := os.Stat(c.Path)
	if err != nil {
		c.t.Fatalf("golden: %v", err)
	}
	if err := os.WriteFile(c.Path, txtar.Format(c.Archive), info.Mode().Perm()); err != nil {
		c.t.Fatalf("golden: %v", err)
	}
	c.dirty = false
}

func (c *Case) index(name string) int {
	for i, f := range c.Archive.Files {
		if f.Name == name {
			return i
		}
	}
	return -1
}
