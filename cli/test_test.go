package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
)

// durations matches what varies from run to run in the outputs of
// "ctxql test": the times of cases and suites.
var durations = regexp.MustCompile(`\(\d+\.\d+s\)|time="\d+\.\d+"|"seconds": [0-9.e-]+`)

// TestTestGolden runs each archive under testdata/test like TestCheckGolden
// runs testdata/check: "file:PATH" sections are written into a scratch
// directory, "args" runs the command, and "stdout", "stderr", "exit" and
// "after:PATH" are compared, with times replaced by "X".
func TestTestGolden(t *testing.T) {
	golden.Run(t, "../testdata/test/*.txtar", func(t *testing.T, c *golden.Case) {
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
		code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		clean := func(s string) string {
			s = strings.ReplaceAll(s, dir+string(filepath.Separator), "")
			return durations.ReplaceAllStringFunc(s, func(m string) string {
				switch {
				case strings.HasPrefix(m, "("):
					return "(X)"
				case strings.HasPrefix(m, "time="):
					return `time="X"`
				}
				return `"seconds": X`
			})
		}
		c.Want("stdout", clean(out.String()))
		if c.Has("stderr") {
			c.Want("stderr", clean(errb.String()))
		} else if errb.Len() > 0 {
			t.Logf("stderr: %s", errb.String())
		}
		c.Want("exit", strconv.Itoa(code)+"\n")
		for _, f := range c.Archive.Files {
			if name, ok := strings.CutPrefix(f.Name, "after:"); ok {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				c.Want(f.Name, clean(string(b)))
			}
		}
	})
}
