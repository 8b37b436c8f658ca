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

// batchHeap is the heap a run starts with before the garbage collector
// paces it as usual (see package gcstart), as for "ctxql check".
const batchHeap = 256 << 20

func main() {
	gcstart.Start(batchHeap)
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cli.RunInterruptible(os.Stderr, func(ctx context.Context) int {
		return cli.RunCommand(ctx, cli.NewCheckCommand(env), os.Args[1:], env)
	}))
}
