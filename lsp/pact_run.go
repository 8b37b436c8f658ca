package lsp

import (
	"context"
	"errors"
	"time"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Queries lists the spans of the file's queries.
func (pactLanguage) Queries(s *Snapshot) []syntax.Span {
	return querySpans(s)
}

// Run evaluates the query at off against the sample data, with a timeout.
// The evaluation is cached by the query's text, dialect and data version.
func (pactLanguage) Run(ctx context.Context, s *Snapshot, off int) (RunResult, bool) {
	p := parsedOf(s)
	if p == nil || s.Workspace == nil {
		return RunResult{}, false
	}
	q, found := p.QueryAt(off)
	path := s.Workspace.DataPath(s)
	if !found || path == "" {
		return RunResult{}, false
	}
	if q.Bad {
		return RunResult{Span: q.Span, Err: errors.New("the query has syntax errors")}, true
	}
	id, err := s.dataID(path)
	if err != nil {
		return RunResult{Span: q.Span, Err: err}, true
	}
	key := evalKey{kind: "pact-run", data: id.String(), path: path, dialect: int(p.Dialect), text: s.File.Slice(q.Span)}
	res, err := s.Workspace.evals.queries.get(ctx, &s.Workspace.evals, key, func(ctx context.Context) (RunResult, bool) {
		return evalPACT(ctx, s, q.Span, p.Dialect, path), true
	})
	if err != nil {
		return RunResult{}, false
	}
	res.Span = q.Span
	return res, true
}

// evalPACT evaluates the query q of s over the data at path through the
// language table.
func evalPACT(ctx context.Context, s *Snapshot, q syntax.Span, dialect lang.Dialect, path string) RunResult {
	var res RunResult
	data, err := s.Workspace.loadData(ctx, tableOf(s), path)
	if err != nil {
		res.Err = err
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	t0 := time.Now()
	r, err := tableOf(s).Evaluate(ctx, data, lang.Query{Name: s.File.Name(), Src: s.File.Slice(q), Dialect: dialect}, lang.Budget{})
	res.Elapsed = time.Since(t0)
	switch {
	case err != nil:
		res.Err = s.timeoutMessage(err)
	case r.Invalid():
		res.Err = errors.New(syntax.Invalid(r.Diagnostics)[0].Message)
	case r.Range:
		res.Count, res.Range, res.Result, res.Sample = r.Count, true, r.Items.At(0), lang.ItemList(r.Items, 0, 1)
	default:
		res.Sample = lang.ItemList(r.Items, 0, previewLimit)
		first := lang.ItemList(r.Items, 0, maxNodeSummaries)
		ids := make([]string, len(first))
		for i, it := range first {
			ids[i], _ = it.(string)
		}
		res.Nodes = lang.DescribeNodes(data, ids, previewLength)
		res.Count, res.Result = r.Count, resultOf(r.Items)
	}
	return res
}

// CodeLenses puts "▶ Run" above each query, with its result count once the
// sample data has been evaluated for this version.
func (l pactLanguage) CodeLenses(ctx context.Context, s *Snapshot) []CodeLens {
	return runLenses(ctx, s, l.Queries(s))
}

// spanArg marks a code lens argument the server turns into an LSP range.
type spanArg struct{ Span syntax.Span }

// InlayHints shows the candidate count after each step and filter of the
// queries in span (unless the inlayHints.steps setting is false) and the
// result count at the end of each.
func (l pactLanguage) InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint {
	qs := l.Queries(s)
	return append(stepHints(ctx, s, qs, span, pactTrace), countHints(ctx, s, qs, span)...)
}

// DataDiagnostics warns about queries that match nothing in the sample
// data (at most the first 200 queries, each within the run timeout).
func (l pactLanguage) DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	var out []syntax.Diagnostic
	for i, sp := range l.Queries(s) {
		if i == 200 || ctx.Err() != nil {
			break
		}
		r, ok := run(ctx, s, sp.Start)
		if !ok || r.Err != nil || r.Count > 0 || r.Result == nil || r.Range {
			continue
		}
		d := syntax.Diagnostic{Span: sp, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
			Message: "matches nothing in the sample data " + s.Workspace.DataPath(s)}
		emptiedRelated(&d, pactTrace(ctx, s, sp.Start))
		out = append(out, d)
	}
	return out
}

// CodeNoMatch is the code of the data-aware "matches nothing" diagnostic.
const CodeNoMatch = "DATA001"

// maxNodeSummaries bounds the node summaries of one run; previewLength
// bounds a summary's content preview, in characters.
const (
	maxNodeSummaries = 1000
	previewLength    = 80
)
