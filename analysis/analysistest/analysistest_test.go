package analysistest

import (
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

func TestMatch(t *testing.T) {
	src := "a bad // want \"X001: bad\"\n// want \"X002\"\nb worse\nc fine\n"
	exps, err := ParseExpectations(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 2 || exps[0].Line != 1 || exps[1].Line != 3 {
		t.Fatalf("expectations: %+v", exps)
	}
	f := syntax.NewFile("x", src)
	start := strings.Index(src, "worse")
	diags := []syntax.Diagnostic{
		{Span: syntax.Sp(2, 5), Code: "X001", Message: "bad thing"},
		{Span: syntax.Sp(start, start+5), Code: "X002", Message: "worse thing"},
	}
	if p := Match(f, diags, exps); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
}

func TestMatchReportsBothDirections(t *testing.T) {
	src := "a // want \"X001\"\nb\n"
	exps, _ := ParseExpectations(src)
	f := syntax.NewFile("x", src)
	diags := []syntax.Diagnostic{{Span: syntax.Sp(src2off(src, "b"), src2off(src, "b")+1), Code: "X009", Message: "m"}}
	p := Match(f, diags, exps)
	if len(p) != 2 || !strings.Contains(p[0], "unexpected diagnostic X009") || !strings.Contains(p[1], "no diagnostic matched") {
		t.Fatalf("problems: %q", p)
	}
}

func src2off(src, s string) int { return strings.Index(src, s) }

func TestBadWant(t *testing.T) {
	if _, err := ParseExpectations("x // want \"(\"\n"); err == nil {
		t.Fatal("bad regexp accepted")
	}
	if _, err := ParseExpectations("x\n// want \"y\"\n"); err == nil {
		t.Fatal("dangling want accepted")
	}
}

func TestApplyFixesSkipsUnsafeAndOverlaps(t *testing.T) {
	src := "abcdef"
	diags := []syntax.Diagnostic{
		{SuggestedFixes: []syntax.SuggestedFix{{TextEdits: []syntax.TextEdit{{Span: syntax.Sp(0, 2), NewText: "X"}}}}},
		{SuggestedFixes: []syntax.SuggestedFix{{TextEdits: []syntax.TextEdit{{Span: syntax.Sp(1, 3), NewText: "Y"}}}}},
		{SuggestedFixes: []syntax.SuggestedFix{{Unsafe: true, TextEdits: []syntax.TextEdit{{Span: syntax.Sp(4, 5), NewText: "Z"}}}}},
	}
	got, err := ApplyFixes(src, diags, false)
	if err != nil || got != "Xcdef" {
		t.Fatalf("safe only: %q %v", got, err)
	}
	got, err = ApplyFixes(src, diags, true)
	if err != nil || got != "XcdZf" {
		t.Fatalf("with unsafe: %q %v", got, err)
	}
}
