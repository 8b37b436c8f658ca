// Command ctxql evaluates, checks, formats and migrates PACT, JQL and Datalog
// queries, and serves them to editors (LSP) and AI assistants (MCP).
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/ctxql/ctxql/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}
