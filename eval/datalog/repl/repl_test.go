package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/eval/datalog"
)

// TestSubstitute pins whole-word substitution as quoted constants: not
// inside string literals or comments, not relation names, not parts of
// longer identifiers.
func TestSubstitute(t *testing.T) {
	env := map[string]string{"t": `{ x | "serv"!(req) }`, "path": "p"}
	got, missing := Substitute(`q(r) <-- path(t, r), !rw(r, "t"), tt(t_2, t) // t`, env)
	want := `q(r) <-- path("{ x | \"serv\"!(req) }", r), !rw(r, "t"), tt(t_2, "{ x | \"serv\"!(req) }") // t`
	if got != want || len(missing) != 0 {
		t.Errorf("Substitute:\n got %s %v\nwant %s", got, missing, want)
	}
	if _, missing := Substitute(`q(r) <-- path(current_term, r)`, nil); len(missing) != 1 {
		t.Errorf("unbound current_term not reported: %v", missing)
	}
}

// TestRun drives a session through an io.Reader, as the CLI does when
// stdin is not a terminal.
func TestRun(t *testing.T) {
	db, err := datalog.Load(&datalog.Data{Relations: map[string]*datalog.RelationData{
		"path":    {ParamTypes: []string{"Proc", "Proc"}, Tuples: [][]string{{"a b", "c"}, {"a b", "d"}, {"c", "d"}}},
		"rw_proc": {ParamTypes: []string{"Proc", "Proc"}, Tuples: [][]string{{"c", "d"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	in := "let start = \"a b\"\nq(r) <-- path(start, r), !rw_proc(r, _)\n:quit\nq(r) <-- path(r, _)\n"
	if err := Run(context.Background(), NewSession(db), strings.NewReader(in), &out, ""); err != nil {
		t.Fatal(err)
	}
	want := "start = \"a b\"\nr\n-\nd\n(1 tuple)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestLanguageInSession pins that the REPL evaluates the language's
// clauses: a let, a generator and an aggregate inside a query, whose own
// variables shadow the session's bindings of the same name, and
// keywords are never substituted.
func TestLanguageInSession(t *testing.T) {
	db, err := datalog.Load(&datalog.Data{Relations: map[string]*datalog.RelationData{
		"score": {ParamTypes: []string{"Name", "i32"}, Tuples: [][]string{{"ann", "9"}, {"ann", "3"}, {"bob", "10"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	in := "let who = \"ann\"\nlet s = \"shadowed\"\nq(s, s * 2) <-- agg s = sum(v) in score(who, v)\nr(k) <-- for k in 1..3\n"
	if err := Run(context.Background(), NewSession(db), strings.NewReader(in), &out, ""); err != nil {
		t.Fatal(err)
	}
	want := "who = \"ann\"\ns = \"shadowed\"\ns  | s * 2\n---+------\n12 | 24\n(1 tuple)\nk\n-\n1\n2\n(2 tuples)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
