package jql

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// keyDocs documents the top-level keys of a query.
var keyDocs = map[string]string{
	"from":       "The domain to query: `sessions` or `activities`.",
	"select":     "The fields to return: paths, `*` for every field, `-path` to leave one out.",
	"where":      "Conditions, all of which must hold: `path: value` or `path: {op: value}`.",
	"order":      "`asc` or `desc` (the default) by creation time.",
	"limit":      "The number of results, 1 to 1000.",
	"startAfter": "A cursor: the id of the last result of the previous page.",
}

// opDocs documents the where operators.
var opDocs = map[string]string{
	OpEq:       "Equal.",
	OpNeq:      "Not equal.",
	OpGt:       "Greater than (numbers and timestamps).",
	OpLt:       "Less than (numbers and timestamps).",
	OpGte:      "Greater than or equal (numbers and timestamps).",
	OpLte:      "Less than or equal (numbers and timestamps).",
	OpIn:       "Equal to one of the listed values.",
	OpContains: "The string contains the value, or the array contains an element equal to it.",
	OpExists:   "`true`: the field is present; `false`: it is absent.",
}

// queryAt returns the query covering off.
func (f *File) queryAt(off int) *Query {
	for _, q := range f.Queries {
		if q != nil && q.Span.Touches(off) {
			return q
		}
	}
	return nil
}

// fieldDoc describes a resolved field.
func fieldDoc(path string, fl *Field, throughArray bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**field** `%s`: %s", path, typeString(fl.Type))
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
func Describe(f *File, schema *Schema, off int) (md string, span syntax.Span, ok bool) {
	q := f.queryAt(off)
	if q == nil {
		return "", syntax.Span{}, false
	}
	d := schema.Domain(q.Domain())
	if p, i := q.PathAt(off); p != nil && i >= 0 && d != nil {
		prefix := Path{Text: p.Text, Span: p.Span, Segments: p.Segments[:i+1]}
		r := d.Resolve(prefix)
		if r.Bad >= 0 {
			return fmt.Sprintf("**unknown field** `%s`\n\n%s", p.Segments[i].Name, r.Reason), p.Segments[i].Span, true
		}
		names := prefix.Names()
		return fieldDoc(strings.Join(names, "."), r.Field(), r.ThroughArray), p.Segments[i].Span, true
	}
	if q.From != nil && q.From.Span.Touches(off) {
		if d == nil {
			return fmt.Sprintf("**unknown domain** `%s`\n\nDomains: %s.", q.Domain(), strings.Join(schema.DomainNames(), ", ")), q.From.Span, true
		}
		return fmt.Sprintf("**domain** `%s`\n\n%s", d.Name, d.Doc), q.From.Span, true
	}
	if q.Root != nil {
		for _, m := range q.Root.Members {
			if m.Key != nil && m.Key.Span.Touches(off) {
				if doc, ok := keyDocs[m.Key.Str]; ok {
					return fmt.Sprintf("**%s**\n\n%s", m.Key.Str, doc), m.Key.Span, true
				}
			}
		}
	}
	for _, c := range q.Where {
		if !c.Shorthand && c.OpSpan.Touches(off) {
			if doc, ok := opDocs[c.Op]; ok {
				return fmt.Sprintf("**operator** `%s`\n\n%s", c.Op, doc), c.OpSpan, true
			}
		}
	}
	return "", syntax.Span{}, false
}

// Completion is one proposal: Text replaces Span.
type Completion struct {
	Label, Text, Detail string
	Span                syntax.Span
	Kind                string // "field", "key", "domain" or "operator"
}

// Complete proposes, inside a select or where path, the fields of the type
// the path has reached (with extra, the field names seen in sample
// records, at the top level); at the from value, the domains.
func Complete(f *File, schema *Schema, off int, extra []string) []Completion {
	q := f.queryAt(off)
	if q == nil {
		return nil
	}
	var out []Completion
	if q.From != nil && q.From.Span.Touches(off) && q.From.Kind == KindString {
		for _, n := range schema.DomainNames() {
			out = append(out, Completion{Label: n, Text: n, Kind: "domain", Span: inner(q.From.Span), Detail: schema.Domain(n).Doc})
		}
		return out
	}
	d := schema.Domain(q.Domain())
	if d != nil {
		if ops := completeOperators(q, d, off); ops != nil {
			return ops
		}
	}
	if keys := completeKeys(q, off); keys != nil {
		return keys
	}
	p, i := q.PathAt(off)
	if p == nil || d == nil {
		return nil
	}
	// The segment being typed: the one at off, or a new one after a '.'.
	var parent Path
	var sp syntax.Span
	if i >= 0 {
		parent = Path{Text: p.Text, Segments: p.Segments[:i]}
		sp = syntax.Sp(p.Segments[i].Span.Start, off)
	} else {
		n := 0
		for n < len(p.Segments) && p.Segments[n].Span.End <= off {
			n++
		}
		parent = Path{Text: p.Text, Segments: p.Segments[:n]}
		sp = syntax.Sp(off, off)
	}
	t := d.Root
	if len(parent.Segments) > 0 {
		r := d.Resolve(parent)
		if r.Bad >= 0 {
			return nil
		}
		t = r.Field().Type
		if t.Kind == TArray {
			t = t.Elem
		}
	}
	if t == nil || t.Kind != TObject {
		return nil
	}
	seen := map[string]bool{}
	for _, fl := range t.Fields {
		seen[fl.Name] = true
		out = append(out, Completion{Label: fl.Name, Text: fl.Name, Kind: "field", Span: sp, Detail: typeString(fl.Type) + " — " + fl.Doc})
	}
	if len(parent.Segments) == 0 {
		sort.Strings(extra)
		for _, n := range extra {
			if !seen[n] {
				seen[n] = true
				out = append(out, Completion{Label: n, Text: n, Kind: "field", Span: sp, Detail: "seen in the sample data"})
			}
		}
	}
	return out
}

// inner is the span inside a string literal's quotes.
func inner(sp syntax.Span) syntax.Span {
	if sp.Len() >= 2 {
		return syntax.Sp(sp.Start+1, sp.End-1)
	}
	return sp
}

// operatorsFor lists the where operators that make sense for a field type.
func operatorsFor(t *Type) []string {
	if t == nil {
		return Operators()
	}
	switch t.Kind {
	case TString:
		return []string{OpEq, OpNeq, OpIn, OpContains, OpExists}
	case TNumber, TTimestamp:
		return []string{OpEq, OpNeq, OpGt, OpLt, OpGte, OpLte, OpIn, OpExists}
	case TBoolean:
		return []string{OpEq, OpNeq, OpExists}
	case TArray:
		return []string{OpContains, OpExists}
	}
	return []string{OpExists}
}

// completeOperators proposes, at a key position inside a where
// condition's operator object, the operators valid for the condition's
// field type; nil when off is not there.
func completeOperators(q *Query, d *Domain, off int) []Completion {
	if q.WhereValue == nil || q.WhereValue.Kind != KindObject {
		return nil
	}
	for _, m := range q.WhereValue.Members {
		if m.Key == nil || m.Value == nil || m.Value.Kind != KindObject || !(m.Value.Span.Start < off && off < m.Value.Span.End) {
			continue
		}
		span := syntax.Sp(off, off)
		for _, om := range m.Value.Members {
			if om.Value != nil && om.Value.Span.Touches(off) {
				return nil // inside an operand
			}
			if om.Key != nil && om.Key.Span.Start < off && off < om.Key.Span.End {
				span = inner(om.Key.Span)
			}
		}
		var t *Type
		for _, c := range q.Where {
			if c.KeySpan == m.Key.Span {
				if r := d.Resolve(c.Path); r.Bad < 0 && r.Field() != nil {
					t = r.Field().Type
				}
			}
		}
		var out []Completion
		for _, op := range operatorsFor(t) {
			out = append(out, Completion{Label: op, Text: op, Kind: "operator", Span: span, Detail: opDocs[op]})
		}
		return out
	}
	return nil
}

// topKeys are a query's keys in their canonical order.
var topKeys = []string{"from", "select", "where", "order", "limit", "startAfter"}

// completeKeys proposes, at a key position of the query object itself,
// the query keys not written yet; nil when off is not there.
func completeKeys(q *Query, off int) []Completion {
	root := q.Root
	if root == nil || root.Kind != KindObject || !(root.Span.Start < off && off < root.Span.End) {
		return nil
	}
	span := syntax.Sp(off, off)
	have := map[string]bool{}
	for _, m := range root.Members {
		if m.Value != nil && m.Value.Span.Touches(off) {
			return nil // inside a value
		}
		if m.Key == nil {
			continue
		}
		if m.Key.Span.Start < off && off < m.Key.Span.End {
			span = inner(m.Key.Span)
			continue
		}
		have[m.Key.Str] = true
	}
	var out []Completion
	for _, k := range topKeys {
		if !have[k] {
			out = append(out, Completion{Label: k, Text: k, Kind: "key", Span: span, Detail: keyDocs[k]})
		}
	}
	return out
}
