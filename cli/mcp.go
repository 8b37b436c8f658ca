package cli

import "github.com/spf13/cobra"

// newMCPCmd is being built; it reports that the command is not available yet.
func newMCPCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:    "mcp",
		Short:  "Serve ACP and ctxql tools over MCP (stdio)",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("ctxql mcp: not available in this build")
		},
	}
}
