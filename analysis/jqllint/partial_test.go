package jqllint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/jqllint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// TestPartialTrees runs every rule on hand-built trees the parser would
// never produce (nil clauses, empty paths, missing operands, a wrong AST
// type, malformed schemas) and expects no rule to fail, while a sound query
// in the same file is still checked.
func TestPartialTrees(t *testing.T) {
	str := func(s string) *jql.Value { return &jql.Value{Kind: jql.KindString, Str: s, Sp: syntax.Sp(0, 1)} }
	src := "{from: 'activities', where: {artifactCount: 1}}"
	sound := jql.ParseFile("q.jql", src).Queries[0]
	queries := []*jql.Query{
		nil,
		{},
		{From: &jql.Value{Kind: jql.KindNumber}},
		{From: str("activities"), Where: []*jql.Condition{nil, {}, {Op: jql.OpEq}, {Path: jql.Path{Text: "type"}, Op: jql.OpIn}}},
		{From: str("activities"), Select: []*jql.SelectItem{nil, {}, {Star: true}}},
		{From: str("activites"), Where: []*jql.Condition{{Path: jql.Path{Text: "typ", Segments: []jql.Segment{{Name: "typ", Sp: syntax.Sp(0, 99)}}}, Op: jql.OpGt}}},
		{From: str("activities"), Where: []*jql.Condition{
			{Path: jql.Path{Text: "type", Segments: []jql.Segment{{Name: "type"}}}, Op: jql.OpIn, Operand: &jql.Value{Kind: jql.KindArray, Elems: []*jql.Value{nil}}},
			{Path: jql.Path{Text: "message", Segments: []jql.Segment{{Name: "message"}}}, Op: jql.OpExists},
			{Path: jql.Path{Text: "plan", Segments: []jql.Segment{{Name: "plan"}}}, Op: jql.OpEq, Operand: &jql.Value{Kind: jql.KindInvalid}},
		}},
		{From: str("sessions"), LimitValue: &jql.Value{Kind: jql.KindNumber, Num: -1e300, Sp: syntax.Sp(5, 2)}},
		sound,
	}
	file := &jql.File{Name: "q.jql", Text: src, Queries: queries}
	f := syntax.NewFile("q.jql", src)
	good := jql.NewSchema()
	cyclic := &jql.Type{Kind: jql.TObject}
	cyclic.Fields = []*jql.Field{{Name: "self", Type: cyclic}}
	schemas := []any{nil, good, &jql.Schema{}, &jql.Schema{Domains: []*jql.Domain{nil, {Name: "activities"}}},
		&jql.Schema{Domains: []*jql.Domain{{Name: "activities", Root: &jql.Type{Kind: jql.TObject, Fields: []*jql.Field{nil, {Name: "x"}}}}}},
		&jql.Schema{Domains: []*jql.Domain{{Name: "activities", Root: cyclic}}}, "not a schema"}
	reg, err := analysis.NewRegistry(jqllint.Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	for i, data := range schemas {
		for _, ast := range []any{file, nil, "text", &jql.File{}} {
			for _, d := range analysis.Run(context.Background(), reg.For(analysis.JQL), f, ast, data) {
				if strings.Contains(d.Message, "internal error") {
					t.Errorf("schema %d: %s", i, d.Message)
				}
			}
		}
	}
	ds := analysis.Run(context.Background(), reg.For(analysis.JQL), f, file, good)
	if !has(ds, "JQL004") {
		t.Errorf("the sound query among broken ones is not checked: %v", ds)
	}
}
