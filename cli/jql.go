package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// newEvalJQLCmd builds `ctxql eval jql --data FILE QUERY`.
func newEvalJQLCmd(env Env) *cobra.Command {
	var data, queryFile string
	cmd := &cobra.Command{
		Use:   "jql --data FILE (QUERY | --query-file F)",
		Short: "Evaluate a JQL query",
		Long: "Evaluate a JQL query (JSON, object-literal or YAML text) over sessions and activities.\n" +
			"Data is a JSON object {\"sessions\": [...], \"activities\": [...]}, a JSON array or JSON Lines\n" +
			"file of the queried domain, YAML, or a directory with sessions.jsonl / activities.jsonl.\n" +
			"Prints a JSON array of result documents; exit 1 on an invalid query, 2 on usage or data errors.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalJQL(cmd.Context(), env, data, queryFile, args)
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "data file or directory (required)")
	cmd.Flags().StringVar(&queryFile, "query-file", "", "read the query from this file instead of the argument")
	return cmd
}

func runEvalJQL(ctx context.Context, env Env, data, queryFile string, args []string) error {
	if data == "" {
		return Usagef("ctxql eval jql: --data is required")
	}
	if _, err := dataFiles(ctx).Stat(data); err != nil {
		return Usagef("ctxql eval jql: %w", err)
	}
	name, src := "query", ""
	switch {
	case queryFile != "" && len(args) > 0:
		return Usagef("ctxql eval jql: give the query as an argument or with --query-file, not both")
	case queryFile != "":
		b, err := sourceFiles(ctx).ReadFile(queryFile)
		if err != nil {
			return Usagef("ctxql eval jql: %w", err)
		}
		name, src = queryFile, string(b)
	case len(args) == 1:
		src = args[0]
	default:
		return Usagef("ctxql eval jql: missing QUERY (or --query-file)")
	}
	return evalJQL(ctx, env.Stdout, env.Stderr, name, src, evjql.File{Path: data, Files: dataFiles(ctx)})
}

// evalJQL parses and evaluates one query, printing results to out and
// diagnostics ("name:line:col: Kind: message") to errw.
func evalJQL(ctx context.Context, out, errw io.Writer, name, src string, data evjql.Source) error {
	f := syntax.NewFile(name, src)
	var q *syn.Query
	var ds []syntax.Diagnostic
	if syn.IsYAMLName(name) {
		pf := syn.ParseFile(name, src)
		ds = pf.Diagnostics
		if len(pf.Queries) > 0 {
			q = pf.Queries[0]
		}
		if len(pf.Queries) != 1 {
			q2, d2 := syn.ParseQuery(src)
			q, ds = q2, d2
		}
	} else {
		q, ds = syn.ParseQuery(src)
	}
	res, err := evjql.EvalQuery(ctx, q, ds, data)
	var qe *evjql.QueryError
	var de *evjql.DataError
	switch {
	case errors.As(err, &qe):
		for _, d := range qe.Diagnostics {
			fmt.Fprintf(errw, "%s:%s\n", name, d.Format(f))
		}
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("ctxql eval jql: invalid query (%d error(s))", len(qe.Diagnostics))}
	case errors.As(err, &de):
		return Usagef("ctxql eval jql: %w", err)
	case err != nil:
		return Usagef("ctxql eval jql: %w", err)
	}
	for _, d := range res.Warnings {
		fmt.Fprintf(errw, "%s:%s: warning: %s\n", name, f.Position(d.Span.Start), d.Message)
	}
	if err := res.WriteJSON(out); err != nil {
		return fmt.Errorf("ctxql eval jql: %w", err)
	}
	return nil
}
