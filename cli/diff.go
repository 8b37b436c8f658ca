package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/resultdiff"
)

// diffFlags are the flags of "ctxql diff".
type diffFlags struct {
	base         string
	format       string
	maxDataBytes int64
	timeout      time.Duration
	maxItems     int
	ignoreAdded  bool
	all          bool
}

func newDiffCmd(env Env) *cobra.Command {
	f := &diffFlags{}
	cmd := &cobra.Command{
		Use:   "diff [--base REF] [--format text|json|sarif|github] [--ignore-added] [--all] [PATH...]",
		Short: "Report saved queries whose results changed since a git revision",
		Long: "Evaluate every saved query (.pact, .jql, .jql.json, .jql.yaml, .jql.yml and .dl files with sample data " +
			"named by a \"// data: PATH\" line or a .ctxql.yaml data glob) twice: at the base revision, queries and data " +
			"both read from git, and in the working tree. Report each query whose results differ, with the results added " +
			"and removed (PACT node ids, JQL documents, Datalog tuples of each derived relation). Renamed files are " +
			"followed; queries of deleted and new files are reported as removed and added. Files whose query, data and " +
			"configuration are the same in both versions are not evaluated (--all evaluates them too).\n\n" +
			"PATHs (files or directories) limit the comparison; without them the whole work tree is compared.\n\n" +
			"Exit status: 0 when no result changed, 1 when one did, 2 on usage errors (outside a git work tree, an " +
			"unknown revision).",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), env, f, args)
		},
	}
	cmd.Flags().StringVar(&f.base, "base", "HEAD", "the git revision to compare with")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: "+strings.Join(resultdiff.Formats, ", "))
	cmd.Flags().Int64Var(&f.maxDataBytes, "max-data-bytes", DefaultMaxDataBytes, "largest query or data file read, in bytes (0: no limit)")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "time limit of the evaluation of one file")
	cmd.Flags().IntVar(&f.maxItems, "max-results", 20, "text output: results listed per side of a change")
	cmd.Flags().BoolVar(&f.ignoreAdded, "ignore-added", false, "leave out queries the base revision does not have (new queries change no earlier result)")
	cmd.Flags().BoolVar(&f.all, "all", false, "evaluate every saved query, also those whose query, data and configuration did not change")
	return cmd
}

func runDiff(ctx context.Context, env Env, f *diffFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !slices.Contains(resultdiff.Formats, f.format) {
		return Usagef("diff: unknown --format %q (want %s)", f.format, strings.Join(resultdiff.Formats, ", "))
	}
	// The base revision's directory is removed when the run ends, and also
	// when a signal ends the process before the run has stopped.
	baseDir, err := resultdiff.TempDir()
	if err != nil {
		return Usagef("diff: %w", err)
	}
	defer os.RemoveAll(baseDir)
	onInterrupt(ctx, func() { os.RemoveAll(baseDir) })
	rep, err := resultdiff.Run(ctx, resultdiff.Options{Base: f.base, Paths: args, MaxDataBytes: f.maxDataBytes,
		Raise: "--max-data-bytes", Timeout: f.timeout, IgnoreAdded: f.ignoreAdded, All: f.all, BaseDir: baseDir})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, resultdiff.ErrNotRepo), errors.Is(err, resultdiff.ErrBadRevision):
		return Usagef("diff: %w", err)
	case err != nil:
		return Usagef("diff: %w", err)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(env.Stderr, "diff: %s: skipped: a link to %s, outside the paths compared\n", s.Path, s.Target)
	}
	if err := resultdiff.Write(env.Stdout, f.format, rep, resultdiff.WriteOptions{Version: Version, MaxItems: f.maxItems}); err != nil {
		return err
	}
	if len(rep.Changes) > 0 {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}
