package jql

import (
	"context"
	"time"

	"github.com/valyala/fastjson"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// Step is one condition of a where clause and the number of documents left
// once it is applied after every condition before it.
type Step struct {
	// Span covers the condition: its where key through its operator (or
	// the value of an equality shorthand).
	Span syntax.Span
	// KeySpan covers the where key; OpSpan the operator key or shorthand value.
	KeySpan, OpSpan syntax.Span
	// Path is the filtered path as written; Op the operator.
	Path, Op string
	// Left is the number of documents that satisfy this condition and all
	// before it. The operators of one where entry hold together for one
	// array element, as in evaluation, so a step after the first of an
	// entry counts documents with an element satisfying all of the entry's
	// operators so far.
	Left int
	// Time is the time spent testing the condition, summed over the
	// documents; measured only by ExplainTimed.
	Time time.Duration
}

// Explanation tells where a query's documents went: how many the domain
// holds, how many are left after each where condition in source order,
// after the startAfter cursor, and how many the limit returns.
type Explanation struct {
	// Domain is the queried domain.
	Domain string
	// Total is the number of documents in the domain.
	Total int
	// Steps are the where conditions, in source order.
	Steps []Step
	// Cursor is true when the query has a startAfter.
	Cursor bool
	// AfterCursor is the number of matching documents after the cursor
	// (every matching document when there is no cursor).
	AfterCursor int
	// Returned is the number of documents the query returns.
	Returned int
}

// Emptied returns the index of the first step that leaves no document, or
// -1 when every step leaves some.
func (e *Explanation) Emptied() int {
	for i, s := range e.Steps {
		if s.Left == 0 {
			return i
		}
	}
	return -1
}

// Explain evaluates a parsed query's filters one condition at a time and
// counts the documents left after each. It reads every document of the
// domain (no pre-filter), so it costs a full scan; errors are those of
// EvalQuery.
func Explain(ctx context.Context, q *syn.Query, parseDiags []syntax.Diagnostic, data Source) (*Explanation, error) {
	return explain(ctx, q, parseDiags, data, false)
}

// ExplainTimed is Explain that also measures the time each condition
// takes (Step.Time), for profiles; the clock readings make it slower.
func ExplainTimed(ctx context.Context, q *syn.Query, parseDiags []syntax.Diagnostic, data Source) (*Explanation, error) {
	return explain(ctx, q, parseDiags, data, true)
}

func explain(ctx context.Context, q *syn.Query, parseDiags []syntax.Diagnostic, data Source, timed bool) (*Explanation, error) {
	pl, _, err := prepare(q, parseDiags)
	if err != nil {
		return nil, err
	}
	var p fastjson.Parser
	if err := pl.findCursor(ctx, data, &p); err != nil {
		return nil, err
	}
	ex := &Explanation{Domain: pl.dom.Name, Cursor: pl.hasCursor}
	for _, c := range q.Where {
		ex.Steps = append(ex.Steps, Step{
			Span: c.KeySpan.Union(c.OpSpan), KeySpan: c.KeySpan, OpSpan: c.OpSpan,
			Path: c.Path.Text, Op: c.Op,
		})
	}
	err = data.Scan(ctx, pl.dom.Name, func(raw []byte) error {
		if ex.Total++; ex.Total%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		v, err := p.ParseBytes(raw)
		if err != nil {
			return dataErr("%w", err)
		}
		if v.Type() != fastjson.TypeObject {
			return nil
		}
		step := 0
		for _, g := range pl.groups {
			for n := 1; n <= len(g.conds); n++ {
				var t0 time.Time
				if timed {
					t0 = time.Now()
				}
				ok := g.match(v, n)
				if timed {
					ex.Steps[step].Time += time.Since(t0)
				}
				if !ok {
					return nil
				}
				ex.Steps[step].Left++
				step++
			}
		}
		if pl.hasCursor && !pl.before(pl.cursor, keyOf(v)) {
			return nil
		}
		ex.AfterCursor++
		return nil
	})
	if err != nil {
		return nil, err
	}
	ex.Returned = min(ex.AfterCursor, q.Limit)
	return ex, nil
}
