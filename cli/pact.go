package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// newEvalPactCmd builds `ctxql eval pact [--dialect v1|v2] --data FILE [--options JSON] SELECTOR`.
func newEvalPactCmd(env Env) *cobra.Command {
	var data, dialect, options string
	var explain bool
	cmd := &cobra.Command{
		Use:   "pact [--dialect v1|v2] --data FILE [--options JSON] SELECTOR",
		Short: "Evaluate a PACT selector or query",
		Long: "Evaluate a PACT selector (v1) or query (v2, the default dialect) over snapshot data.\n" +
			"Data is {\"root\": {...}} (one snapshot, @t0) or {\"snapshots\": [{\"cycle\": N, \"root\": {...}}, ...]}.\n" +
			"Prints a JSON array of node ids, or a RangeDiffLatestResult object for a snapshot range;\n" +
			"--options (JSON: includeContent, contentMode, contextLines, maxSnapshots, maxChangesPerSnapshot)\n" +
			"applies to ranges. Exit 1 on an invalid selector, 2 on usage or data errors.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if explain {
				return runExplainPact(cmd.Context(), env.Stdout, data, dialect, args[0])
			}
			return runEvalPact(cmd.Context(), env.Stdout, data, dialect, options, args[0])
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "snapshot data file (required)")
	cmd.Flags().StringVar(&dialect, "dialect", "v2", "selector dialect: v1 or v2")
	cmd.Flags().StringVar(&options, "options", "", "range options as a JSON object")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the candidate count after each step and filter instead of the ids")
	return cmd
}

// runEvalPact is the command's logic, free of cobra types.
func runEvalPact(ctx context.Context, out io.Writer, data, dialect, options, src string) error {
	opts, err := evpact.ParseOptions([]byte(options))
	if err != nil {
		return Usagef("ctxql eval pact: %w", err)
	}
	plan, ds, file, err := preparePACT(ctx, data, dialect, src)
	if err != nil {
		return err
	}
	res, err := plan.Eval(ctx, ds, opts)
	if err != nil {
		return queryError(file, err)
	}
	var b []byte
	if res.Range != nil {
		b, err = jsonenc.MarshalIndent(res, "", "  ")
	} else {
		b, err = jsonenc.Marshal(res)
	}
	if err != nil {
		return fmt.Errorf("ctxql eval pact: %w", err)
	}
	_, err = fmt.Fprintf(out, "%s\n", b)
	return err
}

func queryError(file *syntax.File, err error) error {
	var qe *evpact.Error
	if errors.As(err, &qe) {
		return Failf("%s: %s", file.Position(qe.Span.Start), qe.Msg)
	}
	return &ExitError{Code: 1, Err: fmt.Errorf("ctxql eval pact: %w", err)}
}

// preparePACT checks the flags, compiles the query in its dialect and
// loads the data, as eval and --explain both need.
func preparePACT(ctx context.Context, data, dialect, src string) (*evpact.Plan, *evpact.Data, *syntax.File, error) {
	var d syn.Dialect
	switch dialect {
	case "v1":
		d = syn.V1
	case "v2", "":
		d = syn.V2
	default:
		return nil, nil, nil, Usagef("ctxql eval pact: --dialect must be v1 or v2, not %q", dialect)
	}
	if data == "" {
		return nil, nil, nil, Usagef("ctxql eval pact: --data is required")
	}
	file := syntax.NewFile("selector", src)
	q, diags := syn.ParseQuery(src, d)
	for _, dg := range diags {
		if dg.Severity == syntax.SeverityError {
			return nil, nil, nil, Failf("%s", dg.Format(file))
		}
	}
	plan, err := evpact.Compile(q, src)
	if err != nil {
		return nil, nil, nil, queryError(file, err)
	}
	ds, err := evpact.LoadFileFrom(dataFiles(ctx), data)
	if err != nil {
		return nil, nil, nil, Usagef("ctxql eval pact: %w", err)
	}
	return plan, ds, file, nil
}

// runExplainPact prints the candidate count after each step and filter of
// the query, and the step that emptied it when it matches nothing.
func runExplainPact(ctx context.Context, out io.Writer, data, dialect, src string) error {
	plan, ds, file, err := preparePACT(ctx, data, dialect, src)
	if err != nil {
		return err
	}
	e, err := plan.Explain(ctx, ds)
	if err != nil {
		return queryError(file, err)
	}
	w := 0
	for _, st := range e.Steps {
		w = max(w, len(st.Text))
	}
	for i, st := range e.Steps {
		mark := ""
		if i == e.Emptied {
			mark = "  <- emptied here"
		}
		fmt.Fprintf(out, "%-6s %-*s %8d%s\n", file.Position(st.Span.Start), w, st.Text, st.Count, mark)
	}
	if st, ok := e.EmptiedBy(); ok {
		_, err = fmt.Fprintf(out, "no match: %s at %s left no candidates\n", st.Text, file.Position(st.Span.Start))
	} else {
		_, err = fmt.Fprintf(out, "%d match(es)\n", len(e.IDs))
	}
	return err
}
