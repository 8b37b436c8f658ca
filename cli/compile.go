package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/lang"
)

// newCompileCmd builds `ctxql compile jql|datalog --to DIALECT QUERY`.
func newCompileCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "Compile a query to a database's SQL",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return Usagef("ctxql compile: name a language: %s", subNames(c))
		},
	}
	cmd.AddCommand(newCompileLangCmd(env, lang.JQL, "jql", "QUERY | --query-file F",
		"Compile a JQL query to one SELECT over the sessions and activities tables of docs/sql.md:\n"+
			"its conditions, order, limit and startAfter cursor run in the database, which returns\n"+
			"the stored documents of the result; `ctxql eval jql --engine URL` projects them as the\n"+
			"in-process evaluator does."))
	cmd.AddCommand(newCompileLangCmd(env, lang.Datalog, "datalog", "RULE | --rules FILE",
		"Compile a Datalog rule, or the program of --rules FILE, to one WITH RECURSIVE statement per\n"+
			"derived relation over the relation tables of docs/sql.md, checked against the relations of\n"+
			"--data (required): non-recursive relations as CTEs, linear recursion as recursive CTEs,\n"+
			"other recursion as a semi-naive script ctxql drives, negation as NOT EXISTS, conditions,\n"+
			"count and not() aggregates, disjunctions, constant ranges and plain lets as SQL of their\n"+
			"own. Constructs not compiled are refused where they stand."))
	return cmd
}

// newCompileLangCmd builds the compile subcommand of one language.
func newCompileLangCmd(env Env, id lang.ID, name, args, long string) *cobra.Command {
	var to, queryFile, rulesPath, dataPath, mapping string
	cmd := &cobra.Command{
		Use:   name + " --to sqlite|postgres|duckdb (" + args + ")",
		Short: "Compile a " + lang.ByID(id).Name + " query to SQL",
		Long: long + "\nExit status: 0 on success, 1 when the query is invalid or a construct of it cannot be\n" +
			"compiled to the dialect (the message names it), 2 on usage errors.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, a []string) error {
			prefix := "ctxql compile " + name + ": "
			if to == "" {
				return Usagef("%s--to is required (sqlite, postgres or duckdb)", prefix)
			}
			d, err := lang.ParseSQLDialect(to)
			if err != nil {
				return Usagef("%s--to: %w", prefix, err)
			}
			var q lang.Query
			var schema map[string][]string
			if lang.ByID(id).Program() {
				if dataPath == "" {
					return Usagef("%s--data is required: the program is checked against its relations", prefix)
				}
				data, err := lang.ByID(id).Load(c.Context(), dataFiles(c.Context()), dataPath)
				if err != nil {
					return loadFailed(prefix, err)
				}
				schema = data.Schema()
				q, err = datalogQuery(c.Context(), rulesPath, strings.Join(a, ""), len(a) == 1, true)
				if err != nil {
					return err
				}
			} else {
				var err error
				if q, err = readQueryText(c.Context(), prefix, queryFile, a); err != nil {
					return err
				}
			}
			var m lang.JQLMapping
			if mapping != "" {
				if m, err = readMapping(c.Context(), mapping); err != nil {
					return Usagef("%s%w", prefix, err)
				}
			}
			comp, err := lang.ByID(id).CompileMapped(q, d, schema, m)
			if err != nil {
				return compileFailed(prefix, q.Name, comp, err)
			}
			if comp.Invalid() {
				for _, dg := range comp.Diagnostics {
					fmt.Fprintf(env.Stderr, "%s:%s\n", q.Name, dg.Format(comp.File))
				}
				return Failf("%sinvalid query (%d error(s))", prefix, len(comp.Diagnostics))
			}
			for _, dg := range comp.Diagnostics {
				fmt.Fprintf(env.Stderr, "%s:%s: warning: %s\n", q.Name, comp.File.Position(dg.Span.Start), dg.Message)
			}
			_, err = fmt.Fprint(env.Stdout, comp.Text())
			return err
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the SQL dialect: sqlite, postgres or duckdb (required)")
	if lang.ByID(id).Program() {
		cmd.Flags().StringVar(&rulesPath, "rules", "", "compile the whole program in this .dl file")
		cmd.Flags().StringVar(&dataPath, "data", "", "the data whose relations the program reads (required)")
	} else {
		cmd.Flags().StringVar(&queryFile, "query-file", "", "read the query from this file instead of the argument")
		cmd.Flags().StringVar(&mapping, "mapping", "", "the mapping file the tables were loaded with (flattened columns)")
	}
	return cmd
}

// compileFailed is the error of a query that cannot be compiled: a
// refused construct fails as an invalid query does (exit 1), with its
// position when it has one.
func compileFailed(prefix, name string, comp *lang.Compiled, err error) error {
	var ce *lang.CompileError
	if errors.As(err, &ce) && comp != nil {
		return Failf("%s%s:%s: %w", prefix, name, comp.File.Position(ce.Span.Start), err)
	}
	var ue *lang.UnsupportedError
	if errors.As(err, &ue) {
		return Failf("%s%w", prefix, err)
	}
	return Usagef("%s%w", prefix, err)
}
