package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/atomicfile"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/report"
	"github.com/ctxql/ctxql/syntax"
)

// fmtFlags are the flags of "ctxql fmt".
type fmtFlags struct {
	list, write, diff, check bool
	stdinFilename            string
	config                   string
	limits                   fileLimits
	dir                      string // the working directory, read once by the walk
}

func newFmtCmd(env Env) *cobra.Command {
	f := &fmtFlags{}
	cmd := &cobra.Command{
		Use:   "fmt [flags] PATH...|-",
		Short: "Format PACT, JQL and Datalog files canonically",
		Long: "Format PACT, JQL and Datalog files canonically, like gofmt: there are no options, and formatting a " +
			"formatted file changes nothing.\n\nWithout flags the formatted sources are printed. Directories are walked " +
			"for " + suffixes((*lang.Language).CanFormat) + " files; \"-\" formats standard input (its language " +
			"named by --stdin-filename). A file with syntax errors is reported and left alone.\n\nExit status: 0 on " +
			"success; 1 with --check when a file would change; 2 on usage or I/O errors or when a file has syntax errors.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFmt(cmd.Context(), env, f, args)
		},
	}
	cmd.Flags().BoolVarP(&f.list, "list", "l", false, "list files whose formatting differs")
	cmd.Flags().BoolVarP(&f.write, "write", "w", false, "write the result to the file instead of printing it")
	cmd.Flags().BoolVarP(&f.diff, "diff", "d", false, "print diffs instead of the formatted sources")
	cmd.Flags().BoolVar(&f.check, "check", false, "list files that would change and exit 1 if there are any; write nothing")
	cmd.Flags().StringVar(&f.stdinFilename, "stdin-filename", "stdin.pact", "file name that decides the language of standard input")
	cmd.Flags().StringVar(&f.config, "config", "", "configuration file for the excluded paths and PACT dialects (default: the nearest .ctxql.yaml)")
	f.limits.register(cmd.Flags())
	return cmd
}

func runFmt(ctx context.Context, env Env, f *fmtFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.check && f.write {
		return Usagef("fmt: --check and -w cannot be combined")
	}
	cfg, err := loadConfig(f.config, args)
	if err != nil {
		return err
	}
	var changed, broken bool
	walker := newWalk("fmt", env, args)
	f.dir = walker.dir
	for _, arg := range args {
		if arg == "-" {
			src, err := f.limits.readStdin(env.Stdin)
			if err != nil {
				return Usagef("fmt: read standard input: %w", err)
			}
			ch, err := fmtOne(ctx, env, f, cfg, f.stdinFilename, src, true)
			if err != nil {
				return err
			}
			changed = changed || ch
			continue
		}
		paths, err := walker.collect(arg, formattable, cfg)
		if err != nil {
			return Usagef("fmt: %w", err)
		}
		type formatted struct{ changed, broken bool }
		rd := f.limits.reader()
		res, err := perFile(env, paths, func(env Env, p string) (formatted, error) {
			if ctx.Err() != nil {
				return formatted{}, ctx.Err()
			}
			if f.write {
				atomicfile.CleanStale(p)
			}
			src, err := rd.ReadFile(p)
			if err != nil {
				readError(env, "fmt", err)
				return formatted{broken: true}, nil
			}
			ch, err := fmtOne(ctx, env, f, cfg, p, src, false)
			var se *lang.SyntaxError
			var we *writeErr
			switch {
			case errors.As(err, &se):
				return formatted{broken: true}, nil
			case errors.As(err, &we):
				readError(env, "fmt", we.err)
				return formatted{broken: true}, nil
			}
			return formatted{changed: ch}, err
		})
		if err != nil {
			return err
		}
		for _, r := range res {
			changed, broken = changed || r.changed, broken || r.broken
		}
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case broken:
		return &ExitError{Code: ExitUsage}
	case f.check && changed:
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// formattable reports whether the language of a file name has a formatter.
func formattable(name string) bool {
	l := lang.ForName(name)
	return l != nil && l.CanFormat()
}

// fmtOne formats one source, a PACT file without a pragma in the dialect
// the configuration gives it, and reports whether formatting changed it.
func fmtOne(ctx context.Context, env Env, f *fmtFlags, cfg *config.Config, name string, src []byte, stdin bool) (bool, error) {
	l := lang.ForName(name)
	if l == nil || !l.CanFormat() {
		return false, Usagef("fmt: %s: %w", name, lang.ErrUnsupported)
	}
	dialect := lang.Settings{Config: cfg, Dir: f.dir}.Dialect(name, lang.DialectUnset)
	var out []byte
	var err error
	yesNo := f.check || f.list
	canonical := false
	if yesNo {
		// Only whether the file would change is asked: compare while
		// printing and stop at the first difference.
		canonical, err = l.IsCanonical(name, src, dialect)
	} else {
		out, err = l.Format(name, src, dialect)
		if err == nil {
			tellLeftAsIs(env, l, name, src, dialect)
		}
	}
	var se *lang.SyntaxError
	switch {
	case errors.As(err, &se):
		file := syntax.NewFile(name, string(src))
		for _, d := range se.Diagnostics {
			if d.Severity == syntax.SeverityError {
				fmt.Fprintf(env.Stderr, "%s:%s: %s\n", name, file.Position(d.Span.Start), d.Message)
			}
		}
		if stdin {
			return false, &ExitError{Code: ExitUsage}
		}
		return false, err
	case err != nil:
		return false, fmt.Errorf("fmt: %s: %w", name, err)
	}
	changed := string(out) != string(src)
	if yesNo {
		changed = !canonical
	}
	switch {
	case f.check || f.list:
		if changed {
			fmt.Fprintln(env.Stdout, name)
		}
	case f.diff:
		if changed {
			io.WriteString(env.Stdout, report.Diff(name, string(src), string(out)))
		}
	case f.write && !stdin:
		if changed {
			if err := writeFile(ctx, name, out); err != nil {
				if interrupted(ctx, err) {
					return false, err
				}
				return false, &writeErr{err}
			}
		}
	default:
		if _, err := env.Stdout.Write(out); err != nil {
			return false, err
		}
	}
	return changed, nil
}
