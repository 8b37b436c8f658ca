package datalog

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func fuzzDB(t *testing.T) *DB {
	db, err := Load(&Data{Relations: map[string]*RelationData{
		"path":    {ParamTypes: []string{"Proc", "Proc"}, Tuples: [][]string{{"a", "b"}, {"b", "c"}, {"a", "c"}, {"c", "c"}, {"1", "10"}}},
		"rw_proc": {ParamTypes: []string{"Proc", "Proc"}, Tuples: [][]string{{"a", "b"}, {"b", "c"}}},
		"proc":    {ParamTypes: []string{"Proc"}, Tuples: [][]string{{"a"}, {"b"}, {"c"}}},
		"age":     {ParamTypes: []string{"Name", "Int"}, Tuples: [][]string{{"a", "9"}, {"b", "10"}}},
		"triple":  {ParamTypes: []string{"A", "A", "A"}, Tuples: [][]string{{"a", "b", "c"}, {"a", "a", "a"}}},
		"empty":   {ParamTypes: []string{"Proc"}, Tuples: [][]string{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// FuzzEval evaluates arbitrary text as a query rule and as a program over
// small fixed data: no panic, diagnostics inside the source, identical
// results on a second run over fresh data, which keeps every rule on the
// general path of the last join (no fused tail).
func FuzzEval(f *testing.F) {
	for _, s := range []string{
		`query(result) <-- path("a", result), !rw_proc(result, _).`,
		`q(t, r) <-- path(t, r), !rw_proc(r, _)`,
		`q(x) <-- path(x, x), !triple(x, _, x), if x >= "b"`,
		`q(n) <-- age(n, a), if a > 9`,
		`q(x, y, z) <-- triple(x, y, z), path(x, y), !empty(_)`,
		`reach(x, y) <-- rw_proc(x, y); reach(x, z) <-- reach(x, y), rw_proc(y, z); nf(r) <-- reach(_, r), !rw_proc(r, _)`,
		`a(x) <-- proc(x), !b(x). b(x) <-- proc(x), !a(x).`,
		`p("k", 1); q(x) <-- p(x, _)`,
		`q(n, a + 1) <-- age(n, a), if a * 2 > 10 || a == 9;`,
		`sq(n, n * n), cube(n * n * n) <-- for n in 0..5;`,
		`q(x) <-- (proc(x) || path(x, _), if x != "a");`,
		`c(x, n) <-- proc(x), agg n = count() in path(x, _); s(t) <-- agg t = sum(a) in age(_, a);`,
		`lattice best(Proc, i64); best(x, 1) <-- proc(x); best(x, 2) <-- path(x, x);`,
		`q() <-- proc(x), path(y, _); r(x / 0) <-- age(_, x);`,
		"#[ds(eqrel)]\nrelation eq(Proc, Proc);\neq(x, y) <-- path(x, y);\nq(x, y) <-- eq(\"a\", x), !eq(x, y), proc(y);\n#[ds(trrel)] relation tr(Proc, Proc); tr(x, y) <-- rw_proc(x, y);",
		`relation t((Proc, i64)); t((n, a)) <-- age(n, a); q(n, b) <-- t(p), let (n, a) = p, for (b, _) in [(a, 1), (a + 1, 2)], if p == (n, a);`,
		`macro both($x: expr) { proc($x), path($x, $x) } both!(x) <-- rw_proc(x, _);`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		run := func(general bool) (any, any, bool) {
			db := fuzzDB(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			r, err := EvalRule(ctx, db, src)
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					return nil, nil, false
				}
				t.Fatalf("EvalRule: %v", err)
			}
			for _, d := range r.Diagnostics {
				if !d.Span.Valid(len(src)) {
					t.Fatalf("diagnostic %s outside source", d)
				}
			}
			p, err := EvalProgramWith(ctx, db, "fuzz", src, Options{general: general})
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					return nil, nil, false
				}
				t.Fatalf("EvalProgram: %v", err)
			}
			for _, d := range p.Diagnostics {
				if !d.Span.Valid(len(src)) {
					t.Fatalf("diagnostic %s outside source", d)
				}
			}
			return []any{r.Tuples, r.Diagnostics}, []any{p.Relations, p.Diagnostics}, true
		}
		r1, p1, ok1 := run(false)
		r2, p2, ok2 := run(true)
		if ok1 && ok2 && (!reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(p1, p2)) {
			t.Fatalf("evaluation is not deterministic:\n%v\n%v\n%v\n%v", r1, r2, p1, p2)
		}
	})
}
