// Command lint is "ctxql check" as a program of its own, for pre-commit
// hooks and CI steps that want a linter binary: the same flags, output and
// exit codes.
package main

import (
	"context"
	"os"

	"github.com/ctxql/ctxql/cli"
	"github.com/ctxql/ctxql/internal/gcstart"
)

func main() {
	gcstart.Start(gcstart.Batch) // as "ctxql check" does
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cli.RunInterruptible(os.Stderr, func(ctx context.Context) int {
		return cli.RunCommand(ctx, cli.NewCheckCommand(env), os.Args[1:], env)
	}))
}
