// Command ctxql evaluates, checks, formats and migrates PACT, JQL and Datalog
// queries, and serves them to editors (LSP) and AI assistants (MCP).
//
// SIGINT and SIGTERM stop a run: files are left with their old or their new
// content, and the exit status is 130 (SIGINT) or 143 (SIGTERM).
//
// CTXQL_CPUPROFILE=file (or a directory) writes a CPU profile of the run.
package main

import (
	"context"
	"os"

	"github.com/ctxql/ctxql/cli"
	"github.com/ctxql/ctxql/internal/cpuprof"
)

func main() {
	setHeap(os.Args[1:])
	stop := cpuprof.Start(os.Getenv, os.Stderr)
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	code := cli.RunInterruptible(os.Stderr, func(ctx context.Context) int {
		return cli.Main(ctx, os.Args[1:], env)
	})
	stop()
	os.Exit(code)
}
