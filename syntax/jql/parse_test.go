package jql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// dump renders parsed queries and diagnostics with spans as source text.
func dump(f *File) string {
	var b strings.Builder
	sl := func(s syntax.Span) string { return fmt.Sprintf("%q@%s", f.Text[s.Start:s.End], s) }
	for i, q := range f.Queries {
		fmt.Fprintf(&b, "query %d form=%s span=%s from=%q order=%s limit=%d startAfter=%q\n", i, q.Form, q.Sp, q.Domain(), q.Order, q.Limit, q.StartAfter)
		for _, s := range q.Select {
			fmt.Fprintf(&b, "  select star=%v exclude=%v", s.Star, s.Exclude)
			if s.Exclude {
				fmt.Fprintf(&b, " minus=%s", sl(s.ExcludeSpan))
			}
			for _, sg := range s.Path.Segments {
				fmt.Fprintf(&b, " seg=%s", sl(sg.Sp))
				if sg.Array {
					fmt.Fprintf(&b, " arr=%s", sl(sg.ArraySpan))
				}
			}
			b.WriteString("\n")
		}
		for _, c := range q.Where {
			fmt.Fprintf(&b, "  where op=%s shorthand=%v operand=%s", c.Op, c.Shorthand, sl(c.Operand.Sp))
			for _, sg := range c.Path.Segments {
				fmt.Fprintf(&b, " seg=%s", sl(sg.Sp))
			}
			b.WriteString("\n")
		}
	}
	file := syntax.NewFile(f.Name, f.Text)
	s := NewSchema()
	for _, q := range f.Queries {
		for _, d := range s.Check(q) {
			fmt.Fprintf(&b, "check %s %s: %s\n", d.Severity, file.Position(d.Span.Start), d.Message)
		}
	}
	for _, d := range f.Diagnostics {
		fmt.Fprintf(&b, "diag %s %s: %s\n", d.Severity, file.Position(d.Span.Start), d.Message)
	}
	return b.String()
}

// TestParseGolden parses each archive's "query" section (named by its
// "name" section, default q.jql) and compares the dump.
func TestParseGolden(t *testing.T) {
	golden.Run(t, "../../testdata/jql/parse/*.txtar", func(t *testing.T, c *golden.Case) {
		name := strings.TrimSpace(c.InputOr("name", "q.jql"))
		f := ParseFile(name, c.Input("query"))
		checkSpans(t, f)
		c.Want("out", dump(f))
	})
}

func checkSpans(t testing.TB, f *File) {
	n := len(f.Text)
	var walk func(v *Value)
	walk = func(v *Value) {
		if v == nil {
			return
		}
		if !v.Sp.Valid(n) {
			t.Fatalf("value span %s outside source of %d bytes", v.Sp, n)
		}
		if v.Kind == KindString {
			if s := v.SubSpan(0, len(v.Str)); !s.Valid(n) {
				t.Fatalf("string span %s outside source", s)
			}
		}
		for _, m := range v.Members {
			walk(m.Key)
			walk(m.Value)
		}
		for _, e := range v.Elems {
			walk(e)
		}
	}
	for _, q := range f.Queries {
		if !q.Sp.Valid(n) {
			t.Fatalf("query span %s outside source", q.Sp)
		}
		walk(q.Root)
		for _, s := range q.Select {
			for _, sg := range s.Path.Segments {
				if !sg.Sp.Valid(n) || !sg.ArraySpan.Valid(n) {
					t.Fatalf("segment span %s outside source", sg.Sp)
				}
			}
		}
		for _, c := range q.Where {
			for _, sg := range c.Path.Segments {
				if !sg.Sp.Valid(n) {
					t.Fatalf("segment span %s outside source", sg.Sp)
				}
			}
		}
	}
	for _, d := range f.Diagnostics {
		if !d.Span.Valid(n) {
			t.Fatalf("diagnostic span %s outside source: %s", d.Span, d)
		}
	}
}

// TestEscapedSegmentSpans checks that segment spans map back through escapes.
func TestEscapedSegmentSpans(t *testing.T) {
	src := `{"from": "activities", "select": ["artifacts.\u0063hangeSet.git\"Patch", "caf\u00e9.x"]}`
	q, _ := ParseQuery(src)
	if len(q.Select) != 2 {
		t.Fatalf("got %d select items", len(q.Select))
	}
	segs := q.Select[0].Path.Segments
	if got := src[segs[1].Sp.Start:segs[1].Sp.End]; got != `\u0063hangeSet` {
		t.Errorf("segment 1 span covers %q", got)
	}
	if got := src[segs[2].Sp.Start:segs[2].Sp.End]; got != `git\"Patch` {
		t.Errorf("segment 2 span covers %q", got)
	}
	if got := src[q.Select[1].Path.Segments[0].Sp.Start:q.Select[1].Path.Segments[0].Sp.End]; got != `caf\u00e9` {
		t.Errorf("segment span covers %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"from": "activities", "select": ["id", "-artifacts.data", "*"], "where": {"artifacts.exitCode": {"neq": 0}}}`,
		`{from: 'sessions', select: ['id',], // c
		 where: {state: {in: ['completed', "failed"]}}, order: 'asc', limit: 5, startAfter: 's-1'}`,
		"from: activities\nselect: [id, plan.steps[].title]\nwhere:\n  type: planGenerated\n---\nfrom: sessions\n",
		`{from: x y} {from: "activities"}`,
		`{"a": "\u00e9\"\ud83d\ude00", /* x */ b: [1, 2e3, -1.5, true, null]}`,
		`[`, `{`, `'`, "from: [", "{from: 'activities', where: {'a.b[]': {contains: 'X'}}}",
		"from: activities\nwhere: {a: {b: {c: [[{d: 1}]]}}}\nselect: [é, 'ü.x', \"日本\", id, plan[], -x]\n",
		"from: activities\nselect:\n- - - - x\n  - y\nwhere:\n    ? type\n    : agentMessaged\n",
		"from: sessions # c\nselect: [ 'a', \"b\\u00e9\", c ]   # ü\nwhere: {\"x.y\": {in: [1, 'z', null]}, w: {gt: 1}}\n",
	} {
		f.Add("q.jql", s)
		f.Add("q.jql.yaml", s)
	}
	f.Fuzz(func(t *testing.T, name, src string) {
		pf := ParseFile(name, src)
		checkSpans(t, pf)
		s := NewSchema()
		for _, q := range pf.Queries {
			for _, d := range s.Check(q) {
				if !d.Span.Valid(len(src)) {
					t.Fatalf("check span %s outside source", d.Span)
				}
			}
		}
	})
}

// TestPathAt finds the segment under an offset, as hover does.
func TestPathAt(t *testing.T) {
	src := `{from: 'activities', select: ['artifacts.changeSet.gitPatch'], where: {'plan.steps[].title': {exists: true}}}`
	q, ds := ParseQuery(src)
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	off := strings.Index(src, "gitPatch") + 2
	p, i := q.PathAt(off)
	if p == nil || i != 2 || src[p.Segments[i].Sp.Start:p.Segments[i].Sp.End] != "gitPatch" {
		t.Fatalf("PathAt(%d) = %v, %d", off, p, i)
	}
	r := NewSchema().Domain("activities").Resolve(*p)
	if r.Bad != -1 || r.Field().Type.Name != "GitPatch" || !r.ThroughArray {
		t.Fatalf("resolve: %+v", r)
	}
	p, i = q.PathAt(strings.Index(src, "title"))
	if p == nil || p.Segments[i].Name != "title" || !p.Segments[1].Array {
		t.Fatalf("where path: %v %d", p, i)
	}
	if p, _ := q.PathAt(1); p != nil {
		t.Fatalf("PathAt(1) = %v", p)
	}
}
