package cli

import "github.com/spf13/cobra"

// newReplCmd is being built; it reports that the command is not available yet.
func newReplCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "repl",
		Short:  "Interactive Datalog session",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql repl: not available in this build")
		},
	}
}
