package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ctxql/ctxql/internal/files"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Queries lists the spans of the document's queries.
func (jqlLanguage) Queries(s *Snapshot) []syntax.Span {
	return querySpans(s)
}

// Run evaluates the query at off against the sample data (a sessions and
// activities file or directory, as `ctxql eval jql --data` reads). The
// evaluation is cached by the query's text and the data version.
func (l jqlLanguage) Run(ctx context.Context, s *Snapshot, off int) (RunResult, bool) {
	if s.Workspace == nil {
		return RunResult{}, false
	}
	path := s.Workspace.DataPath(s)
	var q *syntax.Span
	for _, c := range l.Queries(s) {
		if c.Touches(off) {
			q = &c
		}
	}
	if q == nil || path == "" {
		return RunResult{}, false
	}
	id, err := s.dataID(path)
	if err != nil {
		return RunResult{Span: *q, Err: err}, true
	}
	key := evalKey{kind: "jql-run" + jqlFormat(s), data: id.String(), path: path, text: s.File.Slice(*q)}
	res, err := s.Workspace.evals.queries.get(ctx, &s.Workspace.evals, key, func(ctx context.Context) (RunResult, bool) {
		return evalJQL(ctx, s, *q, path), true
	})
	if err != nil {
		return RunResult{}, false
	}
	res.Span = *q
	return res, true
}

// jqlFormat is the file name suffix of a JQL document, which decides how
// its queries are read (JSON or YAML): part of an evaluation's key.
func jqlFormat(s *Snapshot) string {
	return tableOf(s).Suffix(s.File.Name())
}

// evalJQL evaluates the query q of s over the data at path through the
// language table.
func evalJQL(ctx context.Context, s *Snapshot, q syntax.Span, path string) RunResult {
	var res RunResult
	data, err := s.Workspace.loadData(ctx, tableOf(s), path)
	if err != nil {
		res.Err = err
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	t0 := time.Now()
	r, err := tableOf(s).Evaluate(ctx, data, lang.Query{Name: s.File.Name(), Src: s.File.Slice(q)}, lang.Budget{})
	res.Elapsed = time.Since(t0)
	switch {
	case err != nil:
		res.Err = s.timeoutMessage(err)
	case r.Invalid():
		res.Err = errors.New(syntax.Invalid(r.Diagnostics)[0].Message)
	default:
		res.Count, res.Result = r.Count, resultOf(r.Items)
		res.Sample = lang.ItemList(r.Items, 0, previewLimit)
	}
	return res
}

// CodeLenses puts "▶ Run" above each query when the document has data.
func (l jqlLanguage) CodeLenses(ctx context.Context, s *Snapshot) []CodeLens {
	return runLenses(ctx, s, l.Queries(s))
}

// InlayHints shows the documents left after each where condition of the
// queries in span (unless the inlayHints.steps setting is false) and each
// query's result count at its end.
func (l jqlLanguage) InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint {
	qs := l.Queries(s)
	return append(stepHints(ctx, s, qs, span, jqlTrace), countHints(ctx, s, qs, span)...)
}

// DataDiagnostics reports queries that return nothing from the sample data
// and field paths that no sample document has.
func (l jqlLanguage) DataDiagnostics(ctx context.Context, s *Snapshot) []syntax.Diagnostic {
	p := parsedOf(s)
	if p == nil || s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	path := s.Workspace.DataPath(s)
	var out []syntax.Diagnostic
	for _, q := range p.Fields() {
		docs := sampleDocs(ctx, s, path, q.Domain)
		if docs == nil {
			continue
		}
		for _, fp := range q.Paths {
			if len(fp.Names) == 0 || anyHas(docs, fp.Names) {
				continue
			}
			out = append(out, syntax.Diagnostic{Span: fp.Span, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
				Message: fmt.Sprintf("no document of the sample data %s has %s", path, fp.Text)})
		}
		if r, ok := run(ctx, s, q.Query.Start); ok && r.Err == nil && r.Count == 0 {
			d := syntax.Diagnostic{Span: q.Query, Severity: syntax.SeverityInfo, Origin: syntax.OriginData, Code: CodeNoMatch,
				Message: "returns nothing from the sample data " + path}
			emptiedRelated(&d, jqlTrace(ctx, s, q.Query.Start))
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// sampleDocs returns the first 1,000 documents of a domain of the sample
// data as stored (lang.SampleDocs), read once per data file version, or
// nil.
func sampleDocs(ctx context.Context, s *Snapshot, path, domain string) []any {
	l := tableOf(s)
	v, err := s.Workspace.Load(ctx, "sample:"+string(l.ID)+":"+domain, path, func(ctx context.Context, r *files.Reader, p string) (any, error) {
		// Only the first documents are read: the file is not loaded.
		d, err := l.LoadOnce(ctx, r, p)
		if err != nil {
			return nil, err
		}
		return lang.SampleDocs(ctx, d, domain, 1000)
	})
	if err != nil {
		return nil
	}
	docs, _ := v.([]any)
	return docs
}

// anyHas reports whether some document has the path (arrays are crossed).
func anyHas(docs []any, names []string) bool {
	for _, d := range docs {
		if has(d, names) {
			return true
		}
	}
	return false
}

func has(v any, names []string) bool {
	if len(names) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[names[0]]
		return ok && has(c, names[1:])
	case []any:
		for _, e := range x {
			if has(e, names) {
				return true
			}
		}
	}
	return false
}
