// Command lsp is the ctxql language server on stdio, the same server as
// "ctxql lsp", for editors that want a program of its own.
//
// SIGINT and SIGTERM end the server with exit status 130 and 143, as they
// end any ctxql command.
package main

import (
	"context"
	"os"

	"github.com/ctxql/ctxql/cli"
)

func main() {
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cli.RunInterruptible(os.Stderr, func(ctx context.Context) int {
		return cli.RunCommand(ctx, cli.NewLSPCommand(env), os.Args[1:], env)
	}))
}
