package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/lang"
)

// newEvalJQLCmd builds `ctxql eval jql --data FILE QUERY`.
func newEvalJQLCmd(env Env) *cobra.Command {
	var data, queryFile, engineURL string
	var maxBytes int64
	var explain, profile, timed bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "jql [--explain] --data FILE (QUERY | --query-file F)",
		Short: "Evaluate a JQL query",
		Long: "Evaluate a JQL query (JSON, object-literal or YAML text) over sessions and activities.\n" +
			"Data is a JSON object {\"sessions\": [...], \"activities\": [...]}, a JSON array or JSON Lines\n" +
			"file of the queried domain, YAML, or a directory with sessions.jsonl / activities.jsonl.\n" +
			"Prints a JSON array of result documents; exit 1 on an invalid query, 2 on usage or data errors.\n" +
			"--explain prints instead the documents left after each where condition and the condition\n" +
			"that left none. --timeout bounds the load and the evaluation (exit 1 when it runs out).\n" +
			"--timing prints on stderr the load, evaluation and output times as one JSON object; with it\n" +
			"the data is loaded into memory before the query runs, so the evaluation time is the query's\n" +
			"on loaded data (without it, a file is read once, streaming, as the query runs).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxBytes <= 0 {
				return Usagef("ctxql eval jql: --max-bytes must be positive")
			}
			ctx, cancel, err := evalTimeout(cmd.Context(), "jql", timeout)
			defer cancel()
			if err != nil {
				return err
			}
			ctx, stop := startTiming(ctx, timed, env.Stderr)
			defer stop()
			if engineURL != "" {
				return runEngineJQL(ctx, env, engineURL, data, queryFile, args, lang.Budget{MaxBytes: maxBytes}, explain || profile)
			}
			return runEvalJQL(ctx, env, data, queryFile, args, lang.Budget{MaxBytes: maxBytes}, lang.Explain{Profile: profile}, explain || profile)
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "data file or directory (required)")
	cmd.Flags().StringVar(&queryFile, "query-file", "", "read the query from this file instead of the argument")
	cmd.Flags().Int64Var(&maxBytes, "max-bytes", lang.DefaultMaxBytes, "most bytes of result documents a query may produce")
	cmd.Flags().BoolVar(&explain, "explain", false, "print the documents left after each where condition instead of the results")
	cmd.Flags().BoolVar(&profile, "profile", false, "--explain with the time of each condition, and the slowest conditions")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "time limit of the load and the evaluation (0: none)")
	addTimingFlag(cmd, &timed)
	engineFlag(cmd, &engineURL)
	return cmd
}

// jqlLang is the JQL row of the language table.
func jqlLang() *lang.Language { return lang.ByID(lang.JQL) }

func runEvalJQL(ctx context.Context, env Env, data, queryFile string, args []string, b lang.Budget, xo lang.Explain, explain bool) error {
	if data == "" {
		return Usagef("ctxql eval jql: --data is required")
	}
	// One query reads a file once, streaming; --timing loads it into
	// memory first, so that the evaluation is timed on loaded data.
	load := jqlLang().LoadOnce
	if _, timed := timingOf(ctx); timed {
		load = jqlLang().Load
	}
	loaded, err := load(ctx, dataFiles(ctx), data)
	if err != nil {
		return loadFailed("ctxql eval jql: ", err)
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
	q := lang.Query{Name: name, Src: src}
	markLoaded(ctx)
	if explain {
		return explainJQL(ctx, env.Stdout, env.Stderr, q, loaded, xo)
	}
	return evalJQL(ctx, env.Stdout, env.Stderr, q, loaded, b)
}

// evalJQL evaluates one query, printing results to out and diagnostics
// ("name:line:col: Kind: message") to errw.
func evalJQL(ctx context.Context, out, errw io.Writer, q lang.Query, data lang.Data, b lang.Budget) error {
	res, err := jqlLang().Evaluate(ctx, data, q, b)
	markEvaluated(ctx)
	if err != nil {
		return Usagef("ctxql eval jql: %w", limitError(err, "--max-bytes"))
	}
	if res.Invalid() {
		return reportInvalid(errw, q.Name+":", res.File, res.Diagnostics)
	}
	_ = reportInvalid(errw, q.Name+":", res.File, res.Diagnostics) // its warnings
	if err := res.Print(out); err != nil {
		return fmt.Errorf("ctxql eval jql: %w", err)
	}
	return nil
}

// explainJQL prints the documents of the domain, the documents left after
// each where condition, after the startAfter cursor, and the condition
// that left none, in the style of `eval pact --explain`.
func explainJQL(ctx context.Context, out, errw io.Writer, q lang.Query, data lang.Data, xo lang.Explain) error {
	x, err := jqlLang().Explain(ctx, data, q, xo)
	markEvaluated(ctx)
	if err != nil {
		return Usagef("ctxql eval jql: %w", err)
	}
	if x.Invalid() {
		return reportInvalid(errw, q.Name+":", x.File, x.Diagnostics)
	}
	return x.Format(out)
}
