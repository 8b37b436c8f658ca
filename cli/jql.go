package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// newEvalJQLCmd builds `ctxql eval jql --data FILE QUERY`.
func newEvalJQLCmd(env Env) *cobra.Command {
	var data, queryFile string
	var maxBytes int64
	var explain bool
	cmd := &cobra.Command{
		Use:   "jql [--explain] --data FILE (QUERY | --query-file F)",
		Short: "Evaluate a JQL query",
		Long: "Evaluate a JQL query (JSON, object-literal or YAML text) over sessions and activities.\n" +
			"Data is a JSON object {\"sessions\": [...], \"activities\": [...]}, a JSON array or JSON Lines\n" +
			"file of the queried domain, YAML, or a directory with sessions.jsonl / activities.jsonl.\n" +
			"Prints a JSON array of result documents; exit 1 on an invalid query, 2 on usage or data errors.\n" +
			"--explain prints instead the documents left after each where condition and the condition\n" +
			"that left none.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxBytes <= 0 {
				return Usagef("ctxql eval jql: --max-bytes must be positive")
			}
			return runEvalJQL(cmd.Context(), env, data, queryFile, args, evjql.Options{MaxBytes: maxBytes}, explain)
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "data file or directory (required)")
	cmd.Flags().StringVar(&queryFile, "query-file", "", "read the query from this file instead of the argument")
	cmd.Flags().Int64Var(&maxBytes, "max-bytes", evjql.DefaultMaxBytes, "most bytes of result documents a query may produce")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the documents left after each where condition instead of the results")
	return cmd
}

func runEvalJQL(ctx context.Context, env Env, data, queryFile string, args []string, opts evjql.Options, explain bool) error {
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
	source := evjql.File{Path: data, Files: dataFiles(ctx)}
	if explain {
		return explainJQL(ctx, env.Stdout, env.Stderr, name, src, source)
	}
	return evalJQL(ctx, env.Stdout, env.Stderr, name, src, source, opts)
}

// evalJQL parses and evaluates one query, printing results to out and
// diagnostics ("name:line:col: Kind: message") to errw.
func evalJQL(ctx context.Context, out, errw io.Writer, name, src string, data evjql.Source, opts evjql.Options) error {
	f := syntax.NewFile(name, src)
	q, ds := parseJQL(name, src)
	res, err := evjql.EvalQueryOptions(ctx, q, ds, data, opts)
	if err := jqlError(errw, name, f, err); err != nil {
		return err
	}
	for _, d := range res.Warnings {
		fmt.Fprintf(errw, "%s:%s: warning: %s\n", name, f.Position(d.Span.Start), d.Message)
	}
	if err := res.WriteJSON(out); err != nil {
		return fmt.Errorf("ctxql eval jql: %w", err)
	}
	return nil
}

// parseJQL parses the query of a command line or query file: a YAML file
// holding one query document gives that query, anything else is parsed
// as a single query.
func parseJQL(name, src string) (*syn.Query, []syntax.Diagnostic) {
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
	return q, ds
}

// jqlError prints the diagnostics of an invalid query and returns the
// command's error for err (nil when err is nil).
func jqlError(errw io.Writer, name string, f *syntax.File, err error) error {
	var qe *evjql.QueryError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &qe):
		for _, d := range qe.Diagnostics {
			fmt.Fprintf(errw, "%s:%s\n", name, d.Format(f))
		}
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("ctxql eval jql: invalid query (%d error(s))", len(qe.Diagnostics))}
	default: // data errors, unreadable data, cancellation

		return Usagef("ctxql eval jql: %w", err)
	}
}

// explainJQL prints the documents of the domain, the documents left after
// each where condition, after the startAfter cursor, and the condition
// that left none, in the style of `eval pact --explain`.
func explainJQL(ctx context.Context, out, errw io.Writer, name, src string, data evjql.Source) error {
	f := syntax.NewFile(name, src)
	q, ds := parseJQL(name, src)
	ex, err := evjql.Explain(ctx, q, ds, data)
	if err := jqlError(errw, name, f, err); err != nil {
		return err
	}
	type line struct {
		pos   string
		text  string
		count int
	}
	lines := []line{{"", "from " + ex.Domain, ex.Total}}
	if q.From != nil {
		lines[0].pos = f.Position(q.From.Sp.Start).String()
	}
	for i, st := range ex.Steps {
		at := st.Span.Start
		if i > 0 && ex.Steps[i-1].KeySpan == st.KeySpan {
			at = st.OpSpan.Start // a further operator of the same where entry
		}
		lines = append(lines, line{f.Position(at).String(), jqlStepText(src, q.Where[i]), st.Left})
	}
	emptied := -1
	switch {
	case ex.Total == 0:
		emptied = 0
	case ex.Emptied() >= 0:
		emptied = ex.Emptied() + 1
	}
	if ex.Cursor {
		l := line{"", "startAfter " + strconv.Quote(q.StartAfter), ex.AfterCursor}
		if q.StartAfterValue != nil {
			l.pos = f.Position(q.StartAfterValue.Sp.Start).String()
		}
		lines = append(lines, l)
		if emptied < 0 && ex.AfterCursor == 0 {
			emptied = len(lines) - 1
		}
	}
	w := 0
	for _, l := range lines {
		w = max(w, len(l.text))
	}
	for i, l := range lines {
		mark := ""
		if i == emptied {
			mark = "  <- emptied here"
		}
		fmt.Fprintf(out, "%-6s %-*s %8d%s\n", l.pos, w, l.text, l.count, mark)
	}
	if emptied >= 0 {
		l := lines[emptied]
		_, err = fmt.Fprintf(out, "no match: %s at %s left no documents\n", l.text, l.pos)
	} else {
		_, err = fmt.Fprintf(out, "%d document(s) returned (limit %d)\n", ex.Returned, q.Limit)
	}
	return err
}

// jqlStepText renders a where condition on one line for explanations:
// its path, operator and operand as written ("type eq 'planGenerated'",
// "artifacts.exitCode gt 1"), the operand cut to 40 characters.
func jqlStepText(src string, c *syn.Condition) string {
	t := c.Path.Text + " " + c.Op
	if c.Operand != nil && c.Operand.Sp.End <= len(src) && c.Operand.Sp.Start < c.Operand.Sp.End {
		op := strings.Join(strings.Fields(src[c.Operand.Sp.Start:c.Operand.Sp.End]), " ")
		if r := []rune(op); len(r) > 40 {
			op = string(r[:39]) + "…"
		}
		t += " " + op
	}
	return t
}
