package jqllint_test

import (
	"context"
	"testing"

	driver "github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax/pact"
)

// TestDriverFix runs the rules through the lint driver on a .jql file: the
// misspelled domain and paths are fixed in one run that converges, and the
// rules' findings that have no fix remain.
func TestDriverFix(t *testing.T) {
	l, err := driver.New(pact.V2)
	if err != nil {
		t.Fatal(err)
	}
	src := "{from: 'activites', where: {'artifacts.exitCod': {neq: 0}, artifactCount: {gt: 1}}, limit: 2000}\n"
	want := "{from: 'activities', where: {'artifacts.exitCode': {neq: 0}, artifactCount: {gt: 1}}, limit: 1000}\n"
	got, remaining, err := l.Fix(context.Background(), "q.jql", src, false)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("fixed to\n%s\nwant\n%s", got, want)
	}
	if !has(remaining, "JQL004") {
		t.Errorf("JQL004 does not remain after the fixes: %v", remaining)
	}
	for _, d := range remaining {
		if d.Code == "JQL001" || d.Code == "JQL002" || d.Code == "JQL005" {
			t.Errorf("fixed finding remains: %v", d)
		}
	}
}
