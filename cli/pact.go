package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// newEvalPactCmd builds `ctxql eval pact [--dialect v1|v2] --data FILE [--options JSON] SELECTOR`.
func newEvalPactCmd(env Env) *cobra.Command {
	var data, dialect, options string
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
			return runEvalPact(cmd.Context(), env.Stdout, data, dialect, options, args[0])
		},
	}
	cmd.Flags().StringVar(&data, "data", "", "snapshot data file (required)")
	cmd.Flags().StringVar(&dialect, "dialect", "v2", "selector dialect: v1 or v2")
	cmd.Flags().StringVar(&options, "options", "", "range options as a JSON object")
	return cmd
}

// runEvalPact is the command's logic, free of cobra types.
func runEvalPact(ctx context.Context, out io.Writer, data, dialect, options, src string) error {
	var d syn.Dialect
	switch dialect {
	case "v1":
		d = syn.V1
	case "v2", "":
		d = syn.V2
	default:
		return Usagef("ctxql eval pact: --dialect must be v1 or v2, not %q", dialect)
	}
	if data == "" {
		return Usagef("ctxql eval pact: --data is required")
	}
	opts, err := evpact.ParseOptions([]byte(options))
	if err != nil {
		return Usagef("ctxql eval pact: %w", err)
	}
	file := syntax.NewFile("selector", src)
	q, diags := syn.ParseQuery(src, d)
	for _, dg := range diags {
		if dg.Severity == syntax.SeverityError {
			return Failf("%s", dg.Format(file))
		}
	}
	plan, err := evpact.Compile(q, src)
	if err != nil {
		return queryError(file, err)
	}
	ds, err := evpact.LoadFileFrom(dataFiles(ctx), data)
	if err != nil {
		return Usagef("ctxql eval pact: %w", err)
	}
	res, err := plan.Eval(ctx, ds, opts)
	if err != nil {
		return queryError(file, err)
	}
	var b []byte
	if res.Range != nil {
		b, err = json.MarshalIndent(res, "", "  ")
	} else {
		b, err = json.Marshal(res)
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
