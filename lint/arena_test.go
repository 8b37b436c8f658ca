package lint

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/syntax/pact"
)

// TestArenaReuseAcrossFiles checks files one after the other with one
// linter, whose PACT trees reuse the memory of the file before, against a
// fresh linter per file: the findings, fixes included, are the same.
func TestArenaReuseAcrossFiles(t *testing.T) {
	srcs := []string{
		".mt .cb:summary\n.cb[ttl<=1] // short\n@t0 .block {key in [\"a\",\"b\"]}\n",
		"// pact: v1\n.mt:depth(1-2) .cb[ttl<1], .cb:summary\n",
		".mt:nth(0)\n.summary @foo=bar\n(d1, c@42)\n",
		"@t0 ^seq .mt .mc > .cb[role='assistant'] ?? @t0 .seg\n.cb[\n",
		".cb:summary .cb:summary .cb:summary\n",
	}
	shared, err := New(pact.DialectUnset)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	findings := 0
	for round := 0; round < 3; round++ {
		for i, src := range srcs {
			name := fmt.Sprintf("f%d.pact", i)
			fresh, err := New(pact.DialectUnset)
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := fresh.Check(ctx, name, src)
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := shared.Check(ctx, name, src)
			if err != nil {
				t.Fatal(err)
			}
			findings += len(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d, %s: findings differ (-fresh +reused):\n%s", round, name, diff)
			}
		}
	}
	if findings < 3*len(srcs) {
		t.Errorf("%d findings over %d checks: the sources should each have some", findings, 3*len(srcs))
	}
}
