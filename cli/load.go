package cli

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/lang"
)

// newLoadCmd builds `ctxql load --engine URL [--lang jql|datalog] DATA`.
func newLoadCmd(env Env) *cobra.Command {
	var url, language string
	var maxData int64
	cmd := &cobra.Command{
		Use:   "load --engine URL [--lang jql|datalog] DATA",
		Short: "Create and fill a database's tables from query data",
		Long: "Create the tables of docs/sql.md in the database URL names (sqlite:FILE, postgres://…)\n" +
			"and fill them from DATA, read as `ctxql eval` reads it: JQL's sessions and activities, or\n" +
			"with --lang datalog one table per relation and the catalog of their parameter types.\n" +
			"Tables of the same names are replaced, in one transaction. Prints the rows per table.\n" +
			"Exit status: 0 on success, 2 on usage errors, unreadable data or a database error.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if url == "" {
				return Usagef("ctxql load: --engine is required (sqlite:FILE or postgres://…)")
			}
			l := lang.ByID(lang.ID(language))
			if l == nil || !l.Compiles() {
				return Usagef("ctxql load: --lang: want jql or datalog, found %q", language)
			}
			return runLoad(c.Context(), env, l, url, args[0], maxData)
		},
	}
	cmd.Flags().StringVar(&url, "engine", "", "the database: sqlite:FILE or postgres://… (required)")
	cmd.Flags().StringVar(&language, "lang", "jql", "the language whose data DATA is")
	cmd.Flags().Int64Var(&maxData, "max-data-bytes", DefaultMaxDataBytes, "largest data file read, in bytes (0: no limit)")
	return cmd
}

func runLoad(ctx context.Context, env Env, l *lang.Language, url, data string, maxData int64) error {
	ts, err := l.LoadTables(ctx, dataFilesLimit(maxData), data)
	if err != nil {
		return loadFailed("ctxql load: ", err)
	}
	db, err := engine.Open(ctx, url)
	if err != nil {
		return Usagef("ctxql load: %w", err)
	}
	defer db.Close()
	counts, err := db.Load(ctx, ts.Tables, func(emit func(string, []any) error) error {
		return ts.Rows(ctx, emit)
	})
	if err != nil {
		return loadFailed("ctxql load: ", err)
	}
	names := make([]string, 0, len(ts.Tables))
	for _, t := range ts.Tables {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(env.Stdout, "%s\t%d\n", n, counts[n])
	}
	return nil
}
