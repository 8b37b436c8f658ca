package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/lang"
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

// TestDatalogArenaReuseAcrossFiles checks Datalog files one after the
// other with one linter, whose programs reuse the memory of the file
// before, against the parse without an arena (lang.ParseFile): the
// findings, fixes included, are the same.
func TestDatalogArenaReuseAcrossFiles(t *testing.T) {
	var big strings.Builder
	big.WriteString("relation edge(i32, i32);\n")
	for i := range 600 {
		fmt.Fprintf(&big, "p%d(x, z) <-- edge(x, y), edge(y, z), if x != z;\n", i)
	}
	srcs := []string{
		big.String(),
		"relation edge(Proc, Proc);\npath(x, y) <-- egde(x, y); // typo\nq(x) <-- edge(x, y);\n",
		"relation node(Proc);\nwin(x) <-- node(x), !win(x);\nlone(x, _) <-- node(x);\n",
		"relation edge(Proc, Proc);\npath(x, z) <-- edge(x, y)\n",
		"relation proc(Proc);\nrelation name(Name);\nboth(x) <-- proc(x), name(x), if x == 1;\n",
	}
	shared, err := New(pact.DialectUnset)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	findings := 0
	for round := range 3 {
		for i, src := range srcs {
			name := fmt.Sprintf("f%d.dl", i)
			p, err := lang.ParseFile(name, src, shared.Settings())
			if err != nil {
				t.Fatal(err)
			}
			want := shared.AnalyzeParsed(ctx, p)
			_, got, err := shared.Check(ctx, name, src)
			if err != nil {
				t.Fatal(err)
			}
			findings += len(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d, %s: findings differ (-without arena +reused):\n%s", round, name, diff)
			}
		}
	}
	if findings < 3*(len(srcs)-1) {
		t.Errorf("%d findings over %d checks: the sources but the first should each have some", findings, 3*len(srcs))
	}
}
