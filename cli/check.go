package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/api"
	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/atomicfile"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/report"
	"github.com/ctxql/ctxql/syntax"
)

// checkFlags are the flags of "ctxql check" and "ctxql fix".
type checkFlags struct {
	fix, unsafe, diff bool
	format            string
	stdinFilename     string
	config            string
	limits            fileLimits
	maxFindings       int
}

// NewCheckCommand returns "ctxql check"; cmd/lint runs the same command.
func NewCheckCommand(env Env) *cobra.Command {
	cmd := newCheckCmd(env, false)
	cmd.Use = "lint [flags] PATH...|-"
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd
}

func newCheckCmd(env Env, fix bool) *cobra.Command {
	f := &checkFlags{fix: fix}
	use, short := "check [flags] PATH...|-", "Lint PACT, JQL, Datalog and Markdown files"
	if fix {
		use, short = "fix [flags] PATH...|-", "Apply safe fixes to PACT, JQL, Datalog and Markdown files (check --fix)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + ".\n\nDirectories are walked for " + suffixes(func(l *lang.Language) bool { return !l.HostsQueries() }) +
			" files, and for the embedded queries of the host files .ctxql.yaml names (embedded.extensions, by default " +
			strings.Join(config.DefaultExtensions(), ", ") + "); " +
			"\"-\" reads standard input (named by --stdin-filename). Exit status: 0 when no error-severity finding remains, " +
			"1 when one does, 2 on usage or I/O errors.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), env, f, args)
		},
	}
	if !fix {
		cmd.Flags().BoolVar(&f.fix, "fix", false, "apply safe fixes in place")
	}
	cmd.Flags().BoolVar(&f.unsafe, "unsafe-fixes", false, "also apply fixes that may change a query's meaning")
	cmd.Flags().BoolVar(&f.diff, "diff", false, "print the fixes as a unified diff instead of writing them (exit 1 when there is one)")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.Formats, ", "))
	cmd.Flags().StringVar(&f.stdinFilename, "stdin-filename", "stdin.pact", "file name that decides the language of standard input")
	cmd.Flags().StringVar(&f.config, "config", "", "configuration file (default: the nearest .ctxql.yaml)")
	f.limits.register(cmd.Flags())
	cmd.Flags().IntVar(&f.maxFindings, "max-findings", report.DefaultMaxPerFile, "text output: findings printed per file before a summary line (0: all)")
	if !fix {
		// check --watch: the named files and, below named directories,
		// every file of a known language or configuration.
		watchable(env, cmd, func(name string) bool {
			return lang.ForName(name) != nil || filepath.Base(name) == config.FileName
		}, func(args []string) []string {
			return append(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-" }), flagInputs(cmd, "config")...)
		})
	}
	return cmd
}

func runCheck(ctx context.Context, env Env, f *checkFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if !slices.Contains(report.Formats, f.format) {
		return Usagef("check: unknown --format %q (want %s)", f.format, strings.Join(report.Formats, ", "))
	}
	if f.diff {
		f.fix = true
	}
	cfg, err := loadConfig(f.config, args)
	if err != nil {
		return err
	}
	l, err := lint.New(lang.DialectUnset)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	// A file's sample data (its pragma, else the configuration) gives
	// Datalog programs the data's schema, as every tool does.
	l = l.WithConfig(cfg).WithData(lang.NewDataCache(ctx, dataFiles(ctx)).WithEngines(openEngine).Load)

	var (
		all     []report.Finding
		files   []string
		changed bool
		unread  bool // a file could not be read or written
	)
	walker := newWalk("check", env, args)
	l = l.WithDir(walker.dir)
	for _, arg := range args {
		if arg == "-" {
			src, err := f.limits.readStdin(env.Stdin)
			if err != nil {
				return Usagef("check: read standard input: %w", err)
			}
			fs, ch, err := checkSource(ctx, env, l, f, f.stdinFilename, string(src), true)
			if err != nil {
				return err
			}
			all, files, changed = append(all, fs...), append(files, f.stdinFilename), changed || ch
			continue
		}
		paths, err := walker.collect(arg, func(p string) bool {
			l := lang.ForName(p)
			return l != nil && (!l.HostsQueries() || cfg.Embedded(walker.abs(p)))
		}, cfg)
		if err != nil {
			return Usagef("check: %w", err)
		}
		type checked struct {
			fs              []report.Finding
			changed, unread bool
		}
		rd := f.limits.reader()
		res, err := perFile(env, paths, func(env Env, p string) (checked, error) {
			if ctx.Err() != nil {
				return checked{}, ctx.Err()
			}
			if f.fix && !f.diff {
				atomicfile.CleanStale(p)
			}
			b, err := rd.ReadFile(p)
			if err != nil {
				readError(env, "check", err)
				return checked{unread: true}, nil
			}
			fs, ch, err := checkSource(ctx, env, l, f, p, ownedString(b), false)
			var we *writeErr
			if errors.As(err, &we) {
				readError(env, "check", we.err)
				return checked{fs: fs, unread: true}, nil
			}
			return checked{fs, ch, false}, err
		})
		if err != nil {
			return err
		}
		for i, r := range res {
			all, files, changed = append(all, r.fs...), append(files, paths[i]), changed || r.changed
			unread = unread || r.unread
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if f.diff {
		switch {
		case unread:
			return &ExitError{Code: ExitUsage}
		case changed:
			return &ExitError{Code: ExitFindings}
		}
		return nil
	}
	opts := api.ReportOptions(l, Version, files)
	opts.MaxPerFile = f.maxFindings
	if err := report.Write(env.Stdout, f.format, all, opts); err != nil {
		return err
	}
	if unread {
		return &ExitError{Code: ExitUsage}
	}
	for _, x := range all {
		if x.Diag.Severity == syntax.SeverityError {
			return &ExitError{Code: ExitFindings}
		}
	}
	return nil
}

// checkSource lints (and with --fix, fixes) one source. Fixed stdin goes to
// stdout; a fixed file is rewritten atomically, and only when it changed;
// with --diff the change is printed as a diff instead. It reports whether
// fixes changed the source.
func checkSource(ctx context.Context, env Env, l *lint.Linter, f *checkFlags, name, src string, stdin bool) ([]report.Finding, bool, error) {
	var (
		diags   []syntax.Diagnostic
		file    *syntax.File
		changed bool
	)
	if f.fix {
		out, remaining, err := l.Fix(ctx, name, src, f.unsafe)
		if errors.Is(err, lint.ErrUnsupported) {
			return nil, false, Usagef("check: %w", err)
		}
		if interrupted(ctx, err) {
			return nil, false, ctx.Err()
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "ctxql: %v\n", err)
		}
		changed = out != src
		switch {
		case !changed:
		case f.diff:
			if _, err := io.WriteString(env.Stdout, report.Diff(name, src, out)); err != nil {
				return nil, false, err
			}
		case stdin:
			if _, err := io.WriteString(env.Stdout, out); err != nil {
				return nil, false, err
			}
		default:
			if err := writeFile(ctx, name, []byte(out)); err != nil {
				if interrupted(ctx, err) {
					return nil, false, err
				}
				return nil, false, &writeErr{err}
			}
		}
		file, diags = syntax.NewFile(name, out), remaining
	} else {
		var err error
		file, diags, err = l.Check(ctx, name, src)
		if errors.Is(err, lint.ErrUnsupported) {
			return nil, false, Usagef("check: %w", err)
		}
		if err != nil {
			return nil, false, err
		}
	}
	out := make([]report.Finding, 0, len(diags))
	for _, d := range diags {
		out = append(out, report.Finding{Path: name, File: file, Diag: d, Fixable: lint.Fixable(d, f.unsafe)})
	}
	return out, changed, nil
}

// writeErr is a file that could not be rewritten.
type writeErr struct{ err error }

func (e *writeErr) Error() string { return e.err.Error() }

// newFixCmd is "ctxql fix", the same as "ctxql check --fix".
func newFixCmd(env Env) *cobra.Command { return newCheckCmd(env, true) }

// newRulesCmd is "ctxql rules" and "ctxql rules explain CODE".
func newRulesCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the analysis rules",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			reg, err := lint.All()
			if err != nil {
				return err
			}
			for _, a := range reg.All() {
				fmt.Fprintf(env.Stdout, "%-8s %-26s %-9s %-7s fix:%-6s %s\n", a.Code, a.Name, a.Language, a.Severity, a.Fix, a.Doc.Summary)
			}
			return nil
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "explain CODE|NAME",
		Short: "Print a rule's documentation",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			reg, err := lint.All()
			if err != nil {
				return err
			}
			a, ok := reg.Lookup(args[0])
			if !ok {
				return Usagef("rules explain: no rule %q", args[0])
			}
			_, err = io.WriteString(env.Stdout, lint.RuleDoc(a))
			return err
		},
	})
	return cmd
}

// ownedString returns b's bytes as a string without copying them: the
// caller owns b and never writes it again. A source read for checking is
// kept whole by its syntax.File and the findings' positions, so a copy
// would only double what each file costs to read.
func ownedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
