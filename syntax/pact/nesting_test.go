package pact

import (
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// nested returns a v2 query with n parenthesised groups inside each other.
func nested(n int) string {
	return ".x " + strings.Repeat("(.a ", n) + ".b" + strings.Repeat(")", n)
}

// TestNestingLimit checks that parentheses nest up to maxNesting levels,
// that deeper nesting is one error rather than a stack overflow, and that
// the next query of a file still parses.
func TestNestingLimit(t *testing.T) {
	if _, diags := ParseQuery(nested(maxNesting), V2); syntax.HasErrors(diags) {
		t.Fatalf("%d levels: %v", maxNesting, diags)
	}
	for _, n := range []int{maxNesting + 1, 1_000_000} {
		q, diags := ParseQuery(nested(n), V2)
		if q == nil || !q.Bad || len(diags) != 1 || !strings.Contains(diags[0].Message, "nested deeper than") {
			t.Fatalf("%d levels: %v", n, diags)
		}
	}
	for _, src := range []string{strings.Repeat("(", 1_000_000), strings.Repeat("((d1,", 100_000), strings.Repeat(".a (", 100_000)} {
		if _, diags := ParseQuery(src, V2); !syntax.HasErrors(diags) {
			t.Fatalf("%.10q...: no error", src)
		}
	}
	f := ParseFile("deep.pact", nested(maxNesting+1)+"\n.cb[ttl<=1]\n", V2)
	if len(f.Queries) != 2 || f.Queries[1].Bad || !f.Queries[0].Bad {
		t.Fatalf("recovery after the deep line failed: %v", f.Diagnostics)
	}
}
