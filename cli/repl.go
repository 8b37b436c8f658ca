package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
	"github.com/peterh/liner"
	"github.com/spf13/cobra"
)

// newReplCmd builds "ctxql repl".
func newReplCmd(env Env) *cobra.Command {
	var dataPath, current string
	cmd := &cobra.Command{
		Use:   "repl --data FILE",
		Short: "Interactive Datalog session",
		Long: `Start an interactive Datalog session over the data in FILE (JSON or a facts
directory, as for "ctxql eval datalog").

  let t = TERM                 bind t; later queries may use t for the term
  let current_term = TERM      set the current term
  q(r) <-- path(t, r), !rw_proc(r, _)
  :relations  :env  :help  :quit

Bound names are replaced by the bound term, as a quoted string constant,
before the rule is parsed. Line editing and history are available when
stdin is a terminal.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runRepl(c.Context(), env, dataPath, current)
		},
	}
	cmd.Flags().StringVar(&dataPath, "data", "", "data: a JSON file or a facts directory (required)")
	cmd.Flags().StringVar(&current, "current-term", "", "initial value of the current_term binding")
	return cmd
}

func runRepl(ctx context.Context, env Env, dataPath, current string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := loadDatalogData(ctx, dataPath, false, false)
	if err != nil {
		return err
	}
	s, err := lang.NewSession(db)
	if err != nil {
		return Usagef("%w", err)
	}
	if current != "" {
		s.Bind(lang.CurrentTerm, current)
	}
	if f, ok := env.Stdin.(*os.File); ok && isTerminal(f) && liner.TerminalSupported() {
		return interactive(ctx, s, env.Stdout)
	}
	return lang.RunSession(ctx, s, env.Stdin, env.Stdout, "")
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// maxHistoryBytes bounds the history file the interactive loop reads.
const maxHistoryBytes = 4 << 20

// openHistory opens the history file through internal/files: a regular
// file of at most maxHistoryBytes, never a FIFO or a device that would hang
// or flood the start of a session.
func openHistory(path string) (*os.File, error) {
	return files.New(maxHistoryBytes, "").Open(path)
}

func interactive(ctx context.Context, s lang.Session, w io.Writer) error {
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	hist := ""
	if dir, err := os.UserCacheDir(); err == nil {
		hist = filepath.Join(dir, "ctxql", "repl_history")
		if f, err := openHistory(hist); err == nil {
			_, _ = ln.ReadHistory(f)
			f.Close()
		}
	}
	fmt.Fprintln(w, "ctxql datalog repl; :help for commands")
	for {
		line, err := ln.Prompt("ctxql> ")
		if errors.Is(err, io.EOF) || errors.Is(err, liner.ErrPromptAborted) {
			break
		}
		if err != nil {
			return fmt.Errorf("read input: %w", err)
		}
		if strings.TrimSpace(line) != "" {
			ln.AppendHistory(line)
		}
		if !s.Exec(ctx, line, w) {
			break
		}
	}
	if hist != "" {
		if err := os.MkdirAll(filepath.Dir(hist), 0o755); err == nil {
			if f, err := os.Create(hist); err == nil {
				_, _ = ln.WriteHistory(f)
				f.Close()
			}
		}
	}
	return nil
}
