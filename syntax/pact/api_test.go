package pact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// TestInspectVisitsEveryNodeKind parses queries that use every node type and
// checks that Inspect reaches each, with every span inside the source.
func TestInspectVisitsEveryNodeKind(t *testing.T) {
	src := "// pact: v2\n" +
		"@t0..@t-3 ^seq d1..d3 .cont:Message#k+tag[a=1]:first:nth(2) > (d1, seg, c@3, *@+, cont[offset=0], end) .block(x=1 y=2) { v in [\"a\",\"b\"], ttl=1 } [sticky] @limit=5\n" +
		"@history ((d1,0),(d2,0,1)) ?? ( .seg ) .mt:depth(1-3) // c\n" +
		"{ a=1 }\n"
	f := ParseFile("all.pact", src, V2)
	if len(f.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", f.Diagnostics)
	}
	seen := map[string]bool{}
	Inspect(f, func(n Node) bool {
		if n == nil {
			return false
		}
		if !n.Span().Valid(len(src)) {
			t.Errorf("%T span %s outside source", n, n.Span())
		}
		seen[fmt.Sprintf("%T", n)] = true
		return true
	})
	for _, want := range []Node{&File{}, &Pragma{}, &Comment{}, &Query{}, &Time{}, &TimeAtom{}, &Fallback{},
		&Chain{}, &Paren{}, &Position{}, &CoordSet{}, &PropSearch{}, &Hop{}, &DepthRef{}, &Step{}, &Compound{},
		&Root{}, &TypeSel{}, &Hash{}, &Tag{}, &Block{}, &Attr{}, &Value{}, &Pseudo{}, &PseudoArg{}, &Control{}, &Legacy{}} {
		if name := fmt.Sprintf("%T", want); !seen[name] {
			t.Errorf("Inspect never visited a %s", name)
		}
	}
	kinds := map[LegacyKind]bool{}
	for _, q := range f.Queries {
		for _, l := range q.Legacy {
			kinds[l.Kind] = true
			if l.Node == nil || !l.Sp.Valid(len(src)) {
				t.Errorf("legacy %s: bad node or span", l.Kind)
			}
		}
	}
	for k := LegacyBaseTypeSugar; k <= LegacyBehaviorInProps; k++ {
		if !kinds[k] {
			t.Errorf("no %s legacy marker", k)
		}
	}
	// Union is v1 only.
	q, _ := ParseQuery(".a, .b", V1)
	if _, ok := q.Expr.(*Union); !ok {
		t.Errorf("v1 comma group: got %T, want *Union", q.Expr)
	}
}

// TestInspectStops checks that returning false skips a node's children.
func TestInspectStops(t *testing.T) {
	q, _ := ParseQuery("^seq .mt > .cb[role='x']", V1)
	n := 0
	Inspect(q, func(node Node) bool {
		if node == nil {
			return false
		}
		n++
		_, isChain := node.(*Chain)
		return !isChain
	})
	if n != 2 { // Query, Chain
		t.Fatalf("visited %d nodes, want 2", n)
	}
}

// TestTokenKinds checks that a file exercising every construct yields every
// token kind, and that tokens are ordered and non-overlapping.
func TestTokenKinds(t *testing.T) {
	src := "// pact: v2\n" +
		"@t0 ^seq d1 .block#k+tag[a=1]:first > (d1, end) { s=\"x\" } @limit=5 // c\n" +
		"{ v in [1] } \x01\n"
	f := ParseFile("tok.pact", src, V2)
	got := map[TokenKind]bool{}
	prev := 0
	for _, tk := range f.Tokens {
		got[tk.Kind] = true
		if tk.Sp.Start < prev || tk.Sp.End <= tk.Sp.Start {
			t.Fatalf("token %s %s out of order", tk.Kind, tk.Sp)
		}
		prev = tk.Sp.End
	}
	for k := TokenInvalid; k <= TokenKeyword; k++ {
		if !got[k] {
			t.Errorf("no %s token", k)
		}
	}
}

// TestParseQueryDefaults checks DialectUnset (V2) and that a query is always
// returned, partial on error, with spans naming what was expected.
func TestParseQueryDefaults(t *testing.T) {
	q, diags := ParseQuery("(d1, 0) ?? .seg", DialectUnset)
	if q.Dialect != V2 || len(diags) > 0 {
		t.Fatalf("DialectUnset: dialect %s, diags %v", q.Dialect, diags)
	}
	for _, src := range []string{"", "   ", "@", "((((", "]]]", "\xff"} {
		for _, d := range []Dialect{V1, V2} {
			q, diags := ParseQuery(src, d)
			if q == nil || !q.Bad || !syntax.HasErrors(diags) {
				t.Errorf("%s %q: want a bad query with errors, got %v", d, src, diags)
			}
			for _, dg := range diags {
				if !strings.HasPrefix(dg.Message, "expected") && !strings.Contains(dg.Message, "expected") {
					t.Errorf("%s %q: message %q does not say what was expected", d, src, dg.Message)
				}
			}
		}
	}
	q, diags = ParseQuery("@t0 ^seq .mt:depth()", V1)
	if len(diags) != 1 || diags[0].Message != `expected a depth list inside :depth(), found ")"` || diags[0].Span != syntax.Sp(19, 20) {
		t.Fatalf("empty depth: %v", diags)
	}
	if q.Expr == nil || q.Time == nil {
		t.Fatalf("partial AST missing parts:\n%s", Dump(q))
	}
}
