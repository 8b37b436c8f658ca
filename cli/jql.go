package cli

import "github.com/spf13/cobra"

// newEvalJQLCmd is being built; it reports that the command is not available yet.
func newEvalJQLCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "jql",
		Short:  "Evaluate a JQL query",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql jql: not available in this build")
		},
	}
}
