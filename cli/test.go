package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/qtest"
)

// testFlags are the flags of "ctxql test".
type testFlags struct {
	run            string
	verbose        bool
	format         string
	update         bool
	coverage       bool
	coverageFormat string
	coverageOut    string
	threshold      float64
	profile        bool
	jobs           int
	timeout        time.Duration
	maxTuples      int
	maxBytes       int64
	watch          bool
	limits         fileLimits
}

func newTestCmd(env Env) *cobra.Command {
	f := &testFlags{}
	cmd := &cobra.Command{
		Use:   "test [flags] [PATH...]",
		Short: "Run the unit tests of queries (*.ctxqltest.yaml files)",
		Long: "Run the cases of the query test files (" + strings.Join(qtest.Suffixes, ", ") + ") below the PATHs " +
			"(default: the current directory), skipping what .ctxql.yaml excludes. Each case evaluates a PACT, JQL or " +
			"Datalog query on sample data and compares the results with what it expects (docs/test.md).\n\n" +
			"--coverage reports which PACT steps and filters, JQL conditions and Datalog rules and body items the cases " +
			"exercised; --threshold P fails the run below P percent. --profile adds the time and rows of each part. " +
			"--update rewrites the want and count values of failing cases with the results, keeping the rest of the file.\n\n" +
			"Exit status: 0 when every case passes, 1 when one fails (or a test file has errors, or coverage is below " +
			"--threshold), 2 on usage errors.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.watch {
				return watch(cmd.Context(), env, qtest.IsTestFile, func(ctx context.Context) ([]string, error) {
					return runTest(ctx, env, f, args)
				})
			}
			_, err := runTest(cmd.Context(), env, f, args)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.run, "run", "", "run only the cases whose name matches this regular expression")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "list passing cases too")
	fl.StringVar(&f.format, "format", "text", "output format: "+strings.Join(qtest.Formats, ", "))
	fl.BoolVar(&f.update, "update", false, "rewrite the expected values of failing cases with the results")
	fl.BoolVar(&f.coverage, "coverage", false, "report which parts of the queries the cases exercised")
	fl.StringVar(&f.coverageFormat, "coverage-format", "text", "coverage format: "+strings.Join(qtest.CoverageFormats, ", "))
	fl.StringVar(&f.coverageOut, "coverage-out", "", "write the coverage to this file instead of standard output")
	fl.Float64Var(&f.threshold, "threshold", 0, "fail when coverage is below this percentage (implies --coverage)")
	fl.BoolVar(&f.profile, "profile", false, "report the time and rows of each part of the queries, slowest first")
	fl.IntVar(&f.jobs, "jobs", 0, "cases run at once (0: one per CPU)")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "time limit of one case (0: none)")
	fl.IntVar(&f.maxTuples, "max-tuples", lang.DefaultMaxTuples, "Datalog: budget of intermediate and derived tuples per case (0: no limit)")
	fl.Int64Var(&f.maxBytes, "max-bytes", lang.DefaultMaxBytes, "JQL: budget of result bytes per case (0: no limit)")
	fl.BoolVar(&f.watch, "watch", false, "run again whenever a test, query or data file changes")
	f.limits.register(fl)
	return cmd
}

// runTest runs the tests once and returns the files they read (for
// --watch).
func runTest(ctx context.Context, env Env, f *testFlags, args []string) ([]string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if !slices.Contains(qtest.Formats, f.format) {
		return nil, Usagef("test: unknown --format %q (want %s)", f.format, strings.Join(qtest.Formats, ", "))
	}
	if !slices.Contains(qtest.CoverageFormats, f.coverageFormat) {
		return nil, Usagef("test: unknown --coverage-format %q (want %s)", f.coverageFormat, strings.Join(qtest.CoverageFormats, ", "))
	}
	if f.threshold < 0 || f.threshold > 100 {
		return nil, Usagef("test: --threshold must be a percentage from 0 to 100")
	}
	opts := qtest.Options{Jobs: f.jobs, Timeout: f.timeout, Reader: f.limits.reader(), OpenEngine: openEngine,
		Coverage: f.coverage || f.threshold > 0 || f.coverageOut != "", Profile: f.profile,
		Budget: lang.Budget{MaxTuples: limitOrNone(f.maxTuples), MaxBytes: limitOrNone64(f.maxBytes)}}
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			return nil, Usagef("test: --run: %w", err)
		}
		opts.Run = re
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	cfg, err := loadConfig("", args)
	if err != nil {
		return nil, err
	}
	var paths []string
	walker := newWalk("test", env, args)
	for _, a := range args {
		ps, err := walker.collect(a, qtest.IsTestFile, cfg)
		if err != nil {
			return nil, Usagef("test: %w", err)
		}
		paths = append(paths, ps...)
	}
	if len(paths) == 0 {
		return args, Failf("test: no test files (%s) below %s", strings.Join(qtest.Suffixes, ", "), strings.Join(args, " "))
	}
	configs := map[string]*config.Config{}
	opts.Config = func(name string) *config.Config {
		dir := filepath.Dir(absPath(name))
		if c, ok := configs[dir]; ok {
			return c
		}
		c, _, err := config.Load(dir)
		if err != nil {
			c = cfg
		}
		return c
	}
	// The configurations are loaded before the cases run in parallel.
	for _, p := range paths {
		dir := filepath.Dir(absPath(p))
		if _, ok := configs[dir]; !ok {
			c, _, err := config.Load(dir)
			if err != nil {
				return nil, &ExitError{Code: ExitUsage, Err: err}
			}
			configs[dir] = c
		}
	}
	results, cov, err := qtest.Run(ctx, paths, opts)
	if err != nil {
		if ctx.Err() != nil {
			return paths, ctx.Err()
		}
		return paths, Usagef("test: %w", err)
	}
	if err := qtest.Write(env.Stdout, f.format, results, qtest.WriteOptions{Verbose: f.verbose, Version: Version}); err != nil {
		return paths, err
	}
	watched := append(slices.Clone(paths), qtest.Inputs(results)...)
	if f.update {
		if err := updateTests(ctx, env, results); err != nil {
			return watched, err
		}
	}
	ok := qtest.Summarize(results).OK()
	if cov != nil {
		if f.profile {
			if err := qtest.WriteProfile(env.Stdout, cov, 10); err != nil {
				return watched, err
			}
		}
		if f.coverage || f.coverageOut != "" || f.threshold > 0 {
			if err := writeCoverage(env, f, cov); err != nil {
				return watched, err
			}
		}
		if a, b := cov.Total(); f.threshold > 0 && qtest.Percent(a, b) < f.threshold {
			fmt.Fprintf(env.Stderr, "test: coverage %.1f%% is below --threshold %.1f%%\n", qtest.Percent(a, b), f.threshold)
			ok = false
		}
	}
	if !ok {
		return watched, &ExitError{Code: ExitFindings}
	}
	return watched, nil
}

func limitOrNone(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

func limitOrNone64(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}

func writeCoverage(env Env, f *testFlags, cov *qtest.Coverage) error {
	if f.coverageOut == "" {
		return qtest.WriteCoverage(env.Stdout, f.coverageFormat, cov)
	}
	var b strings.Builder
	if err := qtest.WriteCoverage(&b, f.coverageFormat, cov); err != nil {
		return err
	}
	if err := os.WriteFile(f.coverageOut, []byte(b.String()), 0o644); err != nil {
		return Usagef("test: --coverage-out: %w", err)
	}
	return nil
}

// updateTests rewrites the test files whose failing cases have new
// expected values, atomically.
func updateTests(ctx context.Context, env Env, results []*qtest.Result) error {
	var files []*qtest.File
	for _, r := range results {
		if !slices.Contains(files, r.File) {
			files = append(files, r.File)
		}
	}
	for _, tf := range files {
		out, changed := qtest.Update(tf, results)
		if !changed {
			continue
		}
		if err := writeFile(ctx, tf.Name, out); err != nil {
			return Usagef("test: --update: %w", err)
		}
		fmt.Fprintf(env.Stderr, "updated %s\n", tf.Name)
	}
	return nil
}

// clearScreen is what a watching command prints before each run on a
// terminal: the cursor home and the screen cleared.
const clearScreen = "\x1b[H\x1b[2J"
