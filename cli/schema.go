package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
)

// newSchemaCmd builds `ctxql schema jql [--json]`.
func newSchemaCmd(env Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "schema jql [--json]",
		Short: "Print the schema of a query language",
		Long:  "Print the JQL schema: domains, fields with types and docs, computed fields, default projections and operators.",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, ok := lang.SchemaOf(lang.ID(args[0]))
			if !ok {
				return Usagef("ctxql schema: unknown language %q (want jql)", args[0])
			}
			return writeSchema(env.Stdout, s, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print machine-readable JSON")
	return cmd
}

// writeSchema prints a language's schema as text, or as JSON.
func writeSchema(w io.Writer, s interface{ WriteText(io.Writer) error }, asJSON bool) error {
	if !asJSON {
		return s.WriteText(w)
	}
	b, err := jsonenc.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
