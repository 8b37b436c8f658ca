package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// RunResult is the outcome of evaluating one query against a document's
// sample data.
type RunResult struct {
	Span    syntax.Span // the query that ran
	Count   int         // number of results (ids, rows, derived facts)
	Result  any         // the whole result, JSON-encodable: []any, lang.Items or one value
	Sample  []any       // the first results, for previews
	Elapsed time.Duration
	Err     error // the query or the data failed; Count and Result are unset
	// Nodes summarises the first results of a PACT query (at most
	// maxNodeSummaries), in result order.
	Nodes []NodeSummary
	// Range is set for a PACT query over a snapshot range: Result is its
	// one object.
	Range bool
	// Relation and Columns describe the tuples of a Datalog run: the
	// relation's name and one column per argument.
	Relation string
	Columns  []Column
}

// NodeSummary describes one node a PACT query selected, for a results
// table (lang.DescribeNodes): its id, node type, depth in its tree (the
// root is 0), role and kind attributes when it has them, and the start of
// its content.
type NodeSummary = lang.NodeSummary

// Column is one column of a Datalog relation (lang.Column): the variable
// naming it in the rule's head (or "_1", "_2", ...) and its type (left out
// when unknown).
type Column = lang.Column

// Runner evaluates the query at a byte offset against the document's
// sample data. ok is false when there is no query there or no data is
// configured for the document.
type Runner interface {
	Run(ctx context.Context, s *Snapshot, off int) (r RunResult, ok bool)
}

// Tracer explains, step by step, how the query starting at a byte offset
// narrows its candidates over the sample data (nil when it cannot).
type Tracer interface {
	Trace(ctx context.Context, s *Snapshot, start int) *stepTrace
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
// of the query being edited or run. Its shape, also the result of
// ctxql.run (which carries every result instead of the first 50):
//
//	{"uri": "file:///w/q.pact", "range": {...}, "count": 2, "elapsed_ms": 0.4,
//	 "results": ["cb:u1", "cb:u2"],           // PACT ids, JQL documents, Datalog tuples
//	 "nodes": [{"id": "cb:u1", "nodeType": "cb", "depth": 4, "role": "user",
//	            "kind": "text", "preview": "first 80 characters of content"}, ...],  // PACT only
//	 "relation": "path",                       // Datalog only
//	 "columns": [{"name": "x", "type": "Node"}, {"name": "y", "type": "Node"}],  // Datalog only
//	 "error": "...",                           // when the run failed
//	 "emptiedBy": {"range": {...}, "text": "[role='nobody']", "before": 4}}  // PACT and JQL, no results
//
// "nodes" summarises the first results (at most 1,000) in result order;
// "columns" has one entry per element of each Datalog tuple; "emptiedBy"
// names the step or where condition of a query without results after which
// nothing was left, with the count before it.
const MethodPreview = "ctxql/preview"

type previewParams struct {
	URI       string        `json:"uri"`
	Range     Range         `json:"range"`
	Count     int           `json:"count"`
	Results   []any         `json:"results"`
	ElapsedMS float64       `json:"elapsed_ms"`
	Error     string        `json:"error,omitempty"`
	Nodes     []NodeSummary `json:"nodes,omitempty"`
	Relation  string        `json:"relation,omitempty"`
	Columns   []Column      `json:"columns,omitempty"`
	EmptiedBy *emptiedStep  `json:"emptiedBy,omitempty"`
}

// emptiedStep is the step that left a query without results.
type emptiedStep struct {
	Range  Range  `json:"range"`
	Text   string `json:"text"`
	Before int    `json:"before"` // candidates or documents before it
}

func (s *server) previewOf(ctx context.Context, snap *Snapshot, r RunResult) previewParams {
	p := previewParams{URI: snap.URI, Range: s.rangeOf(snap.File, r.Span), Count: r.Count, Results: r.Sample,
		ElapsedMS: float64(r.Elapsed.Microseconds()) / 1000}
	if p.Results == nil {
		p.Results = []any{}
	}
	if r.Err == nil {
		p.Nodes = r.Nodes[:min(len(r.Nodes), len(p.Results))]
		p.Relation, p.Columns = r.Relation, r.Columns
	}
	if r.Err != nil {
		p.Error = r.Err.Error()
	}
	if r.Err == nil && r.Count == 0 {
		var t *stepTrace
		if tr, ok := snap.Lang.(Tracer); ok {
			t = tr.Trace(ctx, snap, r.Span.Start)
		}
		if st, ok := t.emptiedBy(); ok {
			p.EmptiedBy = &emptiedStep{Range: s.rangeOf(snap.File, st.Span), Text: st.Text}
			if t.Emptied > 0 {
				p.EmptiedBy.Before = t.Steps[t.Emptied-1].Count
			}
		}
	}
	return p
}

// run evaluates the query at off once per snapshot: code lenses, inlay
// hints, hovers, previews and data-aware diagnostics share the result.
// (The languages cache evaluations across versions too, by what they
// depend on.) ok is false when there is nothing to run there, or under a
// cachedOnly context when the evaluation is not cached.
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
			if missed, _ := ctx.Value(cachedOnlyKey{}).(*atomic.Bool); missed != nil {
				// Answered at once: from this version's runs, else from
				// the evaluation cache, never waiting for a run in flight.
				if m, ok := snap.runs.peek(sp.Start); ok {
					return m.r, m.ok
				}
				return r.Run(ctx, snap, off)
			}
			m, done := snap.runs.get(ctx, sp.Start, func() (memoRun, bool) {
				res, ok := r.Run(ctx, snap, off)
				return memoRun{res, ok}, ok
			})
			if !done {
				return RunResult{}, false
			}
			return m.r, m.ok
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
	if err := s.conn.Notify(ctx, MethodPreview, s.previewOf(ctx, snap, res)); err != nil {
		s.log.printf("%s: %v", MethodPreview, err)
	}
}

// runLenses puts a Run lens above each span when the document has data,
// with the result count once known; without data, one lens above the
// first query offers to choose the sample data (CommandChooseData).
func runLenses(ctx context.Context, s *Snapshot, spans []syntax.Span) []CodeLens {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		if len(spans) == 0 {
			return nil
		}
		return []CodeLens{{Span: spans[0], Title: "▶ Run — choose sample data…", Command: CommandChooseData, Arguments: []any{s.URI}}}
	}
	var out []CodeLens
	cached, _ := cachedOnly(ctx)
	for _, sp := range spans {
		title := "▶ Run"
		if r, ok := run(cached, s, sp.Start); ok && r.Err == nil {
			title = fmt.Sprintf("▶ Run (%d)", r.Count)
		}
		out = append(out, CodeLens{Span: sp, Title: title, Command: CommandRun, Arguments: []any{s.URI, spanArg{sp}}})
	}
	return out
}

// timeoutMessage turns a deadline or the tuple budget into a message that
// says how to go past it from the editor.
func timeoutMessage(err error, limit time.Duration) error {
	return timeoutMessageHow(err, limit, "")
}

// timeoutMessage is the error of an evaluation of the document, saying how
// to raise the time limit as the server's options tell
// (Options.RaiseTimeout).
func (s *Snapshot) timeoutMessage(err error) error {
	how := ""
	if s.Workspace != nil {
		how = s.Workspace.raiseTimeout
	}
	return timeoutMessageHow(err, s.runTimeout(), how)
}

// timeoutMessageHow is timeoutMessage naming how to raise the limit; how
// "" names the ctxql.runTimeout setting.
func timeoutMessageHow(err error, limit time.Duration, how string) error {
	if how == "" {
		how = "the " + settingRunTimeout + " setting, in milliseconds"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return budget.TimeLimit(limit).WithFlag(how)
	}
	if le := (*lang.LimitError)(nil); errors.As(err, &le) {
		// The language server's budgets have no setting: the message
		// says how to go past them rather than a CLI flag alone, which
		// means nothing in an editor.
		return le.WithFlag("an evaluation outside the editor (`ctxql eval datalog --max-tuples N`): the language server's budget has no setting")
	}
	return err
}

// resultOf is the whole result of items: never nil, so that a query
// without results still has one (an empty list).
func resultOf(it lang.Items) any {
	if it == nil {
		return []any{}
	}
	return it
}
