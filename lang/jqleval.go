package lang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// jqlEval is JQL's Evaluator.
type jqlEval struct{}

// jqlData is JQL data: loaded into memory (an *evjql.Table, whose columns
// are built as queries test them and shared by every later evaluation), or,
// for data that serves one query (LoadOnce), the file itself, read as the
// query runs.
type jqlData struct{ src evjql.Source }

func (jqlData) Language() ID                { return JQL }
func (jqlData) Schema() map[string][]string { return nil }

func (jqlEval) Load(ctx context.Context, r *files.Reader, path string) (Data, error) {
	t, err := evjql.Load(ctx, evjql.File{Path: path, Files: r})
	if err != nil {
		return nil, loadError(err)
	}
	return jqlData{t}, nil
}

// LoadOnce leaves the file where it is: the one evaluation streams it,
// holding only the documents it keeps.
func (jqlEval) LoadOnce(_ context.Context, r *files.Reader, path string) (Data, error) {
	if _, err := r.Stat(path); err != nil {
		return nil, &DataError{Err: err}
	}
	return jqlData{evjql.File{Path: path, Files: r}}, nil
}

func (jqlEval) LoadBytes(ctx context.Context, name string, b []byte) (Data, error) {
	t, err := evjql.Load(ctx, evjql.Bytes{Name: name, Data: b})
	if err != nil {
		return nil, loadError(err)
	}
	return jqlData{t}, nil
}

// parseJQLQuery parses the query of a command line or query file: a YAML
// file holding one query document gives that query, anything else is
// parsed as a single query.
func parseJQLQuery(name, src string) (*jql.Query, []syntax.Diagnostic) {
	if jql.IsYAMLName(name) {
		pf := jql.ParseFile(name, src)
		if len(pf.Queries) == 1 {
			return pf.Queries[0], pf.Diagnostics
		}
	}
	return jql.ParseQuery(src)
}

func (jqlEval) options(b Budget) evjql.Options {
	return evjql.Options{MaxBytes: b.MaxBytes}
}

// jqlError turns an evaluation error into the result's diagnostics (an
// invalid query), a *LimitError, or the error itself.
func jqlError(res *Result, err error) error {
	var qe *evjql.QueryError
	var be *evjql.BudgetError
	switch {
	case errors.As(err, &qe):
		res.Diagnostics = withOrigins(qe.Diagnostics, jql.CodeSyntax)
		return nil
	case errors.As(err, &be):
		return &LimitError{What: be.Limit, Limit: fmt.Sprint(be.Max), Unit: be.Unit, Err: err}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	}
	// JQL reads its sample data as it evaluates: what else stops a valid
	// query is the data.
	return &DataError{Err: err}
}

func (e jqlEval) Evaluate(ctx context.Context, d Data, q Query, b Budget) (*Result, error) {
	res := &Result{Lang: ByID(JQL), File: syntax.NewFile(q.Name, q.Src), Key: strings.TrimSpace(q.Src), Span: syntax.Sp(0, len(q.Src))}
	// The query's errors are those of validity, as check reports them:
	// the evaluator refuses exactly the queries that have them.
	if ds := ByID(JQL).CheckQuery(q.Name, q.Src, DialectUnset); syntax.HasErrors(ds) {
		res.Diagnostics = ds
		return res, nil
	}
	pq, ds := parseJQLQuery(q.Name, q.Src)
	r, err := evjql.EvalQueryOptions(ctx, pq, ds, d.(jqlData).src, e.options(b))
	if err != nil {
		if err := jqlError(res, err); err != nil {
			return nil, err
		}
		return res, nil
	}
	fillJQL(res, r)
	return res, nil
}

func fillJQL(res *Result, r *evjql.Result) {
	res.Diagnostics = withOrigins(r.Warnings, jql.CodeSyntax)
	docs := make([]json.RawMessage, len(r.Docs))
	for i, doc := range r.Docs {
		docs[i] = json.RawMessage(doc)
	}
	if len(docs) > 0 {
		res.Items = rawItems(docs)
	}
	res.Value, res.Count = docs, len(docs)
}

func (e jqlEval) EvaluateFile(ctx context.Context, d Data, p *Parsed, b Budget) ([]Result, error) {
	jf, ok := p.AST.(*jql.File)
	if !ok {
		return nil, fmt.Errorf("%s: not a parsed JQL file", p.File.Name())
	}
	src := p.File.Text()
	var out []Result
	for _, q := range jf.Queries {
		if q == nil {
			continue
		}
		text := src[q.Sp.Start:q.Sp.End]
		r := Result{Lang: p.Lang, File: p.File, Span: q.Sp, Key: strings.TrimSpace(text)}
		var diags []syntax.Diagnostic
		for _, dg := range jf.Diagnostics {
			if q.Sp.Covers(dg.Span) {
				diags = append(diags, dg)
			}
		}
		v, err := evjql.EvalQueryOptions(ctx, q, diags, d.(jqlData).src, e.options(b))
		if err == nil {
			fillJQL(&r, v)
		} else if r.Err = jqlError(&r, err); r.Err == nil {
			r.Err = ErrInvalidQuery
		}
		out = append(out, r)
	}
	return out, nil
}

func (jqlEval) Explain(ctx context.Context, d Data, q Query, xo Explain) (*Explanation, error) {
	f := syntax.NewFile(q.Name, q.Src)
	x := &Explanation{File: f, Emptied: -1, Profiled: xo.Profile}
	pq, ds := parseJQLQuery(q.Name, q.Src)
	explain := evjql.Explain
	if xo.Profile {
		explain = evjql.ExplainTimed
	}
	ex, err := explain(ctx, pq, ds, d.(jqlData).src)
	if err != nil {
		res := &Result{}
		if err := jqlError(res, err); err != nil {
			return nil, err
		}
		x.Diagnostics = res.Diagnostics
		return x, nil
	}
	steps := []Step{{At: -1, End: -1, Text: "from " + ex.Domain, Count: ex.Total}}
	if pq.From != nil {
		steps[0].At, steps[0].End = pq.From.Sp.Start, pq.From.Sp.End
	}
	for i, st := range ex.Steps {
		at := st.Span.Start
		if i > 0 && ex.Steps[i-1].KeySpan == st.KeySpan {
			at = st.OpSpan.Start // a further operator of the same where entry
		}
		end := st.OpSpan.End
		if c := pq.Where[i]; c.Operand != nil {
			end = max(end, c.Operand.Sp.End)
		}
		steps = append(steps, Step{At: at, End: end, Text: jqlStepText(q.Src, pq.Where[i]), Count: st.Left, Time: st.Time})
	}
	emptied := -1
	switch {
	case ex.Total == 0:
		emptied = 0
	case ex.Emptied() >= 0:
		emptied = ex.Emptied() + 1
	}
	if ex.Cursor {
		st := Step{At: -1, End: -1, Text: "startAfter " + strconv.Quote(pq.StartAfter), Count: ex.AfterCursor}
		if pq.StartAfterValue != nil {
			st.At, st.End = pq.StartAfterValue.Sp.Start, pq.StartAfterValue.Sp.End
		}
		steps = append(steps, st)
		if emptied < 0 && ex.AfterCursor == 0 {
			emptied = len(steps) - 1
		}
	}
	x.Steps, x.Emptied = steps, emptied
	if emptied >= 0 {
		st := steps[emptied]
		x.Summary = fmt.Sprintf("no match: %s at %s left no documents", st.Text, x.pos(st.At))
	} else {
		x.Summary = fmt.Sprintf("%d document(s) returned (limit %d)", ex.Returned, pq.Limit)
	}
	return x, nil
}

// jqlStepText renders a where condition on one line for explanations:
// its path, operator and operand as written ("type eq 'planGenerated'",
// "artifacts.exitCode gt 1"), the operand cut to 40 characters.
func jqlStepText(src string, c *jql.Condition) string {
	t := c.Path.Text + " " + c.Op
	if c.Operand != nil && c.Operand.Sp.End <= len(src) && c.Operand.Sp.Start < c.Operand.Sp.End {
		op := strings.Join(strings.Fields(src[c.Operand.Sp.Start:c.Operand.Sp.End]), " ")
		if r := []rune(op); len(r) > 40 {
			op = string(r[:39]) + "…"
		}
		t += " " + op
	}
	return t
}

// Parts lists the domain, the where conditions and the cursor of each
// query, as Explain counts them.
func (jqlEval) Parts(ctx context.Context, d Data, p *Parsed, within syntax.Span, _ Budget) ([]Part, error) {
	jf, ok := p.AST.(*jql.File)
	if !ok {
		return nil, fmt.Errorf("%s: not a parsed JQL file", p.File.Name())
	}
	src := p.File.Text()
	var out []Part
	for _, q := range jf.Queries {
		if q == nil {
			continue
		}
		var diags []syntax.Diagnostic
		for _, dg := range jf.Diagnostics {
			if q.Sp.Covers(dg.Span) {
				diags = append(diags, dg)
			}
		}
		ex, err := evjql.ExplainTimed(ctx, q, diags, d.(jqlData).src)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		ran := overlaps(q.Sp, within)
		add := func(sp syntax.Span, kind, text string, rows int, t time.Duration) {
			pt := Part{Span: sp, Kind: kind, Text: text, Ran: ran}
			if ran {
				pt.Rows, pt.Time = rows, t
			}
			out = append(out, pt)
		}
		from := q.Sp
		if q.From != nil {
			from = q.From.Sp
		}
		add(from, "domain", "from "+ex.Domain, ex.Total, 0)
		for i, st := range ex.Steps {
			add(st.Span, "condition", jqlStepText(src, q.Where[i]), st.Left, st.Time)
		}
		if ex.Cursor && q.StartAfterValue != nil {
			add(q.StartAfterValue.Sp, "cursor", "startAfter "+q.StartAfter, ex.AfterCursor, 0)
		}
	}
	return out, nil
}
