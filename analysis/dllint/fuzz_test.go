package dllint_test

import (
	"context"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/analysistest"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// FuzzRules checks that the rules never panic (analysis.Run would turn a
// panic into an "internal error" diagnostic), report spans inside the
// source, and that the safe fixes of a file without parse errors give a
// file without parse errors on which a second round changes nothing.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		"relation edge(Proc, Proc);\npath(x, y) <-- edge(x, y);\npath(x, z) <-- path(x, y), edge(y, z);\n",
		"source(x) <-- edge(x, y);", "relation edge(Proc, Proc);\nsource(x) <-- edge(x, y), label(_y, z);\n",
		"win(x) <-- node(x), !win(x).", "q(x, _) <-- p(x, y), if y != \"a\", if 1 > 2;",
		"relation a(Int);\nb(x) <-- a(x), if x == 1, if x == \"1\", if x == 2;\n",
		"r(x) <-- r(x), s(x", "p(\"a\").\nq(x) <-- p(x), !p(x).\nrelation z(Name);\n",
		"relation p(Proc);\nrelation p(Name);\nq(x) <-- p(x, y), p(y);\n", "x(a) :- y(a).",
	} {
		f.Add(s)
	}
	rules := registry(f).For(analysis.Datalog)
	f.Fuzz(func(t *testing.T, src string) {
		prog := datalog.ParseProgram("f.dl", src)
		diags := analysis.Run(context.Background(), rules, prog.File, prog, nil)
		for _, d := range diags {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("span %v outside %d bytes: %+v", d.Span, len(src), d)
			}
			if len(d.Message) > 9 && d.Message[:9] == "internal " {
				t.Fatalf("rule failed: %s", d.Message)
			}
		}
		if len(prog.Diagnostics) > 0 {
			return
		}
		fixed, err := analysistest.ApplyFixes(src, diags, false)
		if err != nil {
			t.Fatalf("fixes do not apply: %v", err)
		}
		prog2 := datalog.ParseProgram("f.dl", fixed)
		if len(prog2.Diagnostics) > 0 {
			t.Fatalf("%q fixed to %q, which does not parse: %v", src, fixed, prog2.Diagnostics)
		}
		again, _ := analysistest.ApplyFixes(fixed, analysis.Run(context.Background(), rules, prog2.File, prog2, nil), false)
		if again != fixed {
			t.Fatalf("second round of fixes changed %q to %q", fixed, again)
		}
	})
}
