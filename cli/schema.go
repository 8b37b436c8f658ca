package cli

import "github.com/spf13/cobra"

// newSchemaCmd is being built; it reports that the command is not available yet.
func newSchemaCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "schema",
		Short:  "Print the schema of a query language",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql schema: not available in this build")
		},
	}
}
