package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// TestAll checks that the rules of every language form a valid registry.
func TestAll(t *testing.T) {
	reg, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.For(analysis.PACT)) == 0 || len(reg.For(analysis.Markdown)) == 0 {
		t.Errorf("registry lacks PACT or Markdown rules: %d rules", len(reg.All()))
	}
}

// testLinter returns a linter running only the given rule on .pact files.
func testLinter(t *testing.T, run func(*analysis.Pass) error) *Linter {
	reg, err := analysis.NewRegistry(&analysis.Analyzer{Code: "TEST001", Name: "test-rule", Category: "test",
		Language: analysis.PACT, Severity: syntax.SeverityError, Fix: analysis.SafeFix,
		Doc: analysis.Doc{Summary: "A test rule", Bad: "x", Good: "y"}, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	return &Linter{reg: reg}
}

// TestFixRefusesUnparseable checks that a fix whose result does not parse
// is refused with an error and the source is returned unchanged.
func TestFixRefusesUnparseable(t *testing.T) {
	l := testLinter(t, func(p *analysis.Pass) error {
		if strings.Contains(p.File.Text(), ".a") {
			p.Report(syntax.Diagnostic{Span: syntax.Sp(0, 2), Message: "break it",
				SuggestedFixes: []syntax.SuggestedFix{{Message: "x", TextEdits: []syntax.TextEdit{{Span: syntax.Sp(0, 2), NewText: ".a["}}}}})
		}
		return nil
	})
	out, remaining, err := l.Fix(context.Background(), "q.pact", ".a\n", false)
	if err == nil || !strings.Contains(err.Error(), "would not parse") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if out != ".a\n" || len(remaining) != 1 {
		t.Errorf("out %q, remaining %v; want the source unchanged and its finding", out, remaining)
	}
}

// TestFixMustConverge checks that fixes that keep changing the text are
// stopped with an error after a bounded number of rounds.
func TestFixMustConverge(t *testing.T) {
	l := testLinter(t, func(p *analysis.Pass) error {
		n := p.File.Len()
		p.Report(syntax.Diagnostic{Span: syntax.Sp(0, 0), Message: "grow",
			SuggestedFixes: []syntax.SuggestedFix{{Message: "x", TextEdits: []syntax.TextEdit{{Span: syntax.Sp(n, n), NewText: "\n.a"}}}}})
		return nil
	})
	out, _, err := l.Fix(context.Background(), "q.pact", ".a", false)
	if err == nil || !strings.Contains(err.Error(), "did not converge") {
		t.Fatalf("err = %v, want non-convergence", err)
	}
	if out != ".a" {
		t.Errorf("out = %q, want the source unchanged", out)
	}
}

// TestFixConverges checks that fixes enabled by earlier fixes are applied
// in later rounds until nothing changes.
func TestFixConverges(t *testing.T) {
	l, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	// Two overlapping fixes on one query: the grouped shorthand and the
	// type sugar; the second is applied in a later round if they overlap.
	out, remaining, err := l.Fix(context.Background(), "q.pact", ".block:note(kind='x' ttl=1)\n", false)
	if err != nil {
		t.Fatal(err)
	}
	if out != ".note[kind='x'][ttl=1]\n" || len(remaining) != 0 {
		t.Errorf("out %q remaining %v", out, remaining)
	}
}

// TestUnsupported checks that other file types are refused.
func TestUnsupported(t *testing.T) {
	l, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Check(context.Background(), "x.txt", "hello"); err == nil {
		t.Error("a .txt file was checked")
	}
}

// TestSuppressEditCommentSyntax checks that a suppression comment is
// written in the comment syntax of the file's language.
func TestSuppressEditCommentSyntax(t *testing.T) {
	d := syntax.Diagnostic{Span: syntax.Sp(0, 1), Code: "PACT001"}
	for name, want := range map[string]string{
		"q.pact":     " // ctxql:ignore PACT001 -- reason",
		"q.jql.yaml": " # ctxql:ignore PACT001 -- reason",
		"doc.md":     " <!-- ctxql:ignore PACT001 -- reason -->",
		"tool.py":    " # ctxql:ignore PACT001 -- reason",
		"app.ts":     " // ctxql:ignore PACT001 -- reason",
	} {
		e := SuppressEdit(name, syntax.NewFile(name, "x\n"), d)
		if e.NewText != want || e.Span != syntax.Sp(1, 1) {
			t.Errorf("%s: %+v, want %q at the line's end", name, e, want)
		}
	}
}

// TestDialectPrecedence checks the linter's dialects: a pragma beats the
// editor setting, which beats the configuration.
func TestDialectPrecedence(t *testing.T) {
	cfg, err := config.Parse([]byte("dialect: {default: v1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(pact.DialectUnset)
	if err != nil {
		t.Fatal(err)
	}
	v1only := "[ttl<1]\n" // valid in v1, a syntax error in v2
	for _, c := range []struct {
		l     *Linter
		src   string
		valid bool
	}{
		{l, v1only, false},
		{l.WithConfig(cfg), v1only, true},
		{l.WithConfig(cfg).WithEditorDialect(pact.V2), v1only, false},
		{l.WithConfig(cfg).WithEditorDialect(pact.V2), "// pact: v1\n" + v1only, true},
	} {
		_, diags, err := c.l.Check(context.Background(), "q.pact", c.src)
		if err != nil {
			t.Fatal(err)
		}
		if syntax.HasErrors(diags) == c.valid {
			t.Errorf("%q with %+v: %v", c.src, c.l.Settings(), diags)
		}
	}
}
