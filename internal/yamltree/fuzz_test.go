package yamltree

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// FuzzParse checks that no input makes Parse panic, that every error is an
// *Error inside the input, and that an accepted document is a well-formed
// tree inside the input, no deeper than MaxDepth, read the same way twice,
// whose every scalar and key the checks were shown.
func FuzzParse(f *testing.F) {
	for _, g := range []string{"../../testdata/config/*.txtar", "../../testdata/examples/*.ctxqltest.yaml"} {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(string(data))
			}
		}
	}
	for _, s := range []string{"a: [1, .inf, x]\n", "a: &a [*a]\n", "? [a]\n: b\n", "a: |\n  x\n", "{a: {b: [c, 'd''e', \"f\\\"\"]}}", "--- 1\n--- 2\n", "a:\n- \n-\n"} {
		f.Add(s)
	}
	const maxDepth = 8
	f.Fuzz(func(t *testing.T, src string) {
		file := syntax.NewFile("f.yaml", src)
		scalars, keys := 0, 0
		n, err := Parse(file, Options{
			MaxDepth: maxDepth,
			Scalar:   func(*Node) error { scalars++; return nil },
			Key:      func(*Node, *Node) error { keys++; return nil },
		})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.Span.Start < 0 || e.Span.Start > e.Span.End || e.Span.End > len(src) || e.Msg == "" {
				t.Fatalf("error %+v out of the input (%d bytes)", e, len(src))
			}
			return
		}
		if n == nil {
			return
		}
		var wantScalars, wantKeys int
		var check func(n *Node, depth int)
		check = func(n *Node, depth int) {
			if depth > maxDepth {
				t.Fatalf("a node at depth %d, beyond %d", depth, maxDepth)
			}
			if n.Pos < 0 || n.Pos > len(src) || n.Span.Start < 0 || n.Span.Start > n.Span.End || n.Span.End > len(src) {
				t.Fatalf("node %+v out of the input (%d bytes)", n, len(src))
			}
			if len(n.Keys) != len(n.Vals) || (n.Kind != Mapping && len(n.Keys) > 0) || (n.Kind != List && len(n.Items) > 0) {
				t.Fatalf("node of kind %s with %d keys, %d values, %d items", n.Kind, len(n.Keys), len(n.Vals), len(n.Items))
			}
			switch n.Kind {
			case Null:
				wantScalars++
				if n.Text != "" {
					t.Fatalf("null with text %q", n.Text)
				}
			case String:
				wantScalars++
			case Number:
				wantScalars++
				if _, err := strconv.ParseFloat(n.Text, 64); err != nil && !strings.Contains(err.Error(), "range") {
					t.Fatalf("number %q: %v", n.Text, err)
				}
			case Bool:
				wantScalars++
				if n.Text != "true" && n.Text != "false" {
					t.Fatalf("boolean %q", n.Text)
				}
			case Mapping, List:
			default:
				t.Fatalf("kind %d", n.Kind)
			}
			wantKeys += len(n.Keys)
			for i, k := range n.Keys {
				check(k, depth+1)
				check(n.Vals[i], depth+1)
			}
			for _, it := range n.Items {
				check(it, depth+1)
			}
		}
		check(n, 0)
		if scalars != wantScalars || keys != wantKeys {
			t.Fatalf("checks saw %d scalars and %d keys of %d and %d", scalars, keys, wantScalars, wantKeys)
		}
		var first, second strings.Builder
		dump(&first, n)
		again, err := Parse(file, Options{MaxDepth: maxDepth})
		if err != nil {
			t.Fatalf("second parse: %v", err)
		}
		dump(&second, again)
		if first.String() != second.String() {
			t.Fatalf("two parses differ:\n%s\n%s", first.String(), second.String())
		}
	})
}
