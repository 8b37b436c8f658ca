package cli

import (
	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/lsp"
)

// newLSPCmd serves the language server on stdin and stdout.
func newLSPCmd(env Env) *cobra.Command {
	var trace bool
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server on stdio",
		Long: "Run the ctxql language server (Language Server Protocol over stdin and stdout)\n" +
			"for .pact, .jql, .jql.yaml and .dl files. Logs go to stderr.",
		Args:          cobra.NoArgs,
		SilenceErrors: true, // stdout is the protocol; errors go to stderr via the exit code path
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code := lsp.Serve(cmd.Context(), lsp.StdioConn(env.Stdin, env.Stdout),
				lsp.Options{Log: env.Stderr, Trace: trace, Version: Version, OpenEngine: openEngine})
			if code != 0 {
				return &ExitError{Code: code}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&trace, "trace", false, "log every protocol message to stderr")
	return cmd
}

// NewLSPCommand returns the "lsp" command on its own, for the ctxql-lsp
// program (cmd/lsp), which is the same server as "ctxql lsp".
func NewLSPCommand(env Env) *cobra.Command { return newLSPCmd(env) }
