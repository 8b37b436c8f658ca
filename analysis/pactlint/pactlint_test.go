package pactlint_test

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/analysistest"
	"github.com/ctxql/ctxql/analysis/pactlint"
	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// lint runs every rule of the package on one file, as the driver does: PACT
// rules on .pact files, the documentation rule on .md files.
func lint(t *testing.T, name, src string) (*syntax.File, []syntax.Diagnostic, []syntax.Diagnostic) {
	t.Helper()
	reg, err := analysis.NewRegistry(pactlint.Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	if path.Ext(name) == ".md" {
		f := syntax.NewFile(name, src)
		return f, analysis.Run(context.Background(), reg.For(analysis.Markdown), f, f, nil), nil
	}
	pf := pact.ParseFile(name, src, pact.V2)
	return pf.Src, analysis.Run(context.Background(), reg.For(analysis.PACT), pf.Src, pf, nil), pf.Diagnostics
}

// TestRules runs each archive under testdata/pactlint: every .pact or .md
// section is linted with every rule; `// want "re"` comments must match the
// diagnostics exactly; a "fixed:NAME" section is the golden result of the
// safe fixes, which must parse cleanly and be a fixed point of the rules.
func TestRules(t *testing.T) {
	golden.Run(t, "../../testdata/pactlint/*.txtar", func(t *testing.T, c *golden.Case) {
		for _, fl := range c.Archive.Files {
			name := fl.Name
			if strings.Contains(name, "fixed:") {
				continue
			}
			src := c.Input(name)
			f, diags, parseErrs := lint(t, name, src)
			if len(parseErrs) > 0 {
				t.Errorf("%s: parse errors: %v", name, parseErrs)
			}
			exps, err := analysistest.ParseExpectations(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range analysistest.Match(f, diags, exps) {
				t.Errorf("%s:%s", name, p)
			}
			for _, d := range diags {
				if d.Code == "" || !strings.HasPrefix(d.Code, "PACT") && !strings.HasPrefix(d.Code, "DOC") {
					t.Errorf("%s: diagnostic without a rule code: %+v", name, d)
				}
				if !d.Span.Valid(f.Len()) {
					t.Errorf("%s: span %v outside the file", name, d.Span)
				}
			}
			if !c.Has("fixed:" + name) {
				continue
			}
			fixed, err := analysistest.ApplyFixes(src, diags, false)
			if err != nil {
				t.Fatalf("%s: applying fixes: %v", name, err)
			}
			c.Want("fixed:"+name, fixed)
			if c.Has("unsafe-fixed:" + name) {
				all, err := analysistest.ApplyFixes(src, diags, true)
				if err != nil {
					t.Fatalf("%s: applying unsafe fixes: %v", name, err)
				}
				c.Want("unsafe-fixed:"+name, all)
			}
			_, again, parseErrs := lint(t, name, fixed)
			if len(parseErrs) > 0 {
				t.Errorf("%s: fixed text does not parse: %v", name, parseErrs)
			}
			if twice, _ := analysistest.ApplyFixes(fixed, again, false); twice != fixed {
				t.Errorf("%s: fixes are not idempotent:\n%s\nthen\n%s", name, fixed, twice)
			}
		}
	})
}

// TestRegistry checks that every rule has a unique code and name and the
// documentation the registry requires, and that each documented bad example
// triggers its rule while the good example does not.
func TestRegistry(t *testing.T) {
	reg, err := analysis.NewRegistry(pactlint.Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range reg.All() {
		name := "doc.pact"
		if a.Language == analysis.Markdown {
			name = "doc.md"
		}
		count := func(src string) int {
			_, ds, _ := lint(t, name, src+"\n")
			n := 0
			for _, d := range ds {
				if d.Code == a.Code {
					n++
				}
			}
			return n
		}
		if count(a.Doc.Bad) == 0 {
			t.Errorf("%s: the bad example %q does not trigger the rule", a.Code, a.Doc.Bad)
		}
		if count(a.Doc.Good) != 0 {
			t.Errorf("%s: the good example %q triggers the rule", a.Code, a.Doc.Good)
		}
	}
}

// TestFixesPreserveMeaning evaluates every query of every fix golden before
// and after its fixes on the bundled snapshot fixtures and expects the same
// result (or the same failure to evaluate): the safe fixes keep the meaning.
func TestFixesPreserveMeaning(t *testing.T) {
	var data []*evpact.Data
	for _, p := range []string{"spec-v2-fixture.json", "history.json", "spec-v1-fixture.json"} {
		d, err := evpact.LoadFile("../../testdata/pact/" + p)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, d)
	}
	compared, nonEmpty := 0, 0
	golden.Run(t, "../../testdata/pactlint/*.txtar", func(t *testing.T, c *golden.Case) {
		for _, fl := range c.Archive.Files {
			if !strings.HasPrefix(fl.Name, "fixed:") || !strings.HasSuffix(fl.Name, ".pact") {
				continue
			}
			before := pact.ParseFile("b.pact", c.Input(strings.TrimPrefix(fl.Name, "fixed:")), pact.V2)
			after := pact.ParseFile("a.pact", c.Input(fl.Name), pact.V2)
			if len(before.Queries) != len(after.Queries) {
				t.Fatalf("%s: %d queries before the fixes, %d after", fl.Name, len(before.Queries), len(after.Queries))
			}
			for i, qb := range before.Queries {
				qa := after.Queries[i]
				sb, sa := before.Src.Slice(qb.Sp), after.Src.Slice(qa.Sp)
				for _, d := range data {
					rb, eb := evpact.Select(context.Background(), d, sb, before.Dialect, evpact.Options{})
					ra, ea := evpact.Select(context.Background(), d, sa, after.Dialect, evpact.Options{})
					if (eb != nil) != (ea != nil) || fmt.Sprint(rb.IDs) != fmt.Sprint(ra.IDs) {
						t.Errorf("%q → %q: %v (%v) became %v (%v)", sb, sa, rb.IDs, eb, ra.IDs, ea)
					}
					compared++
					if len(ra.IDs) > 0 {
						nonEmpty++
					}
				}
			}
		}
	})
	if compared == 0 || nonEmpty < 3 {
		t.Fatalf("%d comparisons, %d with matches: the fix goldens need queries that match the fixtures", compared, nonEmpty)
	}
}

// TestContOffsetFixIsUnsafe pins why PACT002's fix is unsafe: on a tree whose
// child at offset 1 is not a cont node, the legacy hop and its rewrite differ.
func TestContOffsetFixIsUnsafe(t *testing.T) {
	d, err := evpact.LoadFile("../../testdata/pact/history.json")
	if err != nil {
		t.Fatal(err)
	}
	legacy, err1 := evpact.Select(context.Background(), d, "(d0, cont[offset=1])", pact.V2, evpact.Options{})
	offset, err2 := evpact.Select(context.Background(), d, "(d0, 1)", pact.V2, evpact.Options{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if fmt.Sprint(legacy.IDs) == fmt.Sprint(offset.IDs) {
		t.Fatalf("both select %v: the fix could be safe", legacy.IDs)
	}
	for _, a := range pactlint.Analyzers() {
		if a.Code == "PACT002" && a.Fix != analysis.UnsafeFix {
			t.Errorf("PACT002 fix kind = %v, want unsafe", a.Fix)
		}
	}
}
