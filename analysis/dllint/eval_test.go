package dllint_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/analysis/analysistest"
	evdl "github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// sample is data for the relations the goldens declare.
func sample(t *testing.T) *evdl.DB {
	t.Helper()
	db, err := evdl.Load(&evdl.Data{Relations: map[string]*evdl.RelationData{
		"edge":  {ParamTypes: []string{"Proc", "Proc"}, Tuples: [][]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"c", "k"}, {"k", "k"}}},
		"label": {ParamTypes: []string{"Proc", "Name"}, Tuples: [][]string{{"a", "n1"}, {"b", "y"}, {"k", "n2"}}},
		"seed":  {ParamTypes: []string{"Proc"}, Tuples: [][]string{{"a"}, {"b"}, {"1"}, {"k"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func evaluate(t *testing.T, db *evdl.DB, src string) map[string][][]string {
	t.Helper()
	res, err := evdl.EvalProgram(context.Background(), db, "p.dl", src)
	if err != nil {
		t.Fatal(err)
	}
	if syntax.HasErrors(res.Diagnostics) {
		t.Fatalf("program not evaluated: %v", res.Diagnostics)
	}
	return res.Relations
}

// TestSingletonFixPreservesResults evaluates the singleton golden before and
// after its fixes, and with the "_" alternative, on sample data: every
// relation holds the same tuples.
func TestSingletonFixPreservesResults(t *testing.T) {
	db := sample(t)
	c := golden.Load(t, "testdata/singleton-variable.txtar")
	src := c.Input("p.dl")
	_, diags := lint(t, src, nil)
	before := evaluate(t, db, src)
	nonEmpty := 0
	for _, rows := range before {
		if len(rows) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 5 {
		t.Fatalf("only %d non-empty relations: the sample data does not exercise the rules", nonEmpty)
	}
	alt := make([]syntax.Diagnostic, len(diags))
	for i, d := range diags {
		alt[i] = d
		if len(d.SuggestedFixes) > 1 {
			alt[i].SuggestedFixes = d.SuggestedFixes[1:]
		}
	}
	for _, ds := range [][]syntax.Diagnostic{diags, alt} {
		fixed, err := analysistest.ApplyFixes(src, ds, false)
		if err != nil || fixed == src {
			t.Fatalf("fixes: %v (changed: %v)", err, fixed != src)
		}
		if got, want := fmt.Sprint(evaluate(t, db, fixed)), fmt.Sprint(before); got != want {
			t.Errorf("results changed by the fixes:\n%s\nbefore: %s\nafter:  %s", fixed, want, got)
		}
	}
}

// TestNeverFiresAgreesWithEvaluator copies every rule DL010 reports under a
// fresh head relation, evaluates the program on sample data (in which the
// declared relations are not empty) and expects each copy to derive nothing.
func TestNeverFiresAgreesWithEvaluator(t *testing.T) {
	db := sample(t)
	c := golden.Load(t, "testdata/rule-never-fires.txtar")
	src := c.Input("p.dl")
	prog, diags := lint(t, src, nil)
	var b strings.Builder
	b.WriteString(src)
	var probes []string
	for _, d := range diags {
		if d.Code != "DL010" {
			continue
		}
		for _, r := range prog.Rules {
			if !r.Sp.Covers(d.Span) {
				continue
			}
			name := fmt.Sprintf("probe%d", len(probes))
			probes = append(probes, name)
			fmt.Fprintf(&b, "%s%s\n", name, prog.File.Slice(syntax.Sp(r.Head.Name.Sp.End, r.Sp.End)))
		}
	}
	if len(probes) < 8 {
		t.Fatalf("only %d reported rules", len(probes))
	}
	rels := evaluate(t, db, b.String())
	for _, name := range probes {
		rows, ok := rels[name]
		if !ok {
			t.Errorf("%s was not evaluated", name)
		}
		if len(rows) > 0 {
			t.Errorf("%s derived %v, but its rule was reported as never firing", name, rows)
		}
	}
	// The rules that were not reported derive something on this data.
	for _, name := range []string{"path", "grow", "fromfact", "nums", "mixed", "constsok", "strs", "selfok", "negsome"} {
		if len(rels[name]) == 0 {
			t.Errorf("%s derived nothing: the sample data does not separate the cases", name)
		}
	}
}
