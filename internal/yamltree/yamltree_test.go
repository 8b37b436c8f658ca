package yamltree

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// TestParse checks the tree of each input: kinds, texts, positions and
// spans, written as (kind pos start-end "text" children…).
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty", "", "nil"},
		{"comments only", "# a\n# b\n", "nil"},
		{"plain scalar", "x\n", `(string 0 0-1 "x")`},
		{"block mapping", "a: 1\n", `(mapping 0 0-4 (string 0 0-1 "a"):(number 3 3-4 "1"))`},
		{"every scalar", "a: x\nb: [1, true, null, 'q']\n",
			`(mapping 0 0-28 (string 0 0-1 "a"):(string 3 3-4 "x") (string 5 5-6 "b"):(list 8 8-28 (number 9 9-10 "1") (boolean 12 12-16 "true") (null 18 18-22) (string 24 24-27 "q")))`},
		{"block list", "- a\n- b: c\n", `(list 0 0-10 (string 2 2-3 "a") (mapping 6 6-10 (string 6 6-7 "b"):(string 9 9-10 "c")))`},
		{"missing value", "a:\nb: 2\n", `(mapping 0 0-7 (string 0 0-1 "a"):(null 2 2-2) (string 3 3-4 "b"):(number 6 6-7 "2"))`},
		{"flow mapping", "{a: 1.5, b: .inf}\n", `(mapping 1 0-17 (string 1 1-2 "a"):(number 4 4-7 "1.5") (string 9 9-10 "b"):(number 12 12-16 "+Inf"))`},
		{"numbers", "[0x1F, -3, 1.5e3, .NaN, -.inf]", `(list 0 0-30 (number 1 1-5 "31") (number 7 7-9 "-3") (number 11 11-16 "1500") (number 18 18-22 "NaN") (number 24 24-29 "-Inf"))`},
		{"number-like strings", "[1e3, 1.0e999]", `(list 0 0-14 (string 1 1-4 "1e3") (string 6 6-13 "1.0e999"))`},
		{"duplicate key", "a: 1\na: 2\n", `error 5-5 invalid YAML: mapping key "a" already defined at [1:1]`},
		{"nested flow", "{a: {b: {c: 1}}}\n", `(mapping 1 0-16 (string 1 1-2 "a"):(mapping 5 4-15 (string 5 5-6 "b"):(mapping 9 8-14 (string 9 9-10 "c"):(number 12 12-13 "1"))))`},
		{"quoted with comment", "key: \"q\\\"x\" # c\n", `(mapping 0 0-11 (string 0 0-3 "key"):(string 5 5-11 "q\"x"))`},
		{"plain with comment", "key: a b  # c\n", `(mapping 0 0-8 (string 0 0-3 "key"):(string 5 5-8 "a b"))`},
		{"single quotes", "k: 'it''s'\n", `(mapping 0 0-10 (string 0 0-1 "k"):(string 3 3-10 "it's"))`},
		{"literal block", "a: |\n  x\n  y\nb: 1\n", `(mapping 0 0-17 (string 0 0-1 "a"):(string 3 3-8 "x\ny\n") (string 13 13-14 "b"):(number 16 16-17 "1"))`},
		{"multi-byte", "é: ü\n", `(mapping 0 0-6 (string 0 0-2 "é"):(string 4 4-6 "ü"))`},
		{"anchor", "a: &k v\n", `(mapping 0 0-7 (string 0 0-1 "a"):(string 6 6-7 "v"))`},
		{"non-string keys", "1: a\ntrue: b\n", `(mapping 0 0-12 (number 0 0-1 "1"):(string 3 3-4 "a") (boolean 5 5-9 "true"):(string 11 11-12 "b"))`},
		{"document marker", "---\na: 1\n", `(mapping 4 4-8 (string 4 4-5 "a"):(number 7 7-8 "1"))`},
		{"alias", "a: &k 1\nb: *k\n", "error 11-11 YAML aliases are not supported"},
		{"tag", "a: !!str x\n", "error 3-3 YAML tags are not supported"},
		{"merge key", "<<: {a: 1}\n", "error 0-0 YAML merge keys are not supported"},
		{"two documents", "--- 1\n--- 2\n", "error 10-10 more than one YAML document"},
		{"invalid", "a: [\n", "error 3-3 invalid YAML: sequence end token ']' not found"},
		{"too deep", "[[[[1]]]]", "error 4-4 nesting too deep"},
		{"deep enough", "[[[1]]]", `(list 0 0-7 (list 1 1-6 (list 2 2-5 (number 3 3-4 "1"))))`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := show(Parse(syntax.NewFile("t.yaml", tc.src), Options{MaxDepth: 3})); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
		})
	}
}

// TestChecks checks that Scalar sees every scalar, that Key sees each key
// with the entries before it and before its value is read, and that their
// errors end the parse as they are.
func TestChecks(t *testing.T) {
	var seen []string
	opts := Options{
		MaxDepth: 10,
		Scalar: func(n *Node) error {
			seen = append(seen, n.Kind.String()+" "+n.Text)
			if !n.Finite() {
				return fmt.Errorf("infinite at %d", n.Pos)
			}
			return nil
		},
		Key: func(m, k *Node) error {
			seen = append(seen, fmt.Sprintf("key %s after %d", k.Text, len(m.Keys)))
			if k.Kind != String {
				return &Error{Span: k.Span, Msg: "key " + k.Kind.String()}
			}
			return nil
		},
	}
	for _, tc := range []struct {
		name, src, want, seen string
	}{
		{"all seen", "a: [1, x]\nb:\n", `(mapping 0 0-12 (string 0 0-1 "a"):(list 3 3-9 (number 4 4-5 "1") (string 7 7-8 "x")) (string 10 10-11 "b"):(null 12 12-12))`,
			"a string a|key a after 0|a number 1|a string x|a string b|key b after 1|null "},
		{"key error before its value", "a: 1\n2: *x\n", "error 5-6 key a number", "a string a|key a after 0|a number 1|a number 2|key 2 after 1"},
		{"scalar error", "a: [1, .inf, *x]\n", "error: infinite at 7", "a string a|key a after 0|a number 1|a number +Inf"},
		{"nan", "a: .nan\n", "error: infinite at 3", "a string a|key a after 0|a number NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			if got := show(Parse(syntax.NewFile("t.yaml", tc.src), opts)); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
			if got := strings.Join(seen, "|"); got != tc.seen {
				t.Errorf("checks saw\n %s\nwant\n %s", got, tc.seen)
			}
		})
	}
}

// TestGet checks lookups in a mapping.
func TestGet(t *testing.T) {
	n, err := Parse(syntax.NewFile("t.yaml", "a: 1\nb: x\n"), Options{MaxDepth: 4})
	if err != nil {
		t.Fatal(err)
	}
	if v := n.Get("a"); v == nil || v.Text != "1" {
		t.Errorf("Get(a) = %+v", v)
	}
	if v := n.Get("b"); v == nil || v.Text != "x" {
		t.Errorf("Get(b) = %+v", v)
	}
	if v := n.Get("c"); v != nil {
		t.Errorf("Get(c) = %+v", v)
	}
}

// TestKindString checks the names messages use.
func TestKindString(t *testing.T) {
	var got []string
	for k := Null; k <= List+1; k++ {
		got = append(got, k.String())
	}
	if want := "null|a string|a number|a boolean|a mapping|a list|kind 6"; strings.Join(got, "|") != want {
		t.Errorf("got %s, want %s", strings.Join(got, "|"), want)
	}
}

// show writes Parse's result for comparison.
func show(n *Node, err error) string {
	var b strings.Builder
	var e *Error
	switch {
	case errors.As(err, &e):
		fmt.Fprintf(&b, "error %d-%d %s", e.Span.Start, e.Span.End, e.Msg)
	case err != nil:
		fmt.Fprintf(&b, "error: %v", err)
	case n == nil:
		b.WriteString("nil")
	default:
		dump(&b, n)
	}
	return b.String()
}

// dump writes a node as (kind pos start-end "text" children…), with ":"
// between a key and its value.
func dump(b *strings.Builder, n *Node) {
	fmt.Fprintf(b, "(%s %d %d-%d", strings.TrimPrefix(n.Kind.String(), "a "), n.Pos, n.Span.Start, n.Span.End)
	if n.Text != "" {
		fmt.Fprintf(b, " %q", n.Text)
	}
	for i, k := range n.Keys {
		b.WriteByte(' ')
		dump(b, k)
		b.WriteByte(':')
		dump(b, n.Vals[i])
	}
	for _, it := range n.Items {
		b.WriteByte(' ')
		dump(b, it)
	}
	b.WriteByte(')')
}
