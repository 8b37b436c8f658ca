// Command lsp is the ctxql language server on stdio, the same server as
// "ctxql lsp", for editors that want a program of its own.
package main

import (
	"context"
	"os"

	"github.com/ctxql/ctxql/cli"
)

func main() {
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cli.RunCommand(context.Background(), cli.NewLSPCommand(env), os.Args[1:], env))
}
