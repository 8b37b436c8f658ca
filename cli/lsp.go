package cli

import "github.com/spf13/cobra"

// newLSPCmd is being built; it reports that the command is not available yet.
func newLSPCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "lsp",
		Short:  "Run the language server on stdio",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql lsp: not available in this build")
		},
	}
}
