package lang

import (
	"context"
	"testing"
)

// TestStepEnd gives each explained step with a position its end: a PACT
// step's text is its source, a JQL condition ends after its operand.
func TestStepEnd(t *testing.T) {
	paths := sample(t)
	ctx := context.Background()
	pq := Query{Name: "q.pact", Src: ".mt .cb:summary", Dialect: V1}
	e, err := ByID(PACT).Explain(ctx, load(t, PACT, paths[PACT]), pq, Explain{})
	if err != nil || e.Invalid() || len(e.Steps) == 0 {
		t.Fatalf("PACT explain: %v %+v", err, e)
	}
	for _, st := range e.Steps {
		if st.At < 0 || st.End > len(pq.Src) || pq.Src[st.At:st.End] != st.Text {
			t.Errorf("PACT step %+v: source %q", st, pq.Src[max(st.At, 0):max(st.End, 0)])
		}
	}
	jq := Query{Name: "q.jql", Src: `{"from": "sessions", "where": {"state": {"neq": "paused"}}, "startAfter": "s1"}`}
	e, err = ByID(JQL).Explain(ctx, load(t, JQL, paths[JQL]), jq, Explain{})
	if err != nil || e.Invalid() || len(e.Steps) != 3 {
		t.Fatalf("JQL explain: %v %+v", err, e)
	}
	for i, want := range []string{`"sessions"`, `"state": {"neq": "paused"`, `"s1"`} {
		if st := e.Steps[i]; st.At < 0 || jq.Src[st.At:st.End] != want {
			t.Errorf("JQL step %d %+v covers %q, want %q", i, st, jq.Src[max(st.At, 0):max(st.End, 0)], want)
		}
	}
}
