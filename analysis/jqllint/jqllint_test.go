package jqllint_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/analysistest"
	"github.com/ctxql/ctxql/analysis/jqllint"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// lint runs every rule of the package on one file as the driver does, with
// the default schema, and returns the file, the rules' diagnostics and the
// parser's syntax errors.
func lint(t testing.TB, name, src string) (*syntax.File, []syntax.Diagnostic, []syntax.Diagnostic) {
	t.Helper()
	reg, err := analysis.NewRegistry(jqllint.Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	jf := jql.ParseFile(name, src)
	f := syntax.NewFile(name, src)
	diags := analysis.Run(context.Background(), reg.For(analysis.JQL), f, jf, jql.NewSchema())
	return f, diags, syntaxErrors(jf)
}

func syntaxErrors(jf *jql.File) []syntax.Diagnostic {
	var out []syntax.Diagnostic
	for _, d := range jf.Diagnostics {
		if d.Code == jql.CodeSyntax {
			out = append(out, d)
		}
	}
	return out
}

// TestRules runs each archive under testdata: every .jql or .jql.yaml
// section is linted with every rule; `// want "re"` (object-literal form) or
// `# want "re"` (YAML) comments must match the diagnostics exactly (strict
// JSON has no comments: a "want:NAME" section holds NAME's want comments on
// the same line numbers, after some text such as the line number); a
// "fixed:NAME" section is the golden result of the safe fixes and
// "unsafe-fixed:NAME" of all fixes, which must parse and be fixed points.
func TestRules(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c *golden.Case) {
		n := 0
		for _, fl := range c.Archive.Files {
			name := fl.Name
			if strings.Contains(name, "fixed:") || strings.HasPrefix(name, "want:") {
				continue
			}
			n++
			src := c.Input(name)
			f, diags, parseErrs := lint(t, name, src)
			if len(parseErrs) > 0 {
				t.Errorf("%s: parse errors: %v", name, parseErrs)
			}
			exps, err := analysistest.ParseExpectations(c.InputOr("want:"+name, src))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range analysistest.Match(f, diags, exps) {
				t.Errorf("%s:%s", name, p)
			}
			for _, d := range diags {
				if !strings.HasPrefix(d.Code, "JQL") {
					t.Errorf("%s: diagnostic without a rule code: %+v", name, d)
				}
				if !d.Span.Valid(f.Len()) || d.Span.Len() == 0 {
					t.Errorf("%s: span %v empty or outside the file", name, d.Span)
				}
			}
			for _, unsafe := range []bool{false, true} {
				section := "fixed:" + name
				if unsafe {
					section = "unsafe-" + section
				}
				if !c.Has(section) {
					continue
				}
				fixed, err := analysistest.ApplyFixes(src, diags, unsafe)
				if err != nil {
					t.Fatalf("%s: applying fixes: %v", name, err)
				}
				c.Want(section, fixed)
				if strings.HasSuffix(name, ".json") {
					for _, q := range jql.ParseFile(name, fixed).Queries {
						if q.Form != jql.FormJSON {
							t.Errorf("%s: a fix left strict JSON: %v", section, q.Form)
						}
					}
				}
				_, again, parseErrs := lint(t, name, fixed)
				if len(parseErrs) > 0 {
					t.Errorf("%s: fixed text does not parse: %v", section, parseErrs)
				}
				if twice, _ := analysistest.ApplyFixes(fixed, again, unsafe); twice != fixed {
					t.Errorf("%s: fixes are not idempotent:\n%s\nthen\n%s", section, fixed, twice)
				}
			}
		}
		if n == 0 {
			t.Fatal("archive has no input section")
		}
	})
}

// TestRegistry checks that every rule has a unique code and name and the
// documentation the registry requires, and that each documented bad example
// triggers its rule while the good example triggers no rule at all.
func TestRegistry(t *testing.T) {
	reg, err := analysis.NewRegistry(jqllint.Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.All()) != 7 {
		t.Fatalf("%d rules, want 7", len(reg.All()))
	}
	for i, a := range reg.All() {
		if want := "JQL00" + string(rune('1'+i)); a.Code != want || a.Language != analysis.JQL {
			t.Errorf("rule %d is %s (%s), want %s for JQL", i, a.Code, a.Language, want)
		}
		_, bad, perr := lint(t, "doc.jql", a.Doc.Bad+"\n")
		if len(perr) > 0 || !has(bad, a.Code) {
			t.Errorf("%s: the bad example %q does not trigger the rule (%v, %v)", a.Code, a.Doc.Bad, bad, perr)
		}
		_, good, perr := lint(t, "doc.jql", a.Doc.Good+"\n")
		if len(perr) > 0 || len(good) > 0 {
			t.Errorf("%s: the good example %q is not clean: %v %v", a.Code, a.Doc.Good, good, perr)
		}
		for _, d := range bad {
			if d.Code == a.Code && (a.Fix == analysis.NoFix) != (len(d.SuggestedFixes) == 0) {
				t.Errorf("%s: fix kind %v but the bad example's fixes are %v", a.Code, a.Fix, d.SuggestedFixes)
			}
		}
	}
}

func has(ds []syntax.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

// ruleFor maps the schema checker's codes to the rules that take them over.
var ruleFor = map[string][]string{
	jql.CodeInvalidDomain:   {"JQL001"},
	jql.CodeInvalidPath:     {"JQL002", "JQL004"},
	jql.CodeInvalidOperator: {"JQL003"},
}

// uncovered returns the findings of jql.Schema.Check on the file's queries
// that no rule diagnostic reports on the same line with at least the same
// severity.
func uncovered(jf *jql.File, diags []syntax.Diagnostic) []syntax.Diagnostic {
	f := syntax.NewFile(jf.Name, jf.Text)
	s := jql.NewSchema()
	var out []syntax.Diagnostic
	for _, q := range jf.Queries {
		for _, c := range s.Check(q) {
			found := false
			for _, d := range diags {
				if slices.Contains(ruleFor[c.Code], d.Code) && f.LineOf(d.Span.Start) == f.LineOf(c.Span.Start) &&
					d.Severity <= c.Severity && d.Span.Start >= 0 {
					found = true
					break
				}
			}
			if !found {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestCoversSchemaCheck runs the schema checker on every golden input and
// expects each of its findings to be reported by a rule as well, so that
// the rules can replace the checker in the lint driver.
func TestCoversSchemaCheck(t *testing.T) {
	checked := 0
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c *golden.Case) {
		for _, fl := range c.Archive.Files {
			if strings.Contains(fl.Name, "fixed:") || strings.HasPrefix(fl.Name, "want:") {
				continue
			}
			src := c.Input(fl.Name)
			jf := jql.ParseFile(fl.Name, src)
			_, diags, _ := lint(t, fl.Name, src)
			for _, q := range jf.Queries {
				checked += len(jql.NewSchema().Check(q))
			}
			for _, m := range uncovered(jf, diags) {
				t.Errorf("%s: %v is not reported by a rule", fl.Name, m)
			}
		}
	})
	if checked < 20 {
		t.Fatalf("only %d schema findings in the goldens", checked)
	}
}
