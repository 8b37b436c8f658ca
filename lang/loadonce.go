package lang

import (
	"context"
	"fmt"

	"github.com/ctxql/ctxql/internal/files"
)

// onceLoader is an Evaluator that can leave its data where it is when the
// data serves a single evaluation, reading it as that evaluation runs.
type onceLoader interface {
	LoadOnce(ctx context.Context, r *files.Reader, path string) (Data, error)
}

// LoadOnce is Load for data that serves one evaluation (a command that
// evaluates one query and exits): a language whose evaluator streams its
// data (JQL) reads the file during the evaluation, holding only what the
// query keeps, instead of loading it into memory first. Other languages
// load as Load does. The Data may serve more evaluations, each reading
// the file again.
func (l *Language) LoadOnce(ctx context.Context, r *files.Reader, path string) (Data, error) {
	if l.eval == nil {
		return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
	}
	o, ok := l.eval.(onceLoader)
	if !ok {
		return l.Load(ctx, r, path)
	}
	if r == nil {
		r = &files.Reader{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return o.LoadOnce(ctx, r, path)
}
