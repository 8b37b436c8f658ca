package jql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/jql"
)

func FuzzEval(f *testing.F) {
	data := `{"id":"a1","type":"progressUpdated","createTime":"2024-01-01T00:00:00Z","sessionId":"s-1","title":"T","artifacts":[{"type":"bashOutput","command":"ls","exitCode":1}]}
{"id":"a2","type":"agentMessaged","message":"Hi \u00e9","createTime":"2024-01-02T00:00:00Z","sessionId":"s-2"}
{"id":"a3","type":"planGenerated","plan":{"steps":[{"title":"x","index":0}]}}
{"id":"a4","createTime":"9999-12-31T23:59:59.999999999-23:59","updateTime":"0000-01-01T00:00:00Z","summary":"s","artifacts":[[{"exitCode":1}],2,{"exitCode":3}]}`
	for _, q := range []string{
		`{from: 'activities'}`,
		`{from: 'activities', select: ['*', '-artifacts.data'], where: {'artifacts.exitCode': {neq: 0}}, limit: 1}`,
		`{"from": "activities", "select": ["id", "plan.steps.title"], "where": {"sessionId": {"in": ["s-1", "s-2"]}}, "order": "asc", "startAfter": "a1"}`,
		"from: activities\nwhere:\n  message: {contains: HI}\n",
		`{from: 'sessions', select: ['durationMs']}`,
		`{from: 'activities', where: {createTime: {gte: '2024-01-02T00:00:00Z'}, 'artifacts.changeSet': {exists: false}}}`,
		`{from: 'activities', select: ['type', '-artifacts.data', 'id.x', 'plan[]'], where: {'artifacts.exitCode': {gt: 0, lt: 2, exists: true}, createTime: {in: ['2024-01-01T01:00:00+01:00', '0000-01-01t00:00:00z']}}}`,
		`{from: 'sessions', select: ['durationMs', 'sourceContext.source', '-outputs.type'], order: 'asc', limit: 1500}`,
	} {
		f.Add(q, data)
	}
	f.Fuzz(func(t *testing.T, q, data string) {
		mem := Memory{}
		for _, l := range strings.Split(data, "\n") {
			mem["activities"] = append(mem["activities"], []byte(l))
			mem["sessions"] = append(mem["sessions"], []byte(l))
		}
		res, err := Eval(context.Background(), q, mem)
		var qe *QueryError
		if errors.As(err, &qe) {
			for _, d := range qe.Diagnostics {
				if !d.Span.Valid(len(q)) {
					t.Fatalf("diagnostic span %s outside query: %s", d.Span, d)
				}
			}
			return
		}
		if err != nil {
			return
		}
		for _, d := range res.Docs {
			if !json.Valid(d) {
				t.Fatalf("invalid output %s", d)
			}
		}
		var b bytes.Buffer
		if err := res.WriteJSON(&b); err != nil || !json.Valid(b.Bytes()) {
			t.Fatalf("invalid array output %s (%v)", b.Bytes(), err)
		}
	})
}

var _ = syn.DefaultLimit
