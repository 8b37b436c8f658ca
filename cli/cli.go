// Package cli implements the ctxql command line. Each subcommand is a thin
// cobra wrapper: it parses flags and hands off to functions in the language,
// evaluation and tooling packages, which know nothing about cobra.
//
// Exit codes follow one contract across subcommands: 0 on success, 1 when the
// input query or file has errors (or a check finds error-severity problems),
// 2 on usage errors and unreadable or invalid data.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxql/ctxql/internal/files"
)

// Exit codes shared by every subcommand.
const (
	ExitOK       = 0
	ExitFindings = 1 // invalid query, failed check, files that need formatting
	ExitUsage    = 2 // bad flags or arguments, unreadable or invalid data
)

// ExitError carries an exit code and a message for stderr. A nil Err with a
// non-zero code exits silently (the command already printed what it had to).
type ExitError struct {
	Code int
	Err  error
}

// Error implements error.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *ExitError) Unwrap() error { return e.Err }

// Usagef returns an ExitError with code 2.
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Failf returns an ExitError with code 1.
func Failf(format string, args ...any) error {
	return &ExitError{Code: ExitFindings, Err: fmt.Errorf(format, args...)}
}

// loadFailed is the error of a command whose data did not load, its
// message prefix (the command) before err: unreadable or invalid data is a
// usage error (exit 2); a load stopped by the command's time limit fails
// as an evaluation stopped by it does (exit 1), and an interrupted run
// exits 130 whatever its error.
// evalTimeout bounds ctx by an eval command's --timeout (0: no limit); a
// negative limit is a usage error. The caller calls cancel.
func evalTimeout(ctx context.Context, lang string, d time.Duration) (_ context.Context, cancel context.CancelFunc, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if d < 0 {
		return ctx, func() {}, Usagef("ctxql eval %s: --timeout must not be negative", lang)
	}
	if d == 0 {
		return ctx, func() {}, nil
	}
	ctx, cancel = context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

func loadFailed(prefix string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Failf("%s%w", prefix, err)
	}
	return Usagef("%s%w", prefix, err)
}

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Version is the ctxql version, set at link time with -ldflags "-X".
var Version = "devel"

// Main runs the ctxql command line with args (without the program name) and
// returns the process exit code.
func Main(ctx context.Context, args []string, env Env) int {
	root := NewRoot(env)
	root.SetArgs(args)
	return runRoot(ctx, root, env)
}

// RunCommand runs a single cobra command tree with args and maps its error to
// an exit code; cmd/lint and cmd/lsp use it to expose one subcommand as a
// program of its own.
func RunCommand(ctx context.Context, cmd *cobra.Command, args []string, env Env) int {
	cmd.SetArgs(args)
	return runRoot(ctx, cmd, env)
}

func runRoot(ctx context.Context, root *cobra.Command, env Env) int {
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	if ctx != nil && ctx.Err() != nil {
		// An interrupted run did not finish: neither success nor findings.
		return ExitInterrupted
	}
	if err == nil {
		return ExitOK
	}
	var xe *ExitError
	if errors.As(err, &xe) {
		if xe.Err != nil {
			fmt.Fprintf(env.Stderr, "%s\n", xe.Err)
		}
		return xe.Code
	}
	// Anything cobra itself reports (unknown command or flag, wrong number
	// of arguments) is a usage error.
	fmt.Fprintf(env.Stderr, "ctxql: %s\n", err)
	return ExitUsage
}

// NewRoot builds the ctxql command tree.
func NewRoot(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "ctxql",
		Short:         "Tools for PACT, JQL and Datalog context queries",
		Long:          "ctxql evaluates, checks, formats and migrates the query languages AI-agent systems use to address their context and caches.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &ExitError{Code: ExitUsage, Err: err} })
	root.AddCommand(
		newVersionCmd(env),
		newEvalCmd(env),
		newSchemaCmd(env),
		newReplCmd(env),
		newACPCmd(env),
		newMCPCmd(env),
		newLSPCmd(env),
		newPlayCmd(env),
		newCheckCmd(env, false),
		newFixCmd(env),
		newRulesCmd(env),
		newFmtCmd(env),
		newMigrateCmd(env),
		newDiffCmd(env),
		newTestCmd(env),
		newWorkerCmd(env),
		newCompileCmd(env),
		newLoadCmd(env),
	)
	return root
}

func newVersionCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the ctxql version, commit and platform",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(env.Stdout, versionLine())
			return err
		},
	}
}

func newEvalCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a query against data",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return Usagef("ctxql eval: name a language: %s", subNames(c))
		},
	}
	maxData := cmd.PersistentFlags().Int64("max-data-bytes", DefaultMaxDataBytes, "largest data file read, in bytes (0: no limit)")
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		c.SetContext(withDataReader(c.Context(), files.New(*maxData, "--max-data-bytes")))
		return nil
	}
	for _, sub := range []*cobra.Command{newEvalPactCmd(env), newEvalJQLCmd(env), newEvalDatalogCmd(env)} {
		watchable(env, sub, nil, func([]string) []string { return flagInputs(sub, "data", "query-file", "rules") })
		cmd.AddCommand(sub)
	}
	return cmd
}

func subNames(c *cobra.Command) string {
	s := ""
	for i, sub := range c.Commands() {
		if i > 0 {
			s += ", "
		}
		s += sub.Name()
	}
	return s
}
