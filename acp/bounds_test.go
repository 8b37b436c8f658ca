package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/ostest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

// ctxqlBinary builds the ctxql binary once per test run.
func ctxqlBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ctxql-acp-test")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ctxql")
		var out []byte
		if out, buildErr = exec.Command("go", "build", "-o", binPath, "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput(); buildErr != nil {
			buildErr = &buildError{buildErr, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "build ctxql: " + e.err.Error() + "\n" + e.out }

// TestCLIJQBounds runs the jq queries that used to exhaust memory or run
// far past their deadline through `ctxql acp query` as a subprocess, under
// a 256 MB memory budget: the regular expression ones (28 s and 70 s with
// gojq's built-ins) finish well within a 10 s deadline; the others fail
// with a limit error naming the flag that raises it, within a few seconds
// of a 2 s deadline; and the process stays well under a gigabyte.
func TestCLIJQBounds(t *testing.T) {
	bin := ctxqlBinary(t)
	for _, c := range []struct {
		expr    string
		timeout time.Duration
		want    string // "" means a result
	}{
		{`("a"*100000)|[splits("")]|length`, 10 * time.Second, ""},
		{`("a"*200000)|gsub("";"b")|length`, 10 * time.Second, ""},
		{`def f: [f]; f`, 2 * time.Second, "(raise with --"},
		{`[limit(40;"a"|recurse(.+.))]`, 2 * time.Second, "(raise with --"},
		{`[range(1e9)]|length`, 2 * time.Second, "(raise with --"},
		{`reduce range(1e8) as $i (null; [.])`, 2 * time.Second, "(raise with --"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			cmd := exec.Command(bin, "acp", "query", "--force", "--cache", fixture, "--timeout", c.timeout.String(), "--max-memory", "268435456", c.expr)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			d := time.Since(start)
			code := cmd.ProcessState.ExitCode()
			if c.want == "" {
				if err != nil {
					t.Errorf("exit %d: %s", code, stderr.String())
				}
			} else if code != 1 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), c.want)
			}
			if d > c.timeout+6*time.Second {
				t.Errorf("took %s under a %s deadline", d, c.timeout)
			}
			if rss, ok := ostest.PeakRSS(cmd.ProcessState); ok && rss > 1<<30 {
				t.Errorf("peak RSS %d MB under a 256 MB budget", rss>>20)
			}
		})
	}
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(bombChild); spec != "" {
		runBombChild(spec)
		return
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
