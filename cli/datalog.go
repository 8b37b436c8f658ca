package cli

import "github.com/spf13/cobra"

// newEvalDatalogCmd is being built; it reports that the command is not available yet.
func newEvalDatalogCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "datalog",
		Short:  "Evaluate a Datalog rule or program",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql datalog: not available in this build")
		},
	}
}
