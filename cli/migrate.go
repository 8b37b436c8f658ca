package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/atomicfile"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/report"
	"github.com/ctxql/ctxql/syntax"
)

// migrateFlags are the flags of "ctxql migrate".
type migrateFlags struct {
	to            string
	dialect       string
	write, diff   bool
	unsafe        bool
	stdinFilename string
	config        string
	limits        fileLimits
}

func newMigrateCmd(env Env) *cobra.Command {
	f := &migrateFlags{}
	cmd := &cobra.Command{
		Use:   "migrate [--to v2] [--unsafe] [-w|-d] PATH...|-",
		Short: "Rewrite legacy and deprecated PACT forms",
		Long: "Rewrite legacy and deprecated PACT forms into canonical v2 queries on the syntax tree (strings and " +
			"comments are never touched). With --to v2, v1 selectors are also rewritten into v2 queries where the " +
			"mapping is exact, and the file's pragma becomes \"// pact: v2\" when every query was converted.\n\n" +
			"Without -w or -d the migrated sources are printed. Places that need a manual decision are left unchanged " +
			"and listed on standard error.\n\nExit status: 0 when nothing needs a manual decision, 1 when something " +
			"does, 2 on usage or I/O errors or when a file has syntax errors.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMigrate(cmd.Context(), env, f, args)
		},
	}
	cmd.Flags().StringVar(&f.to, "to", "", "also rewrite v1 selectors into this dialect (v2)")
	cmd.Flags().StringVar(&f.dialect, "dialect", "", "dialect of files without a \"// pact:\" pragma: v1 or v2 (default: the configuration's, else v2)")
	cmd.Flags().BoolVarP(&f.write, "write", "w", false, "write the result to the file")
	cmd.Flags().BoolVar(&f.unsafe, "unsafe", false, "also apply rewrites that may change a result (cont[offset=N] → N)")
	cmd.Flags().BoolVarP(&f.diff, "diff", "d", false, "print diffs instead of the migrated sources")
	cmd.Flags().StringVar(&f.stdinFilename, "stdin-filename", "stdin.pact", "name of standard input in messages")
	cmd.Flags().StringVar(&f.config, "config", "", "configuration file for dialects and excluded paths (default: the nearest .ctxql.yaml)")
	f.limits.register(cmd.Flags())
	return cmd
}

func runMigrate(ctx context.Context, env Env, f *migrateFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	opts := lang.MigrateOptions{Unsafe: f.unsafe}
	switch to, _ := lang.ParseDialect(f.to); {
	case f.to == "":
	case to == lang.V2:
		opts.To = to
	default:
		return Usagef("migrate: --to must be v2, not %q", f.to)
	}
	editor, err := lang.DialectOr(f.dialect, lang.DialectUnset)
	if err != nil {
		return Usagef("migrate: --dialect %w", err)
	}
	opts.From = editor
	cfg, err := loadConfig(f.config, args)
	if err != nil {
		return err
	}
	if f.write && f.diff {
		return Usagef("migrate: -w and -d cannot be combined")
	}
	manual := false
	failed := 0 // files left alone: syntax errors, unreadable, not writable
	walker := newWalk("migrate", env, args)
	for _, arg := range args {
		if arg == "-" {
			src, err := f.limits.readStdin(env.Stdin)
			if err != nil {
				return Usagef("migrate: read standard input: %w", err)
			}
			m, err := migrateOne(ctx, env, f, withDialect(opts, cfg, f.stdinFilename), f.stdinFilename, src, true)
			if err != nil {
				return err
			}
			manual = manual || m
			continue
		}
		paths, err := walker.collect(arg, func(p string) bool {
			l := lang.ForName(p)
			return l != nil && l.CanMigrate()
		}, cfg)
		if err != nil {
			return Usagef("migrate: %w", err)
		}
		rd := f.limits.reader()
		for _, p := range paths {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if f.write {
				atomicfile.CleanStale(p)
			}
			src, err := rd.ReadFile(p)
			if err != nil {
				readError(env, "migrate", err)
				failed++
				continue
			}
			m, err := migrateOne(ctx, env, f, withDialect(opts, cfg, p), p, src, false)
			var xe *ExitError
			var we *writeErr
			switch {
			case errors.As(err, &we):
				readError(env, "migrate", we.err)
				failed++
				continue
			case errors.As(err, &xe) && xe.Code == ExitUsage && xe.Err == nil:
				failed++ // syntax errors, already reported
				continue
			case err != nil:
				return err
			}
			manual = manual || m
		}
	}
	if failed > 0 {
		if len(args) > 1 || failed > 1 || !isFile(args[0]) {
			fmt.Fprintf(env.Stderr, "ctxql migrate: %d file(s) left unchanged because of the errors above\n", failed)
		}
		return &ExitError{Code: ExitUsage}
	}
	if manual {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// migrateOne migrates one source and reports whether places were left for
// a manual decision.
func migrateOne(ctx context.Context, env Env, f *migrateFlags, opts lang.MigrateOptions, name string, src []byte, stdin bool) (bool, error) {
	// The file's language migrates it, if it has migrations (the
	// language table says which do); a file named on the command line in
	// another language is refused.
	l := lang.ForName(name)
	if l == nil || !l.CanMigrate() {
		return false, Usagef("migrate: %s: %w (migrations are for %s files)", name, lang.ErrUnsupported, migratable())
	}
	res, err := l.Migrate(name, src, opts)
	var pe *lang.ParseError
	if errors.As(err, &pe) {
		for _, d := range pe.Diagnostics {
			if d.Severity == syntax.SeverityError {
				fmt.Fprintf(env.Stderr, "%s:%s: %s\n", name, pe.File.Position(d.Span.Start), d.Message)
			}
		}
		return false, &ExitError{Code: ExitUsage}
	}
	if err != nil {
		return false, Usagef("migrate: %s: %w", name, err)
	}
	switch {
	case f.diff:
		if res.Changed {
			io.WriteString(env.Stdout, report.Diff(name, string(src), string(res.Output)))
		}
	case f.write && !stdin:
		if res.Changed {
			if err := writeFile(ctx, name, res.Output); err != nil {
				if interrupted(ctx, err) {
					return false, err
				}
				return false, &writeErr{err}
			}
		}
	default:
		if _, err := env.Stdout.Write(res.Output); err != nil {
			return false, err
		}
	}
	file := syntax.NewFile(name, string(src))
	for _, d := range res.Manual {
		code := ""
		if d.Code != "" {
			code = " [" + d.Code + "]"
		}
		fmt.Fprintf(env.Stderr, "%s:%s: manual: %s%s\n", name, file.Position(d.Span.Start), d.Message, code)
	}
	return len(res.Manual) > 0, nil
}

// withDialect sets the dialect of a file without a pragma as the language
// table resolves it: --dialect (a setting, like an editor's), else the
// configuration, else v2.
func withDialect(opts lang.MigrateOptions, cfg *config.Config, name string) lang.MigrateOptions {
	opts.From = lang.Settings{Editor: opts.From, Config: cfg}.Dialect(name, lang.DialectUnset)
	return opts
}

// isFile reports whether path names something other than a directory.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// migratable names the languages that have migrations.
func migratable() string {
	var names []string
	for _, l := range lang.All() {
		if l.CanMigrate() {
			names = append(names, l.Name)
		}
	}
	return strings.Join(names, ", ")
}
