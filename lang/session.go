package lang

import (
	"context"
	"fmt"
	"io"

	"github.com/ctxql/ctxql/eval/datalog/repl"
)

// Session is an interactive session over loaded data: "let" bindings and
// queries one line at a time ("ctxql repl").
type Session interface {
	// Bind binds name to value for later queries.
	Bind(name, value string)
	// Exec runs one line, writing its output to w; false means the
	// session is over (":quit").
	Exec(ctx context.Context, line string, w io.Writer) bool
}

// CurrentTerm is the binding "ctxql repl --current-term" sets.
const CurrentTerm = repl.CurrentTerm

// NewSession starts an interactive session over d: Datalog only. The
// session has a database of its own; d stays shared and unchanged.
func NewSession(d Data) (Session, error) {
	dd, ok := d.(*datalogData)
	if !ok {
		return nil, fmt.Errorf("interactive sessions: %w", ErrUnsupported)
	}
	db, err := dd.take(context.Background())
	if err != nil {
		return nil, err
	}
	return repl.NewSession(db), nil
}

// RunSession runs a session on the lines of r (not a terminal), writing to
// w, with prompt before each line.
func RunSession(ctx context.Context, s Session, r io.Reader, w io.Writer, prompt string) error {
	rs, ok := s.(*repl.Session)
	if !ok {
		return fmt.Errorf("interactive sessions: %w", ErrUnsupported)
	}
	return repl.Run(ctx, rs, r, w, prompt)
}
