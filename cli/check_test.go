package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/golden"
)

// TestCheckGolden runs each archive under testdata/check: the sections named
// "file:PATH" are written into a scratch directory, "args" (one argument per
// line, $DIR for the directory) and the optional "stdin" drive
// `ctxql check`/`ctxql fix`, and the outputs "stdout", "stderr", "exit" and
// "after:PATH" (a file's content afterwards) are compared.
func TestCheckGolden(t *testing.T) {
	golden.Run(t, "../testdata/check/*.txtar", func(t *testing.T, c *golden.Case) {
		runArchive(t, c, nil)
	})
}

// runArchive runs the command of a golden archive: the sections named
// "file:PATH" are written into a scratch directory, "args" (one argument
// per line, $DIR for the directory) and the optional "stdin" drive the
// command line, and "stdout", "stderr" (when the archive has it), "exit"
// and "after:PATH" (a file's content afterwards) are compared, each first
// with the directory removed and then passed through clean (nil: as is).
func runArchive(t *testing.T, c *golden.Case, clean func(string) string) {
	dir := t.TempDir()
	for _, f := range c.Archive.Files {
		if name, ok := strings.CutPrefix(f.Name, "file:"); ok {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(c.Input(f.Name)), 0o640); err != nil {
				t.Fatal(err)
			}
		}
	}
	var args []string
	for _, a := range strings.Split(strings.TrimSpace(c.Input("args")), "\n") {
		args = append(args, strings.ReplaceAll(a, "$DIR", dir))
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{Stdin: strings.NewReader(c.InputOr("stdin", "")), Stdout: &out, Stderr: &errb})
	norm := func(s string) string {
		s = strings.ReplaceAll(s, dir+string(filepath.Separator), "")
		if clean != nil {
			s = clean(s)
		}
		return s
	}
	c.Want("stdout", norm(out.String()))
	if c.Has("stderr") {
		c.Want("stderr", norm(errb.String()))
	} else if errb.Len() > 0 && code != 0 && code != 1 {
		t.Logf("stderr: %s", errb.String())
	}
	c.Want("exit", strconv.Itoa(code)+"\n")
	for _, f := range c.Archive.Files {
		if name, ok := strings.CutPrefix(f.Name, "after:"); ok {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			c.Want(f.Name, norm(string(b)))
		}
	}
}

// TestFixWritesAtomicallyAndOnlyChanges checks that `ctxql fix` keeps the
// mode of a rewritten file, replaces it by rename (a new inode), and leaves
// files without fixes untouched (same inode and modification time).
func TestFixWritesAtomicallyAndOnlyChanges(t *testing.T) {
	dir := t.TempDir()
	bad, clean := filepath.Join(dir, "bad.pact"), filepath.Join(dir, "clean.pact")
	if err := os.WriteFile(bad, []byte(".block:summary\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clean, []byte(".summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(clean, old, old)
	before, _ := os.Stat(bad)
	cleanBefore, _ := os.Stat(clean)
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"fix", dir}, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	b, _ := os.ReadFile(bad)
	if string(b) != ".summary\n" {
		t.Errorf("bad.pact = %q", b)
	}
	after, _ := os.Stat(bad)
	if after.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", after.Mode().Perm())
	}
	if os.SameFile(before, after) {
		t.Error("bad.pact was rewritten in place, not replaced by rename")
	}
	cleanAfter, _ := os.Stat(clean)
	if !os.SameFile(cleanBefore, cleanAfter) || !cleanAfter.ModTime().Equal(cleanBefore.ModTime()) {
		t.Error("clean.pact was rewritten although it had nothing to fix")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestLintBinary builds cmd/lint and checks that it is the check command:
// same output and exit status as `ctxql check` on a file with an error.
func TestLintBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "lint")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/lint").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "q.pact")
	if err := os.WriteFile(p, []byte(".block:summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--format", "json", p)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1", err)
	}
	var want bytes.Buffer
	Main(context.Background(), []string{"check", "--format", "json", p}, Env{Stdin: strings.NewReader(""), Stdout: &want, Stderr: &bytes.Buffer{}})
	if string(out) != want.String() || !strings.Contains(string(out), `"code": "PACT001"`) {
		t.Errorf("lint printed\n%s\nctxql check printed\n%s", out, want.String())
	}
}
