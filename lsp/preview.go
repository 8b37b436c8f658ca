package lsp

import (
	"context"
	"time"

	"github.com/ctxql/ctxql/syntax"
)

// RunResult is the outcome of evaluating one query against a document's
// sample data.
type RunResult struct {
	Span    syntax.Span // the query that ran
	Count   int         // number of results (ids, rows, derived facts)
	Result  any         // the whole result, JSON-encodable
	Sample  []any       // the first results, for previews
	Elapsed time.Duration
	Err     error // the query or the data failed; Count and Result are unset
}

// Runner evaluates the query at a byte offset against the document's
// sample data. ok is false when there is no query there or no data is
// configured for the document.
type Runner interface {
	Run(ctx context.Context, s *Snapshot, off int) (r RunResult, ok bool)
}

// Querier lists the spans of the queries a document holds, for code
// lenses and inlay hints.
type Querier interface {
	Queries(s *Snapshot) []syntax.Span
}

// previewLimit caps the results a preview carries; defaultRunTimeout
// bounds one evaluation unless the "runTimeout" setting says otherwise.
const (
	previewLimit      = 50
	defaultRunTimeout = 2 * time.Second
)

// runTimeout is the time one evaluation for this snapshot may take.
func (s *Snapshot) runTimeout() time.Duration {
	if s.Workspace != nil && s.Workspace.config != nil {
		if t := s.Workspace.config().RunTimeout; t > 0 {
			return t
		}
	}
	return defaultRunTimeout
}

// MethodPreview is the server-to-client notification carrying the result
// of the query being edited or run: {uri, range, count, results (the first
// 50), elapsed_ms, error?}.
const MethodPreview = "ctxql/preview"

type previewParams struct {
	URI       string  `json:"uri"`
	Range     Range   `json:"range"`
	Count     int     `json:"count"`
	Results   []any   `json:"results"`
	ElapsedMS float64 `json:"elapsed_ms"`
	Error     string  `json:"error,omitempty"`
}

func (s *server) previewOf(snap *Snapshot, r RunResult) previewParams {
	p := previewParams{URI: snap.URI, Range: s.rangeOf(snap.File, r.Span), Count: r.Count, Results: r.Sample,
		ElapsedMS: float64(r.Elapsed.Microseconds()) / 1000}
	if p.Results == nil {
		p.Results = []any{}
	}
	if r.Err != nil {
		p.Error = r.Err.Error()
	}
	return p
}

// run evaluates the query at off once per snapshot: code lenses, inlay
// hints, hovers, previews and data-aware diagnostics share the result.
func run(ctx context.Context, snap *Snapshot, off int) (RunResult, bool) {
	r, ok := snap.Lang.(Runner)
	if !ok || snap.Workspace == nil || snap.Workspace.DataPath(snap) == "" {
		return RunResult{}, false // every runner needs sample data: do not even parse
	}
	q, ok := snap.Lang.(Querier)
	if !ok {
		return r.Run(ctx, snap, off)
	}
	for _, sp := range q.Queries(snap) {
		if sp.Touches(off) {
			key := sp.Start
			if v, ok := snap.memo.Load(key); ok {
				res := v.(memoRun)
				return res.r, res.ok
			}
			res, ok := r.Run(ctx, snap, off)
			if ctx.Err() == nil {
				snap.memo.Store(key, memoRun{res, ok})
			}
			return res, ok
		}
	}
	return RunResult{}, false
}

type memoRun struct {
	r  RunResult
	ok bool
}

// preview pushes the result of the query around off, unless ctx was
// cancelled by a newer edit.
func (s *server) preview(ctx context.Context, snap *Snapshot, off int) {
	res, ok := run(ctx, snap, off)
	if !ok || ctx.Err() != nil || s.session.get(snap.URI) != snap {
		return
	}
	if err := s.conn.Notify(ctx, MethodPreview, s.previewOf(snap, res)); err != nil {
		s.log.printf("%s: %v", MethodPreview, err)
	}
}
