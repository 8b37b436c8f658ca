package jqllint_test

import (
	"context"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/analysistest"
	"github.com/ctxql/ctxql/analysis/jqllint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// FuzzRules checks that the rules never panic on any text, partial queries
// included, that their spans and fix edits lie inside the source, and that
// the safe fixes of a file without syntax errors give a file without syntax
// errors on which a second round of fixes changes nothing.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		`{from: 'activites', select: ['id', 'artifacts.typ'], where: {'artifacts.exitCod': {neq: 0}}}`,
		`{"from": "sessions", "where": {"durationMs": {"gt": 5}, "requirePlanApproval": {"gt": true}}, "limit": 5000}`,
		`{from: 'activities', where: {type: 'planGenerated', message: {contains: 'x'}, 'plan.steps.index': {contains: 'a'}}}`,
		`{from: 'activities', where: {type: {in: ['agentMessaged']}, 'plan.stpes.titel': 'x'}, limit: 0.5}`,
		"from: activites\nwhere:\n  artifacts.comand: ls\nlimit: 0\n",
		"from: sessions\nselect: [id, stae]\n---\nfrom: activities\nwhere: {type: {neq: agentMessaged}, reason: x}\n",
		`{from: 'activities', where: {'artifacts.changeSet': {eq: 'x'}, "\u0074ipe": 'x'}}`,
		`{from: 'sessions', where: {'outputs.pullRequest.ur': 'x', 'sourceContext.githubRepoContext.startingBrnch': 'main'`,
		`{from: 'activities', where: {TYPE: 'x', 'artifacts[].exitCode': 1, 'artifacts.exitCode[]': 1}}`,
		`{from: 'activities', where: {type: {in: ['agentMesaged', 'PLANGENERATED', 'x']}, originator: {neq: 'usr'}}}`,
		"from: sessions\nwhere: {state: inProgres, 'outputs.type': x}\n",
		`{from: `, `{`, ``, `[1, 2]`, `{from: 1, limit: 'x', where: [1]}`,
	} {
		f.Add(s)
	}
	reg, err := analysis.NewRegistry(jqllint.Analyzers()...)
	if err != nil {
		f.Fatal(err)
	}
	rules := reg.For(analysis.JQL)
	run := func(src string) (*jql.File, []syntax.Diagnostic) {
		jf := jql.ParseFile("f.jql", src)
		return jf, analysis.Run(context.Background(), rules, syntax.NewFile("f.jql", src), jf, jql.NewSchema())
	}
	f.Fuzz(func(t *testing.T, src string) {
		jf, diags := run(src)
		for _, d := range diags {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("span %v outside %d bytes: %+v", d.Span, len(src), d)
			}
			if len(d.Code) < 3 || d.Code[:3] != "JQL" {
				t.Fatalf("rule failed: %+v", d)
			}
			for _, fx := range d.SuggestedFixes {
				for _, e := range fx.TextEdits {
					if !e.Span.Valid(len(src)) {
						t.Fatalf("edit %v outside %d bytes: %+v", e.Span, len(src), d)
					}
				}
			}
		}
		if missing := uncovered(jf, diags); len(missing) > 0 {
			t.Fatalf("%q: schema findings no rule reports: %v", src, missing)
		}
		if len(syntaxErrors(jf)) > 0 {
			return
		}
		fixed, err := analysistest.ApplyFixes(src, diags, false)
		if err != nil {
			t.Fatalf("fixes do not apply: %v", err)
		}
		jf2, diags2 := run(fixed)
		if errs := syntaxErrors(jf2); len(errs) > 0 {
			t.Fatalf("%q fixed to %q, which does not parse: %v", src, fixed, errs)
		}
		if len(jf2.Queries) != len(jf.Queries) {
			t.Fatalf("%q fixed to %q: %d queries became %d", src, fixed, len(jf.Queries), len(jf2.Queries))
		}
		// One fix can enable another (a corrected domain or field lets the
		// enum rule check a value), so fixes are applied in rounds, as the
		// lint driver does; they must converge within a few.
		cur, curDiags := fixed, diags2
		for round := 2; ; round++ {
			next, err := analysistest.ApplyFixes(cur, curDiags, false)
			if err != nil {
				t.Fatalf("round %d: fixes do not apply: %v", round, err)
			}
			if next == cur {
				break
			}
			if round == 5 {
				t.Fatalf("%q: fixes did not converge after %d rounds (%q)", src, round, next)
			}
			var jfn *jql.File
			jfn, curDiags = run(next)
			if errs := syntaxErrors(jfn); len(errs) > 0 {
				t.Fatalf("round %d: %q does not parse: %v", round, next, errs)
			}
			cur = next
		}
	})
}
