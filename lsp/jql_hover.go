package lsp

import (
	"context"
	"fmt"
	"strings"

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

// jqlFieldDoc describes a resolved field.
func jqlFieldDoc(path string, fl *jql.Field, throughArray bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**field** `%s`: %s", path, fl.Type.String())
	if fl.Doc != "" {
		fmt.Fprintf(&b, "\n\n%s", fl.Doc)
	}
	if fl.Computed {
		b.WriteString("\n\nComputed at query time: it can be selected but not filtered on.")
	}
	if len(fl.Variants) > 0 {
		fmt.Fprintf(&b, "\n\nPresent only on documents of type %s.", strings.Join(fl.Variants, ", "))
	}
	if throughArray {
		b.WriteString("\n\nThe path crosses an array: a condition holds when it holds for any element.")
	}
	return b.String()
}

// Describe explains the construct at off: a field path segment (its type
// and documentation from the schema), the domain, a top-level key or a
// where operator.
func describeJQL(f *jql.File, schema *jql.Schema, off int) (md string, span syntax.Span, ok bool) {
	q := jqlQueryAt(f, off)
	if q == nil {
		return "", syntax.Span{}, false
	}
	d := schema.Domain(q.Domain())
	if p, i := q.PathAt(off); p != nil && i >= 0 && d != nil {
		prefix := jql.Path{Text: p.Text, Sp: p.Sp, Segments: p.Segments[:i+1]}
		r := d.Resolve(prefix)
		if r.Bad >= 0 {
			return fmt.Sprintf("**unknown field** `%s`\n\n%s", p.Segments[i].Name, r.Reason), p.Segments[i].Sp, true
		}
		names := prefix.Names()
		return jqlFieldDoc(strings.Join(names, "."), r.Field(), r.ThroughArray), p.Segments[i].Sp, true
	}
	if q.From != nil && q.From.Sp.Touches(off) {
		if d == nil {
			return fmt.Sprintf("**unknown domain** `%s`\n\nDomains: %s.", q.Domain(), strings.Join(schema.DomainNames(), ", ")), q.From.Sp, true
		}
		return fmt.Sprintf("**domain** `%s`\n\n%s", d.Name, d.Doc), q.From.Sp, true
	}
	if q.Root != nil {
		for _, m := range q.Root.Members {
			if m.Key != nil && m.Key.Sp.Touches(off) {
				if doc, ok := jqlKeyDocs[m.Key.Str]; ok {
					return fmt.Sprintf("**%s**\n\n%s", m.Key.Str, doc), m.Key.Sp, true
				}
			}
		}
	}
	for _, c := range q.Where {
		if !c.Shorthand && c.OpSpan.Touches(off) {
			if doc, ok := jqlOpDocs[c.Op]; ok {
				return fmt.Sprintf("**operator** `%s`\n\n%s", c.Op, doc), c.OpSpan, true
			}
		}
	}
	return "", syntax.Span{}, false
}

// Hover explains the field path, domain, key or operator at off, with the
// query's result count over the sample data.
func (l jqlLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	jf := jqlFile(s)
	if jf == nil {
		return "", syntax.Span{}, false
	}
	md, sp, ok := describeJQL(jf, jql.NewSchema(), off)
	if lt := linterFor(l.linter, s); lt != nil {
		md, sp, ok = withRuleDocs(lt, l.Diagnostics(ctx, s), off, md, sp, ok)
	}
	md, sp, ok = withStep(ctx, s, l.Queries(s), off, jqlTrace, md, sp, ok)
	return withCount(ctx, s, off, md, sp, ok)
}
