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
	var url, language, mapping string
	var maxData int64
	cmd := &cobra.Command{
		Use:   "load --engine URL [--lang jql|datalog] DATA",
		Short: "Create and fill a database's tables from query data",
		Long: "Create the tables of docs/sql.md in the database URL names (sqlite:FILE, postgres://…)\n" +
			"and fill them from DATA, read as `ctxql eval` reads it: JQL's sessions and activities, or\n" +
			"with --lang datalog one table per relation and the catalog of their parameter types.\n" +
			"Tables of the same names are replaced, in one transaction. Prints the rows per table.\n" +
			"--mapping FILE (JQL) keeps the fields it names in flattened columns of the domain's table\n" +
			"as well (docs/sql.md); eval --engine reads the mapping from the database.\n" +
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
			var m lang.JQLMapping
			if mapping != "" {
				if !l.Maps() {
					return Usagef("ctxql load: --mapping maps JQL fields; it does not take --lang %s", language)
				}
				var err error
				if m, err = readMapping(c.Context(), mapping); err != nil {
					return Usagef("ctxql load: %w", err)
				}
			}
			return runLoad(c.Context(), env, l, url, args[0], maxData, m)
		},
	}
	cmd.Flags().StringVar(&url, "engine", "", "the database: sqlite:FILE or postgres://… (required)")
	cmd.Flags().StringVar(&language, "lang", "jql", "the language whose data DATA is")
	cmd.Flags().StringVar(&mapping, "mapping", "", "JQL: a YAML or JSON file naming the fields kept in flattened columns")
	cmd.Flags().Int64Var(&maxData, "max-data-bytes", DefaultMaxDataBytes, "largest data file read, in bytes (0: no limit)")
	return cmd
}

// readMapping reads a JQL mapping file.
func readMapping(ctx context.Context, path string) (lang.JQLMapping, error) {
	b, err := sourceFiles(ctx).ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := lang.ParseJQLMapping(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func runLoad(ctx context.Context, env Env, l *lang.Language, url, data string, maxData int64, m lang.JQLMapping) error {
	ts, err := l.LoadTablesMapped(ctx, dataFilesLimit(maxData), data, m)
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
