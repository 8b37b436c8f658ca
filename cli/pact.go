package cli

import "github.com/spf13/cobra"

// newEvalPactCmd is being built; it reports that the command is not available yet.
func newEvalPactCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "pact",
		Short:  "Evaluate a PACT selector or query",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql pact: not available in this build")
		},
	}
}
