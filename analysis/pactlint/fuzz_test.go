package pactlint_test

import (
	"context"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/analysistest"
	"github.com/ctxql/ctxql/analysis/pactlint"
	"github.com/ctxql/ctxql/syntax/pact"
)

// FuzzRules checks that the rules never panic, report spans inside the
// source, and that the safe fixes of a file without parse errors give a
// file without parse errors on which a second round changes nothing.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		"@t0 .seg .block:summary", "(d1, seg, cont[offset=0], block)", "(d1, seg, c@2)", "(d1, *@+)",
		".mt:depth(1) .cb", ".block(status='x' ttl=5)", ".summary { author=\"user\" ttl>=2 } [ cad=1 ]",
		".summary [ age<=2 ]", ".mt:nth(0)", "// pact: v1\n.mt:depth(0) .cb\n", ".summary { ttl>=2 cad=3 } @limit=5",
	} {
		f.Add(s)
	}
	reg, err := analysis.NewRegistry(pactlint.Analyzers()...)
	if err != nil {
		f.Fatal(err)
	}
	rules := reg.For(analysis.PACT)
	f.Fuzz(func(t *testing.T, src string) {
		pf := pact.ParseFile("f.pact", src, pact.V2)
		diags := analysis.Run(context.Background(), rules, pf.Src, pf, nil)
		for _, d := range diags {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("span %v outside %d bytes: %+v", d.Span, len(src), d)
			}
		}
		if len(pf.Diagnostics) > 0 {
			return
		}
		fixed, err := analysistest.ApplyFixes(src, diags, false)
		if err != nil {
			t.Fatalf("fixes do not apply: %v", err)
		}
		pf2 := pact.ParseFile("f.pact", fixed, pact.V2)
		if len(pf2.Diagnostics) > 0 {
			t.Fatalf("%q fixed to %q, which does not parse: %v", src, fixed, pf2.Diagnostics)
		}
		again, _ := analysistest.ApplyFixes(fixed, analysis.Run(context.Background(), rules, pf2.Src, pf2, nil), false)
		if again != fixed {
			t.Fatalf("second round of fixes changed %q to %q", fixed, again)
		}
	})
}
