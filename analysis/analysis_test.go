package analysis

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

func rule(code, name string) *Analyzer {
	return &Analyzer{Code: code, Name: name, Category: "test", Language: PACT,
		Severity: syntax.SeverityWarning, Doc: Doc{Summary: "s", Bad: "b", Good: "g"},
		Run: func(p *Pass) error { p.Reportf(syntax.Sp(0, 1), "found"); return nil }}
}

func TestRegistryValidates(t *testing.T) {
	if _, err := NewRegistry(rule("X001", "a"), rule("X001", "b")); err == nil || !strings.Contains(err.Error(), "duplicate rule code") {
		t.Errorf("duplicate code: %v", err)
	}
	if _, err := NewRegistry(rule("X001", "a"), rule("X002", "a")); err == nil || !strings.Contains(err.Error(), "duplicate rule name") {
		t.Errorf("duplicate name: %v", err)
	}
	bad := rule("X003", "c")
	bad.Doc.Good = ""
	if _, err := NewRegistry(bad); err == nil {
		t.Error("missing good example accepted")
	}
	if _, err := NewRegistry(rule("x1", "d")); err == nil {
		t.Error("malformed code accepted")
	}
	r, err := NewRegistry(rule("X002", "b"), rule("X001", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if all := r.All(); all[0].Code != "X001" || all[1].Code != "X002" {
		t.Errorf("not sorted by code")
	}
	if a, ok := r.Lookup("x002"); !ok || a.Name != "b" {
		t.Errorf("lookup by code")
	}
	if a, ok := r.Lookup("a"); !ok || a.Code != "X001" {
		t.Errorf("lookup by name")
	}
}

func TestRunFillsDefaultsAndContainsPanics(t *testing.T) {
	ok := rule("X001", "a")
	ok.Tags = []syntax.Tag{syntax.TagDeprecated}
	boom := rule("X002", "b")
	boom.Run = func(*Pass) error { panic("boom") }
	ds := Run(context.Background(), []*Analyzer{ok, boom}, syntax.NewFile("f", "xyz"), nil, nil)
	if len(ds) != 2 {
		t.Fatalf("got %v", ds)
	}
	var found, internal bool
	for _, d := range ds {
		if d.Code == "X001" && d.Severity == syntax.SeverityWarning && len(d.Tags) == 1 {
			found = true
		}
		if d.Code == "X002" && strings.Contains(d.Message, "internal error") && strings.Contains(d.Message, "boom") {
			internal = true
		}
	}
	if !found || !internal {
		t.Fatalf("diagnostics: %v", ds)
	}
}
