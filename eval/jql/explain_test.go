package jql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/jql"
)

// TestExplain counts the documents left after each where condition, gives
// each step the span of its condition, and agrees with evaluation.
func TestExplain(t *testing.T) {
	mem := Memory{}
	for i := range 40 {
		typ := []string{"progressUpdated", "agentMessaged", "planGenerated", "progressUpdated"}[i%4]
		mem["activities"] = append(mem["activities"], fmt.Appendf(nil,
			`{"id":"a%02d","sessionId":"s-%d","type":%q,"createTime":"2024-01-01T00:00:%02dZ","artifacts":[{"exitCode":%d},{"exitCode":0}]}`,
			i, i%2, typ, i, i%5))
	}
	src := `{from: 'activities', where: {sessionId: 's-0', type: {in: ['progressUpdated', 'planGenerated']}, 'artifacts.exitCode': {gt: 1, lt: 4}, message: {exists: false}}, startAfter: 'a20', limit: 2}`
	q, ds := syn.ParseQuery(src)
	ex, err := Explain(context.Background(), q, ds, mem)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ex.Steps {
		got = append(got, fmt.Sprintf("%s %s %s=%d", src[s.Span.Start:s.Span.End], s.Path, s.Op, s.Left))
	}
	// s-0: the 20 even ids; of those, type progressUpdated (i%4==0) or
	// planGenerated (i%4==2): all 20; exit code 2 or 3 (i%5 in 2,3) with
	// i even: i in {2,8,12,18,22,28,32,38}; gt alone keeps i%5 in 2,3,4.
	want := []string{
		"sessionId: 's-0' sessionId eq=20",
		"type: {in type in=20",
		"'artifacts.exitCode': {gt artifacts.exitCode gt=12",
		"'artifacts.exitCode': {gt: 1, lt artifacts.exitCode lt=8",
		"message: {exists message exists=8",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// desc order, after a20: 18, 12, 8, 2.
	if ex.Total != 40 || !ex.Cursor || ex.AfterCursor != 4 || ex.Returned != 2 || ex.Emptied() != -1 {
		t.Errorf("total %d cursor %v after cursor %d returned %d emptied %d", ex.Total, ex.Cursor, ex.AfterCursor, ex.Returned, ex.Emptied())
	}
	res, err := EvalQuery(context.Background(), q, ds, mem)
	if err != nil || len(res.Docs) != ex.Returned || string(res.Docs[0]) != `{"id":"a18","type":"planGenerated","createTime":"2024-01-01T00:00:18Z","artifactCount":2,"summary":"Plan generated with 0 steps"}` {
		t.Errorf("evaluation disagrees: %v %q", err, res.Docs)
	}

	q, ds = syn.ParseQuery(`{from: 'activities', where: {type: 'planGenerated', sessionId: 's-1', id: 'a01'}}`)
	ex, err = Explain(context.Background(), q, ds, mem)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Emptied() != 1 || ex.Steps[0].Left != 10 || ex.Steps[1].Left != 0 || ex.Steps[2].Left != 0 || ex.Returned != 0 {
		t.Errorf("emptied %d, steps %+v", ex.Emptied(), ex.Steps)
	}
	q, ds = syn.ParseQuery(`{from: 'nope'}`)
	if _, err := Explain(context.Background(), q, ds, mem); err == nil {
		t.Error("an invalid query explained")
	}
}
