package pact

import (
	"context"
	"fmt"
	"strings"
	"testing"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// turnsData builds ^seq with n turns .mt, each holding one .mc with two
// .cb children (roles user and tool), plus one .cb in ^ah.
func turnsData(t testing.TB, n int) *Data {
	var sb strings.Builder
	sb.WriteString(`{"root":{"id":"root","children":[{"id":"seq","nodeType":"^seq","children":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":"mt%d","nodeType":"mt","children":[{"id":"mc%d","nodeType":"mc","children":[`+
			`{"id":"u%d","nodeType":"cb","role":"user","ttl":%d},{"id":"x%d","nodeType":"cb","role":"tool"}]}]}`, i, i, i, i%3, i)
	}
	sb.WriteString(`]},{"id":"ah","nodeType":"^ah","children":[{"id":"h","nodeType":"cb","role":"user"}]}]}}`)
	d, err := LoadString(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func explain(t *testing.T, d *Data, src string, dialect syn.Dialect) *Explanation {
	t.Helper()
	q, diags := syn.ParseQuery(src, dialect)
	if len(diags) > 0 {
		t.Fatalf("%s: %v", src, diags)
	}
	p, err := Compile(q, src)
	if err != nil {
		t.Fatal(err)
	}
	e, err := p.Explain(context.Background(), d)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	res, err := p.Eval(context.Background(), d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !eq(res.IDs, e.IDs) {
		t.Fatalf("%s: Explain ids %v, Eval ids %v", src, e.IDs, res.IDs)
	}
	return e
}

func renderSteps(e *Explanation) string {
	var parts []string
	for _, s := range e.Steps {
		parts = append(parts, fmt.Sprintf("%s=%d", s.Text, s.Count))
	}
	return strings.Join(parts, " | ")
}

// TestExplainCountsEachStep pins the candidate count after each step and
// filter, and the step that emptied a query matching nothing.
func TestExplainCountsEachStep(t *testing.T) {
	d := turnsData(t, 40)
	cases := []struct {
		src, dialect, want, emptied string
	}{
		{"^seq .mt .mc > .cb[role='assistant']", "v1", "^seq=1 | .mt=40 | .mc=40 | > .cb=80 | [role='assistant']=0", "[role='assistant']"},
		{"^seq .mt .mc > .cb[role='user']", "v1", "^seq=1 | .mt=40 | .mc=40 | > .cb=80 | [role='user']=40", ""},
		{"^seq .mt:depth(1-3) .cb[ttl>=1]:first", "v1", "^seq=1 | .mt=40 | :depth(1-3)=3 | .cb=6 | [ttl>=1]=2 | :first=2", ""},
		{"@t0 .mt > .cb", "v1", ".mt=40 | > .cb=0", "> .cb"},
		{".mc > .cb {role=\"user\"} [ttl>=2] @limit=5", "v2", ".mc=40 | > .cb=80 | role=\"user\"=40 | ttl>=2=13 | @limit=5=5", ""},
		{".nope ?? .mc", "v2", ".nope=0 | .mc=40", ""},
		{".nope ?? .mc .zz", "v2", ".nope=0 | .mc=40 | .zz=0", ".zz"},
		{"d1..d3 .cb", "v2", "d1..d3=3 | .cb=6", ""},
		{"{role=\"tool\"}", "v2", "{role=\"tool\"}=40", ""},
	}
	for _, c := range cases {
		e := explain(t, d, c.src, map[string]syn.Dialect{"v1": syn.V1, "v2": syn.V2}[c.dialect])
		if got := renderSteps(e); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
		st, ok := e.EmptiedBy()
		switch {
		case c.emptied == "" && ok:
			t.Errorf("%s: emptied by %q, want a match", c.src, st.Text)
		case c.emptied != "" && (!ok || st.Text != c.emptied):
			t.Errorf("%s: emptied by %q (%v), want %q", c.src, st.Text, ok, c.emptied)
		}
		for _, s := range e.Steps {
			if c.src[s.Span.Start:s.Span.End] != s.Text {
				t.Errorf("%s: step span %v does not cover %q", c.src, s.Span, s.Text)
			}
		}
	}
}

// TestExplainNeedsOneSnapshot pins that ranges and @* are refused.
func TestExplainNeedsOneSnapshot(t *testing.T) {
	d := turnsData(t, 2)
	for _, src := range []string{"@* .cb", "@t0..@t-1 .cb"} {
		q, _ := syn.ParseQuery(src, syn.V2)
		p, err := Compile(q, src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Explain(context.Background(), d); err == nil || !strings.Contains(err.Error(), "single snapshot") {
			t.Errorf("%s: %v", src, err)
		}
	}
}
