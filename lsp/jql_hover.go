package lsp

import (
	"fmt"
	"sort"
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
