// Package jqllint holds the analysis rules of the JQL language: queries
// checked against the JQL schema (domains, field paths, operators, computed
// and type-conditional fields) and the bounds of their clauses.
//
// Every rule receives a *jql.File as the pass's AST and a *jql.Schema as its
// data (the default schema when the data is missing). The rules read the
// partial queries the parser recovers from broken text and never assume a
// clause is present.
package jqllint

import (
	"slices"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/syntax/jql"
)

// Analyzers returns the rules of this package.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		invalidDomain, unknownField, operatorTypeMismatch, computedFieldFilter, limitOutOfRange, excludedVariantField,
		unknownEnumValue,
	}
}

// input returns the pass's file and schema, or nil when the AST is not a
// JQL file.
func input(p *analysis.Pass) (*jql.File, *jql.Schema) {
	f, _ := p.AST.(*jql.File)
	if f == nil {
		return nil, nil
	}
	s, _ := p.Data.(*jql.Schema)
	if s == nil {
		s = jql.NewSchema()
	}
	if slices.Contains(s.Domains, nil) {
		c := *s
		c.Domains = slices.DeleteFunc(slices.Clone(s.Domains), func(d *jql.Domain) bool { return d == nil })
		s = &c
	}
	return f, s
}

// eachQuery calls fn for every query of the pass whose domain is a known
// one, with that domain.
func eachQuery(p *analysis.Pass, fn func(q *jql.Query, d *jql.Domain)) {
	f, s := input(p)
	if f == nil {
		return
	}
	for _, q := range f.Queries {
		if q == nil {
			continue
		}
		d := domainOf(q, s)
		if d == nil || !wellFormed(d.Root, 0) {
			continue
		}
		fn(q, d)
	}
}

// domainOf returns the query's domain; for an unknown domain the one domain
// invalid-domain's safe fix would write, so that the paths are checked
// against it in the same round; nil otherwise.
func domainOf(q *jql.Query, s *jql.Schema) *jql.Domain {
	if d := s.Domain(q.Domain()); d != nil {
		return d
	}
	if q.From == nil || q.From.Kind != jql.KindString {
		return nil
	}
	if cs := closest(q.From.Str, s.DomainNames()); len(cs) == 1 {
		return s.Domain(cs[0])
	}
	return nil
}

// wellFormed reports whether t is an object type whose fields all have
// types, arrays element types, nested at most 64 deep, so that resolving
// paths against it cannot fail on a hand-built schema.
func wellFormed(t *jql.Type, depth int) bool {
	if t == nil || t.Kind != jql.TObject || depth > 64 {
		return false
	}
	for _, f := range t.Fields {
		if f == nil || f.Type == nil {
			return false
		}
		ft := f.Type
		if ft.Kind == jql.TArray {
			if ft.Elem == nil || ft.Elem.Kind == jql.TArray {
				return false
			}
			ft = ft.Elem
		}
		if ft.Kind == jql.TObject && !wellFormed(ft, depth+1) {
			return false
		}
	}
	return true
}
