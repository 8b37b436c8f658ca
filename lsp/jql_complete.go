package lsp

import (
	"context"
	"sort"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// jqlCompletion is one proposal: Text replaces Span.
type jqlCompletion struct {
	Label, Text, Detail string
	Span                syntax.Span
	Kind                string // "field", "key", "domain" or "operator"
}

// Complete proposes, inside a select or where path, the fields of the type
// the path has reached (with extra, the field names seen in sample
// records, at the top level); at the from value, the domains.
func completeJQL(f *jql.File, schema *jql.Schema, off int, extra []string) []jqlCompletion {
	q := jqlQueryAt(f, off)
	if q == nil {
		return nil
	}
	var out []jqlCompletion
	if q.From != nil && q.From.Sp.Touches(off) && q.From.Kind == jql.KindString {
		for _, n := range schema.DomainNames() {
			out = append(out, jqlCompletion{Label: n, Text: n, Kind: "domain", Span: innerSpan(q.From.Sp), Detail: schema.Domain(n).Doc})
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
		out = append(out, jqlCompletion{Label: fl.Name, Text: fl.Name, Kind: "field", Span: sp, Detail: fl.Type.String() + " — " + fl.Doc})
	}
	if len(parent.Segments) == 0 {
		sort.Strings(extra)
		for _, n := range extra {
			if !seen[n] {
				seen[n] = true
				out = append(out, jqlCompletion{Label: n, Text: n, Kind: "field", Span: sp, Detail: "seen in the sample data"})
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
func completeJQLOperators(q *jql.Query, d *jql.Domain, off int) []jqlCompletion {
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
		var out []jqlCompletion
		for _, op := range jqlOperatorsFor(t) {
			out = append(out, jqlCompletion{Label: op, Text: op, Kind: "operator", Span: span, Detail: jqlOpDocs[op]})
		}
		return out
	}
	return nil
}

// jqlTopKeys are a query's keys in their canonical order.
var jqlTopKeys = []string{"from", "select", "where", "order", "limit", "startAfter"}

// completeJQLKeys proposes, at a key position of the query object itself,
// the query keys not written yet; nil when off is not there.
func completeJQLKeys(q *jql.Query, off int) []jqlCompletion {
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
	var out []jqlCompletion
	for _, k := range jqlTopKeys {
		if !have[k] {
			out = append(out, jqlCompletion{Label: k, Text: k, Kind: "key", Span: span, Detail: jqlKeyDocs[k]})
		}
	}
	return out
}

// Complete proposes field names inside paths (with the top-level fields of
// the sample data), domains at from and, inside a condition's operator
// object, the operators valid for the field's type.
func (jqlLanguage) Complete(ctx context.Context, s *Snapshot, off int) []CompletionItem {
	jf := jqlFile(s)
	if jf == nil {
		return nil
	}
	var out []CompletionItem
	for _, c := range completeJQL(jf, jql.NewSchema(), off, sampleKeys(ctx, s, jf, off)) {
		edit := syntax.TextEdit{Span: c.Span, NewText: c.Text}
		kind := 5 // Field
		switch c.Kind {
		case "domain":
			kind = 9 // Module
		case "operator":
			kind = 24 // Operator
		case "key":
			kind = 14 // Keyword
		}
		out = append(out, CompletionItem{Label: c.Label, Kind: kind, Detail: c.Detail, Edit: &edit})
	}
	return out
}

// sampleKeys lists the top-level field names of the first sample
// documents of the query's domain at off, when the document has data.
func sampleKeys(ctx context.Context, s *Snapshot, jf *jql.File, off int) []string {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	for _, q := range jf.Queries {
		if q == nil || !q.Sp.Touches(off) {
			continue
		}
		seen := map[string]bool{}
		var out []string
		for _, d := range sampleDocs(ctx, s, s.Workspace.DataPath(s), q.Domain()) {
			if m, ok := d.(map[string]any); ok {
				for k := range m {
					if !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
				}
			}
		}
		return out
	}
	return nil
}
