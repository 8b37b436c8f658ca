// Command ctxql evaluates, checks, formats and migrates PACT, JQL and Datalog
// queries, and serves them to editors (LSP) and AI assistants (MCP).
//
// SIGINT and SIGTERM stop a run: files are left with their old or their new
// content, and the exit status is 130 (SIGINT) or 143 (SIGTERM).
package main

import (
	"context"
	"os"

	"github.com/ctxql/ctxql/cli"
)

func main() {
	oneShotHeap(os.Args[1:])
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cli.RunInterruptible(os.Stderr, func(ctx context.Context) int {
		return cli.Main(ctx, os.Args[1:], env)
	}))
}
