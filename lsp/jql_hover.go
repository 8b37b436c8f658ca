package lsp

import (
	"context"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// jqlKeyDocs documents the top-level keys of a query.
var jqlKeyDocs = map[string]string{
	"from":       "The domain to query: `sessions` or `activities`.",
	"select":     "The fields to return: paths, `*` for every field, `-path` to leave one out.",
	"where":      "Conditions, all of which must hold: `path: value` or `path: {op: value}`.",
	"order":      "`asc` or `desc` (the default) by creation time.",
	"limit":      "The number of results, 1 to 1000.",
	"startAfter": "A cursor: the id of the last result of the previous page.",
}

// jqlOpDocs documents the where operators.
var jqlOpDocs = map[string]string{
	jql.OpEq:       "Equal.",
	jql.OpNeq:      "Not equal.",
	jql.OpGt:       "Greater than (numbers and timestamps).",
	jql.OpLt:       "Less than (numbers and timestamps).",
	jql.OpGte:      "Greater than or equal (numbers and timestamps).",
	jql.OpLte:      "Less than or equal (numbers and timestamps).",
	jql.OpIn:       "Equal to one of the listed values.",
	jql.OpContains: "The string contains the value, or the array contains an element equal to it.",
	jql.OpExists:   "`true`: the field is present; `false`: it is absent.",
}

// queryAt returns the query covering off.
func jqlQueryAt(f *jql.File, off int) *jql.Query {
	for _, q := range f.Queries {
		if q != nil && q.Sp.Touches(off) {
			return q
		}
	}
	return nil
}

// Hover explains the field path, domain, key or operator at off, with the
// query's result count over the sample data.
func (l jqlLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	jf := jqlFile(s)
	if jf == nil {
		return "", syntax.Span{}, false
	}
	desc, ok := (&lang.Parsed{Lang: lang.ByID(lang.JQL), File: s.File, AST: jf}).Describe(off)
	md, sp := desc.Markdown, desc.Span
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	md, sp, ok = withStep(ctx, s, l.Queries(s), off, jqlTrace, md, sp, ok)
	return withCount(ctx, s, off, md, sp, ok)
}
