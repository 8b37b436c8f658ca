package pact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// chainData builds a single chain of depth nodes of nodeType "cb", each the
// only child of the previous one.
func chainData(t testing.TB, depth int) *Data {
	var sb strings.Builder
	sb.WriteString(`{"root":{"id":"root","children":[`)
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&sb, `{"id":"n%d","nodeType":"cb","children":[`, i)
	}
	sb.WriteString(strings.Repeat("]}", depth))
	sb.WriteString(`]}}`)
	d, err := LoadBytes([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDeepChainIsSetBased checks that ".cb .cb ... .cb" (50 steps) over a
// 1,000-level chain selects exactly the nodes with at least 49 cb
// ancestors. BenchmarkDeepChain measures its speed.
func TestDeepChainIsSetBased(t *testing.T) {
	d := chainData(t, 1000)
	src := strings.TrimSpace(strings.Repeat(".cb ", 50))
	res, err := Select(context.Background(), d, src, syn.V1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.IDs) != 951 || res.IDs[0] != "n49" || res.IDs[950] != "n999" {
		t.Fatalf("got %d ids, first %v", len(res.IDs), res.IDs[:min(3, len(res.IDs))])
	}
	res, err = Select(context.Background(), d, strings.TrimSpace(strings.Repeat(".cb > ", 50))+" .cb", syn.V1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.IDs) != 950 || res.IDs[0] != "n50" {
		t.Fatalf("child chain: got %d ids", len(res.IDs))
	}
}

func BenchmarkDeepChain(b *testing.B) {
	d := chainData(b, 1000)
	q, _ := syn.ParseQuery(strings.TrimSpace(strings.Repeat(".cb ", 50)), syn.V1)
	p, err := Compile(q, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.Eval(context.Background(), d, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEvalCancelled checks that evaluation stops with the context's error.
func TestEvalCancelled(t *testing.T) {
	d := chainData(t, 3000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Select(ctx, d, ".cb .cb", syn.V1, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestIDLookupIsIndexed checks #id uses the id index: the result is the
// single node even when a later node repeats the id.
func TestIDLookupIsIndexed(t *testing.T) {
	d, err := LoadBytes([]byte(`{"root":{"children":[{"id":"a","nodeType":"cb"},{"id":"b","nodeType":"cb"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := d.Snapshots[0].Lookup("b"); !n.Valid() || n.NodeType() != "cb" || n.ID() != "b" {
		t.Fatalf("Lookup(b) = %v", n)
	}
	res, err := Select(context.Background(), d, "#b", syn.V1, Options{})
	if err != nil || len(res.IDs) != 1 || res.IDs[0] != "b" {
		t.Fatalf("got %v, %v", res.IDs, err)
	}
}

// TestLoadErrors checks invalid data is rejected with a message.
func TestLoadErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `{}`, `{"root": 1}`, `{"root":{"children":5}}`, `{"root":{"id":3}}`,
		`{"snapshots":[]}`, `{"snapshots":[{"root":{}}]}`, `{"snapshots":[{"cycle":1,"root":{}},{"cycle":1,"root":{}}]}`} {
		if _, err := LoadBytes([]byte(in)); err == nil {
			t.Errorf("LoadBytes(%q): no error", in)
		}
	}
}

// TestContentHashComputed checks the computed hash of content when
// content_hash is absent.
func TestContentHashComputed(t *testing.T) {
	d, err := LoadBytes([]byte(`{"root":{"children":[{"id":"a","content":"abc"},{"id":"b","content_hash":"h","content":"abc"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Snapshots[0].Lookup("a").ContentHash(); got != "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("computed hash = %v", got)
	}
	if got := d.Snapshots[0].Lookup("b").ContentHash(); got != "h" {
		t.Errorf("given hash = %v", got)
	}
}

// FuzzEval evaluates arbitrary selector text over a fixed fixture: no panic,
// and the same output on a repeat run.
func FuzzEval(f *testing.F) {
	for _, s := range []string{"@t0 ^seq .mt:depth(1-2) .mc > .cb", "#cb:u2", ".cb[ttl<=1], ^ah *", "@t-2..@t0 .cb",
		"@history d1..d3 .cb {role in ['user']} [ttl>=1] @limit=2", "((d1,0),(d-1,0))", ".x ?? .cb:first", "@* :post", "{content~'h'}"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	d, err := LoadFile(testdataDir + "/history.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string, v1 bool) {
		dl := syn.V2
		if v1 {
			dl = syn.V1
		}
		opts := Options{IncludeContent: true}
		r1, e1 := Select(context.Background(), d, src, dl, opts)
		r2, e2 := Select(context.Background(), d, src, dl, opts)
		if a, b := render(src, r1, e1), render(src, r2, e2); a != b {
			t.Fatalf("non-deterministic:\n%s\n%s", a, b)
		}
		var qe *Error
		if errors.As(e1, &qe) && (qe.Span.Start < 0 || qe.Span.End > len(src) || qe.Span.Start > qe.Span.End) {
			t.Fatalf("error span %v outside source of length %d", qe.Span, len(src))
		}
		// Explain runs the same steps: same ids, a count per step with a
		// span inside the query, and an emptying step only for no match.
		q, diags := syn.ParseQuery(src, dl)
		if syntax.HasErrors(diags) || e1 != nil || r1.Range != nil {
			return
		}
		p, err := Compile(q, src)
		if err != nil {
			t.Fatalf("Select accepted what Compile rejects: %v", err)
		}
		ex, err := p.Explain(context.Background(), d)
		if err != nil {
			if q.Time != nil && q.Time.From != nil && q.Time.From.Kind == syn.TimeAll {
				return
			}
			t.Fatalf("Explain: %v", err)
		}
		if !eq(ex.IDs, r1.IDs) {
			t.Fatalf("Explain ids %v, Eval ids %v", ex.IDs, r1.IDs)
		}
		for _, st := range ex.Steps {
			if st.Span.Start < 0 || st.Span.End > len(src) || st.Span.Start > st.Span.End {
				t.Fatalf("step span %v outside the query", st.Span)
			}
		}
		if st, emptied := ex.EmptiedBy(); emptied && (len(r1.IDs) > 0 || st.Count != 0) {
			t.Fatalf("emptied by %+v with ids %v", st, r1.IDs)
		}
	})
}

// TestDerivedFacetsAreErrors pins that born_turn and age are rejected in v2
// with an error at the facet's key rather than silently comparing as null,
// while in v1 they stay ordinary (here missing) attributes.
func TestDerivedFacetsAreErrors(t *testing.T) {
	d := chainData(t, 3)
	for _, src := range []string{"@t0 .cb[age<2]", "@t-0 .cb { born_turn=3 }"} {
		_, err := Select(context.Background(), d, src, syn.V2, Options{})
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "derived facet") {
			t.Fatalf("%s: err = %v, want a derived facet error", src, err)
		}
		if key := src[pe.Span.Start:pe.Span.End]; key != "age" && key != "born_turn" {
			t.Fatalf("%s: error span covers %q", src, key)
		}
	}
	res, err := Select(context.Background(), d, ".cb[age<2]", syn.V1, Options{})
	if err != nil || len(res.IDs) != 0 {
		t.Fatalf("v1: ids %v err %v, want no match and no error", res.IDs, err)
	}
}

// TestCompoundTypesAndNth pins two decisions: a compound step naming several
// types (".log.entry") matches nothing, since a node has one nodeType; and
// :nth(N) counts among all siblings, whatever their type.
func TestCompoundTypesAndNth(t *testing.T) {
	d, err := LoadBytes([]byte(`{"root":{"id":"root","children":[
		{"id":"a","nodeType":"log","children":[{"id":"b","nodeType":"entry"},{"id":"c","nodeType":"log"}]},
		{"id":"d","nodeType":"entry"},{"id":"e","nodeType":"cb"},{"id":"f","nodeType":"cb"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		src  string
		want string
	}{
		{".log.entry", "[]"},
		{".entry.log", "[]"},
		{".log", `["a","c"]`},
		{".cb:nth(3)", `["e"]`},
		{".cb:nth(1)", "[]"},
		{".entry:nth(2)", `["d"]`},
	}
	for _, dl := range []syn.Dialect{syn.V1, syn.V2} {
		for _, c := range cases {
			res, err := Select(context.Background(), d, c.src, dl, Options{})
			if err != nil {
				t.Fatalf("%v %s: %v", dl, c.src, err)
			}
			out, err := res.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("%v %s = %s, want %s", dl, c.src, out, c.want)
			}
		}
	}
}

// TestChildPositionShortcut checks ".a > .a:nth(k)", ":first" and ":last"
// (which test only the child at that position) against a scan of every
// node, on a tree where "a" nodes nest in each other, so that the parents'
// children interleave in document order, and some have more than eight
// children.
func TestChildPositionShortcut(t *testing.T) {
	var b strings.Builder
	id := 0
	var gen func(depth int)
	gen = func(depth int) {
		id++
		fmt.Fprintf(&b, `{"id":"n%d","nodeType":"a","children":[`, id)
		if depth < 3 {
			for k := range 3 + (id*7)%9 {
				if k > 0 {
					b.WriteByte(',')
				}
				gen(depth + 1)
			}
		}
		b.WriteString("]}")
	}
	b.WriteString(`{"root":`)
	gen(0)
	b.WriteString(`}`)
	d, err := LoadString(b.String())
	if err != nil {
		t.Fatal(err)
	}
	s := d.Snapshots[0]
	for _, c := range []struct {
		sel string
		pos func(n Node) bool
	}{
		{".a > .a:first", func(n Node) bool { return s.pos[n.i] == 1 }},
		{".a > .a:last", func(n Node) bool { p, _ := n.Parent(); return int(s.pos[n.i]) == p.NumChildren() }},
		{".a > .a:nth(2)", func(n Node) bool { return s.pos[n.i] == 2 }},
		{".a > .a:nth(10)", func(n Node) bool { return s.pos[n.i] == 10 }},
		{".a > .a:nth(12)", func(n Node) bool { return s.pos[n.i] == 12 }},
	} {
		var want []string
		for i := range s.Len() {
			n := s.Node(i)
			if p, ok := n.Parent(); ok && p.NodeType() == "a" && c.pos(n) {
				want = append(want, n.ID())
			}
		}
		res, err := Select(context.Background(), d, c.sel, syn.V1, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.IDs, want) {
			t.Errorf("%s: got %v, want %v", c.sel, res.IDs, want)
		}
	}
}

// TestConcurrentEval checks that evaluations sharing one loaded Data (as
// the language server's and the MCP server's requests do) give the results
// of sequential ones: the lazily built indexes and scratch sets are safe to
// share.
func TestConcurrentEval(t *testing.T) {
	d, err := LoadFile(testdataDir + "/history.json")
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"#cb:u2", ".cb[ttl<=2]", "^seq .mt .cb:first", ".mc > .cb:last", ".cb[role='user']", "@* .cb", ".cb:nth(2), ^ah *"}
	want := make([]string, len(queries))
	for i, q := range queries {
		r, err := Select(context.Background(), d, q, syn.V1, Options{})
		want[i] = fmt.Sprint(r.IDs, err)
	}
	fresh, err := LoadFile(testdataDir + "/history.json")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan string, 8*len(queries))
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for k := range 50 {
				i := (g + k) % len(queries)
				r, err := Select(context.Background(), fresh, queries[i], syn.V1, Options{})
				if got := fmt.Sprint(r.IDs, err); got != want[i] {
					errs <- fmt.Sprintf("%s: %s, want %s", queries[i], got, want[i])
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestZeroNode checks that the zero Node, which Lookup returns for an
// unknown id, answers every question as a node without anything would.
func TestZeroNode(t *testing.T) {
	d, err := LoadFile(testdataDir + "/history.json")
	if err != nil {
		t.Fatal(err)
	}
	n := d.Snapshots[0].Lookup("no such id")
	if n.Valid() || n.ID() != "" || n.NodeType() != "" || n.NumChildren() != 0 || n.Depth() != 0 || n.ContentHash() != nil || len(n.Attributes()) != 0 {
		t.Errorf("zero node: %v %q %q %d %d", n.Valid(), n.ID(), n.NodeType(), n.NumChildren(), n.Depth())
	}
	if _, ok := n.Parent(); ok {
		t.Error("the zero node has a parent")
	}
	if _, ok := n.Attr("id"); ok {
		t.Error("the zero node has an id attribute")
	}
	for range n.Children() {
		t.Error("the zero node has a child")
	}
}
