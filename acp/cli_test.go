package acp_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/cli"
	"github.com/ctxql/ctxql/internal/golden"
)

const fixture = "../testdata/acp/project/.acp.cache.json"

// TestCLIGolden runs `ctxql acp ...` in-process for each archive: the args
// section holds one argument per line (--cache FIXTURE is appended), the
// stdout, stderr and exit sections the expected results.
func TestCLIGolden(t *testing.T) {
	golden.Run(t, "../testdata/acp/cli/*.txtar", func(t *testing.T, c *golden.Case) {
		args := strings.Split(strings.TrimRight(c.Input("args"), "\n"), "\n")
		args = append(args, "--cache", fixture)
		var out, errb bytes.Buffer
		code := cli.Main(context.Background(), args, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		c.Want("stdout", out.String())
		c.Want("stderr", errb.String())
		c.Want("exit", fmt.Sprintf("%d\n", code))
	})
}
