package lang

import (
	"slices"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// Complete proposes, inside a select or where path, the fields of the type
// the path has reached (with extra, the field names seen in sample
// records, at the top level); at the from value, the domains.
func completeJQL(f *jql.File, schema *jql.Schema, off int, extra []string) []Completion {
	q := jqlQueryAt(f, off)
	if q == nil {
		return nil
	}
	var out []Completion
	if q.From != nil && q.From.Sp.Touches(off) && q.From.Kind == jql.KindString {
		for _, n := range schema.DomainNames() {
			out = append(out, Completion{Label: n, Kind: CompleteDomain, Detail: schema.Domain(n).Doc, Edit: syntax.TextEdit{Span: innerSpan(q.From.Sp), NewText: n}})
		}
		return out
	}
	d := schema.Domain(q.Domain())
	if d != nil {
		if ops := completeJQLOperators(q, d, off); ops != nil {
			return ops
		}
	}
	if keys := completeJQLKeys(q, off); keys != nil {
		return keys
	}
	p, i := q.PathAt(off)
	if p == nil || d == nil {
		return nil
	}
	// The segment being typed: the one at off, or a new one after a '.'.
	var parent jql.Path
	var sp syntax.Span
	if i >= 0 {
		parent = jql.Path{Text: p.Text, Segments: p.Segments[:i]}
		sp = syntax.Sp(p.Segments[i].Sp.Start, off)
	} else {
		n := 0
		for n < len(p.Segments) && p.Segments[n].Sp.End <= off {
			n++
		}
		parent = jql.Path{Text: p.Text, Segments: p.Segments[:n]}
		sp = syntax.Sp(off, off)
	}
	t := d.Root
	if len(parent.Segments) > 0 {
		r := d.Resolve(parent)
		if r.Bad >= 0 {
			return nil
		}
		t = r.Field().Type
		if t.Kind == jql.TArray {
			t = t.Elem
		}
	}
	if t == nil || t.Kind != jql.TObject {
		return nil
	}
	seen := map[string]bool{}
	for _, fl := range t.Fields {
		seen[fl.Name] = true
		out = append(out, Completion{Label: fl.Name, Kind: CompleteField, Detail: fl.Type.String() + " — " + fl.Doc, Edit: syntax.TextEdit{Span: sp, NewText: fl.Name}})
	}
	if len(parent.Segments) == 0 {
		extra = slices.Sorted(slices.Values(extra))
		for _, n := range extra {
			if !seen[n] {
				seen[n] = true
				out = append(out, Completion{Label: n, Kind: CompleteField, Detail: "seen in the sample data", Edit: syntax.TextEdit{Span: sp, NewText: n}})
			}
		}
	}
	return out
}

// inner is the span inside a string literal's quotes.
func innerSpan(sp syntax.Span) syntax.Span {
	if sp.Len() >= 2 {
		return syntax.Sp(sp.Start+1, sp.End-1)
	}
	return sp
}

// jqlOperatorsFor lists the where operators that make sense for a field type.
func jqlOperatorsFor(t *jql.Type) []string {
	if t == nil {
		return jql.Operators()
	}
	switch t.Kind {
	case jql.TString:
		return []string{jql.OpEq, jql.OpNeq, jql.OpIn, jql.OpContains, jql.OpExists}
	case jql.TNumber, jql.TTimestamp:
		return []string{jql.OpEq, jql.OpNeq, jql.OpGt, jql.OpLt, jql.OpGte, jql.OpLte, jql.OpIn, jql.OpExists}
	case jql.TBoolean:
		return []string{jql.OpEq, jql.OpNeq, jql.OpExists}
	case jql.TArray:
		return []string{jql.OpContains, jql.OpExists}
	}
	return []string{jql.OpExists}
}

// completeJQLOperators proposes, at a key position inside a where
// condition's operator object, the operators valid for the condition's
// field type; nil when off is not there.
func completeJQLOperators(q *jql.Query, d *jql.Domain, off int) []Completion {
	if q.WhereValue == nil || q.WhereValue.Kind != jql.KindObject {
		return nil
	}
	for _, m := range q.WhereValue.Members {
		if m.Key == nil || m.Value == nil || m.Value.Kind != jql.KindObject || !(m.Value.Sp.Start < off && off < m.Value.Sp.End) {
			continue
		}
		span := syntax.Sp(off, off)
		for _, om := range m.Value.Members {
			if om.Value != nil && om.Value.Sp.Touches(off) {
				return nil // inside an operand
			}
			if om.Key != nil && om.Key.Sp.Start < off && off < om.Key.Sp.End {
				span = innerSpan(om.Key.Sp)
			}
		}
		var t *jql.Type
		for _, c := range q.Where {
			if c.KeySpan == m.Key.Sp {
				if r := d.Resolve(c.Path); r.Bad < 0 && r.Field() != nil {
					t = r.Field().Type
				}
			}
		}
		var out []Completion
		for _, op := range jqlOperatorsFor(t) {
			out = append(out, Completion{Label: op, Kind: CompleteOperator, Detail: jqlOpDocs[op], Edit: syntax.TextEdit{Span: span, NewText: op}})
		}
		return out
	}
	return nil
}

// jqlTopKeys are a query's keys in their canonical order.
var jqlTopKeys = []string{"from", "select", "where", "order", "limit", "startAfter"}

// completeJQLKeys proposes, at a key position of the query object itself,
// the query keys not written yet; nil when off is not there.
func completeJQLKeys(q *jql.Query, off int) []Completion {
	root := q.Root
	if root == nil || root.Kind != jql.KindObject || !(root.Sp.Start < off && off < root.Sp.End) {
		return nil
	}
	span := syntax.Sp(off, off)
	have := map[string]bool{}
	for _, m := range root.Members {
		if m.Value != nil && m.Value.Sp.Touches(off) {
			return nil // inside a value
		}
		if m.Key == nil {
			continue
		}
		if m.Key.Sp.Start < off && off < m.Key.Sp.End {
			span = innerSpan(m.Key.Sp)
			continue
		}
		have[m.Key.Str] = true
	}
	var out []Completion
	for _, k := range jqlTopKeys {
		if !have[k] {
			out = append(out, Completion{Label: k, Kind: CompleteKey, Detail: jqlKeyDocs[k], Edit: syntax.TextEdit{Span: span, NewText: k}})
		}
	}
	return out
}
