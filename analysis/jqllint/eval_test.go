package jqllint_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ctxql/ctxql/analysis/analysistest"
	evjql "github.com/ctxql/ctxql/eval/jql"
)

// fixture builds activities of every type carrying every field the schema
// gives that type, each with artifacts of every kind, plus sessions.
func fixture(t *testing.T, n int) evjql.Memory {
	t.Helper()
	types := []string{"agentMessaged", "userMessaged", "planGenerated", "planApproved", "progressUpdated", "sessionCompleted", "sessionFailed"}
	var acts, sess []any
	for i := range n {
		typ := types[i%len(types)]
		a := map[string]any{
			"id": fmt.Sprintf("a%04d", i), "type": typ, "sessionId": fmt.Sprintf("s%d", i%5),
			"createTime": fmt.Sprintf("2024-01-01T00:%02d:%02dZ", i/60%60, i%60), "originator": "agent",
			"artifacts": []any{
				map[string]any{"type": "bashOutput", "command": "npm test", "stdout": "ok", "exitCode": float64(i % 3)},
				map[string]any{"type": "media", "format": "image/png", "data": "AA=="},
				map[string]any{"type": "changeSet", "changeSet": map[string]any{"source": "src", "gitPatch": map[string]any{"baseCommitId": "abc"}}},
			},
		}
		switch typ {
		case "agentMessaged", "userMessaged":
			a["message"] = "done 1"
		case "planGenerated":
			a["plan"] = map[string]any{"id": "p1", "steps": []any{map[string]any{"id": "s", "title": "x", "index": float64(0)}}}
		case "planApproved":
			a["planId"] = "p1"
		case "progressUpdated":
			a["title"], a["description"] = "y", "build"
		case "sessionFailed":
			a["reason"] = "x"
		}
		acts = append(acts, a)
		sess = append(sess, map[string]any{"id": fmt.Sprintf("s%d", i), "state": "completed", "title": "x",
			"url": "z", "requirePlanApproval": i%2 == 0, "createTime": "2024-01-01T00:00:00Z"})
	}
	m, err := evjql.NewMemory(map[string][]any{"activities": acts, "sessions": sess})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLimitFixKeepsResults pins that JQL005's fix is safe: a limit above
// 1000 and the 1000 the fix writes return the same documents.
func TestLimitFixKeepsResults(t *testing.T) {
	data := fixture(t, 1200)
	src := "{from: 'activities', select: ['id'], limit: 5000}"
	_, diags, _ := lint(t, "q.jql", src)
	fixed, err := analysistest.ApplyFixes(src, diags, false)
	if err != nil {
		t.Fatal(err)
	}
	if fixed != "{from: 'activities', select: ['id'], limit: 1000}" {
		t.Fatalf("fixed to %q", fixed)
	}
	before, err1 := evjql.Eval(context.Background(), src, data)
	after, err2 := evjql.Eval(context.Background(), fixed, data)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(before.Docs) != 1000 || fmt.Sprintf("%s", before.Docs) != fmt.Sprintf("%s", after.Docs) {
		t.Fatalf("%d documents before the fix, %d after, or different ones", len(before.Docs), len(after.Docs))
	}
}

// TestFindingsNeverMatch pins the claim of JQL003 (operand of another type),
// JQL006 (type filter excluding the field) and JQL007 (value outside the
// enumeration) that the condition never
// holds (for neq across types: that it always holds): on data with every
// field of every type, the flagged query returns nothing (every document)
// while the corrected one returns some.
func TestFindingsNeverMatch(t *testing.T) {
	data := fixture(t, 70)
	for _, tc := range []struct {
		code, bad, good string
		all             bool
	}{
		{"JQL006", "{from: 'activities', where: {type: 'planGenerated', message: {contains: 'done'}}}",
			"{from: 'activities', where: {type: 'agentMessaged', message: {contains: 'done'}}}", false},
		{"JQL006", "{from: 'activities', where: {type: {in: ['agentMessaged', 'userMessaged']}, 'plan.steps.title': 'x'}}",
			"{from: 'activities', where: {type: {in: ['agentMessaged', 'planGenerated']}, 'plan.steps.title': 'x'}}", false},
		{"JQL006", "{from: 'activities', where: {type: {neq: 'sessionFailed'}, reason: {exists: true}}}",
			"{from: 'activities', where: {type: {neq: 'agentMessaged'}, reason: {exists: true}}}", false},
		{"JQL007", "{from: 'activities', where: {type: {in: ['agentMesaged', 'Plangenerated']}}}",
			"{from: 'activities', where: {type: {in: ['agentMessaged', 'planGenerated']}}}", false},
		{"JQL003", "{from: 'activities', where: {'artifacts.exitCode': '1'}}",
			"{from: 'activities', where: {'artifacts.exitCode': 1}}", false},
		{"JQL003", "{from: 'activities', where: {'plan.steps.index': {in: ['0']}}}",
			"{from: 'activities', where: {'plan.steps.index': {in: [0]}}}", false},
		{"JQL003", "{from: 'sessions', where: {requirePlanApproval: 'true'}}",
			"{from: 'sessions', where: {requirePlanApproval: true}}", false},
		{"JQL003", "{from: 'activities', where: {type: {neq: 3}, 'artifacts.exitCode': {neq: '1'}}}",
			"{from: 'activities', where: {type: {neq: 'agentMessaged'}, 'artifacts.exitCode': {neq: 1}}}", true},
	} {
		_, bad, _ := lint(t, "q.jql", tc.bad)
		_, good, _ := lint(t, "q.jql", tc.good)
		if !has(bad, tc.code) || len(good) > 0 {
			t.Errorf("%s: bad %v, good %v", tc.bad, bad, good)
		}
		rb, err := evjql.Eval(context.Background(), tc.bad, data)
		var qe *evjql.QueryError
		if err != nil && !errors.As(err, &qe) {
			t.Fatal(err)
		}
		want := 0
		if tc.all {
			want = 70
		}
		if err == nil && len(rb.Docs) != want {
			t.Errorf("%s flagged by %s returns %d documents, want %d", tc.bad, tc.code, len(rb.Docs), want)
		}
		rg, err := evjql.Eval(context.Background(), tc.good, data)
		if err != nil || len(rg.Docs) == 0 || len(rg.Docs) == 70 {
			t.Errorf("%s returns nothing (%v): the fixture does not exercise the condition", tc.good, err)
		}
	}
}
