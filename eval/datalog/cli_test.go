//go:build !wasm

// The command line links the SQL engines, which do not build for
// WebAssembly.

package datalog_test

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

	"github.com/ctxql/ctxql/cli"
	"github.com/ctxql/ctxql/internal/golden"
)

// cliCase prepares a CLI golden case: every section other than "args",
// "stdin" and the outputs is written to a temporary directory, and "$DIR"
// in the arguments names that directory.
func cliCase(t *testing.T, c *golden.Case) (dir string, args []string, stdin string) {
	t.Helper()
	dir = t.TempDir()
	for _, f := range c.Archive.Files {
		switch f.Name {
		case "args", "stdin", "stdout", "stderr", "exit":
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c.Input(f.Name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range strings.Split(strings.TrimRight(c.Input("args"), "\n"), "\n") {
		args = append(args, strings.ReplaceAll(line, "$DIR", dir))
	}
	return dir, args, c.InputOr("stdin", "")
}

// TestCLIGolden runs "ctxql" in-process through cli.Main for every archive
// under testdata/datalog/cli and compares stdout, stderr and the exit code.
func TestCLIGolden(t *testing.T) {
	golden.Run(t, "../../testdata/datalog/cli/*.txtar", func(t *testing.T, c *golden.Case) {
		dir, args, stdin := cliCase(t, c)
		var out, errb bytes.Buffer
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
		c.Want("stdout", strings.ReplaceAll(out.String(), dir, "$DIR"))
		c.Want("stderr", strings.ReplaceAll(errb.String(), dir, "$DIR"))
		c.Want("exit", strconv.Itoa(code))
	})
}

// TestBinaryEndToEnd builds the real ctxql binary and runs the same CLI
// archives (eval datalog and repl driven through stdin) as subprocesses;
// the results must equal the in-process goldens.
func TestBinaryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "ctxql")
	build := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	paths, err := filepath.Glob("../../testdata/datalog/cli/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no CLI archives: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			c := golden.Load(t, p)
			dir, args, stdin := cliCase(t, c)
			cmd := exec.Command(bin, args...)
			cmd.Stdin = strings.NewReader(stdin)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			code := 0
			if err := cmd.Run(); err != nil {
				var xe *exec.ExitError
				if !errors.As(err, &xe) {
					t.Fatal(err)
				}
				code = xe.ExitCode()
			}
			c.Want("stdout", strings.ReplaceAll(out.String(), dir, "$DIR"))
			c.Want("stderr", strings.ReplaceAll(errb.String(), dir, "$DIR"))
			c.Want("exit", strconv.Itoa(code))
		})
	}
}
