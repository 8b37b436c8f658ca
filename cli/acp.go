package cli

import "github.com/spf13/cobra"

// newACPCmd is being built; it reports that the command is not available yet.
func newACPCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "acp",
		Short:  "Query an ACP cache",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql acp: not available in this build")
		},
	}
}
