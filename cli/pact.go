package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// newEvalPactCmd builds `ctxql eval pact [--dialect v1|v2] --data FILE [--options JSON] SELECTOR`.
func newEvalPactCmd(env Env) *cobra.Command {
	var data, dialect, options string
	var explain, profile, timed bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "pact [--dialect v1|v2] --data FILE [--options JSON] SELECTOR",
		Short: "Evaluate a PACT selector or query",
		Long: "Evaluate a PACT selector (v1) or query (v2, the default dialect) over snapshot data.\n" +
			"Data is {\"root\": {...}} (one snapshot, @t0) or {\"snapshots\": [{\"cycle\": N, \"root\": {...}}, ...]}.\n" +
			"Prints a JSON array of node ids, or a RangeDiffLatestResult object for a snapshot range;\n" +
			"--options (JSON: includeContent, contentMode, contextLines, maxSnapshots, maxChangesPerSnapshot)\n" +
			"applies to ranges. --timeout bounds the load and the evaluation; --timing prints on stderr\n" +
			"the load, evaluation and output times as one JSON object.\n" +
			"Exit 1 on an invalid selector or when the time limit runs out, 2 on usage or data errors.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel, err := evalTimeout(cmd.Context(), "pact", timeout)
			defer cancel()
			if err != nil {
				return err
			}
			ctx, stop := startTiming(ctx, timed, env.Stderr)
			defer stop()
			if explain || profile {
				return runExplainPact(ctx, env.Stdout, env.Stderr, data, dialect, args[0], profile)
			}
			return runEvalPact(ctx, env.Stdout, env.Stderr, data, dialect, options, args[0])
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "snapshot data file (required)")
	cmd.Flags().StringVar(&dialect, "dialect", "v2", "selector dialect: v1 or v2")
	cmd.Flags().StringVar(&options, "options", "", "range options as a JSON object")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the candidate count after each step and filter instead of the ids")
	cmd.Flags().BoolVar(&profile, "profile", false, "--explain with the time of each step, and the slowest steps")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "time limit of the load and the evaluation (0: none)")
	addTimingFlag(cmd, &timed)
	return cmd
}

// pactLang is the PACT row of the language table.
func pactLang() *lang.Language { return lang.ByID(lang.PACT) }

// runEvalPact is the command's logic, free of cobra types.
func runEvalPact(ctx context.Context, out, errw io.Writer, data, dialect, options, src string) error {
	if err := pactLang().CheckOptions([]byte(options)); err != nil {
		return Usagef("ctxql eval pact: %w", err)
	}
	q, ds, err := preparePACT(ctx, errw, data, dialect, src)
	if err != nil {
		return err
	}
	q.Options = []byte(options)
	res, err := pactLang().Evaluate(ctx, ds, q, lang.Budget{})
	markEvaluated(ctx)
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("ctxql eval pact: %w", err)}
	}
	if res.Invalid() {
		return reportInvalid(errw, "", res.File, res.Diagnostics)
	}
	if err := res.Print(out); err != nil {
		return fmt.Errorf("ctxql eval pact: %w", err)
	}
	return nil
}

// preparePACT checks the flags and the query in its dialect (an invalid
// query fails before the data is read) and loads the data, as eval and
// --explain both need.
func preparePACT(ctx context.Context, errw io.Writer, data, dialect, src string) (lang.Query, lang.Data, error) {
	d, err := lang.DialectOr(dialect, lang.V2)
	if err != nil {
		return lang.Query{}, nil, Usagef("ctxql eval pact: --dialect %w", err)
	}
	if data == "" {
		return lang.Query{}, nil, Usagef("ctxql eval pact: --data is required")
	}
	q := lang.Query{Name: "selector", Src: src, Dialect: d}
	if ds := pactLang().CheckQuery(q.Name, src, d); syntax.HasErrors(ds) {
		return q, nil, reportInvalid(errw, "", syntax.NewFile(q.Name, src), ds)
	}
	loaded, err := pactLang().Load(ctx, dataFiles(ctx), data)
	if err != nil {
		return q, nil, loadFailed("ctxql eval pact: ", err)
	}
	markLoaded(ctx)
	return q, loaded, nil
}

// runExplainPact prints the candidate count after each step and filter of
// the query, and the step that emptied it when it matches nothing.
func runExplainPact(ctx context.Context, out, errw io.Writer, data, dialect, src string, profile bool) error {
	q, ds, err := preparePACT(ctx, errw, data, dialect, src)
	if err != nil {
		return err
	}
	x, err := pactLang().Explain(ctx, ds, q, lang.Explain{Profile: profile})
	markEvaluated(ctx)
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("ctxql eval pact: %w", err)}
	}
	if x.Invalid() {
		return reportInvalid(errw, "", x.File, x.Diagnostics)
	}
	return x.Format(out)
}

// limitError adds to an evaluation stopped by its budget how to raise the
// limit on the command line.
func limitError(err error, flag string) error {
	var le *lang.LimitError
	if errors.As(err, &le) {
		return le.WithFlag(flag)
	}
	return err
}
