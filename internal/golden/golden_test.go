package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunComparesOutputs(t *testing.T) {
	Run(t, "testdata/*.txtar", func(t *testing.T, c *Case) {
		c.Want("out", strings.ToUpper(c.Input("in")))
	})
}

// fakeTB records failures instead of failing the real test.
type fakeTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.failed = true
	f.msg = format
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = format
	panic(f)
}

func TestUpdateNeverOverwritesInputs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txtar")
	orig := "-- in --\nhello\n-- out --\nstale\n"
	if err := os.WriteFile(p, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	*update = true
	defer func() { *update = false }()

	// Updating an output rewrites only that section.
	c := Load(t, p)
	c.Want("out", strings.ToUpper(c.Input("in")))
	c.Flush()
	got, _ := os.ReadFile(p)
	if want := "-- in --\nhello\n-- out --\nHELLO\n"; string(got) != want {
		t.Fatalf("after update:\n%s\nwant:\n%s", got, want)
	}

	// Naming an input as an output is refused and the file stays as it was.
	ft := &fakeTB{TB: t}
	c = Load(ft, p)
	func() {
		defer func() { _ = recover() }()
		c.Want("in", c.Input("in")+"changed")
	}()
	c.Flush()
	if !ft.failed {
		t.Fatal("Want on an input section did not fail")
	}
	after, _ := os.ReadFile(p)
	if string(after) != string(got) {
		t.Fatalf("input section rewritten:\n%s", after)
	}
}

func TestMismatchFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txtar")
	if err := os.WriteFile(p, []byte("-- out --\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ft := &fakeTB{TB: t}
	c := Load(ft, p)
	c.Want("out", "y")
	if !ft.failed {
		t.Fatal("mismatch did not fail")
	}
	ft = &fakeTB{TB: t}
	c = Load(ft, p)
	c.Want("missing", "y")
	if !ft.failed {
		t.Fatal("missing section did not fail")
	}
}
