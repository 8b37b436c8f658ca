package datalog

import (
	"reflect"
	"testing"
)

// FuzzParse parses arbitrary text as a program and as a single rule,
// checks it, and requires no panic, spans inside the source and
// deterministic results.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`query(result) <-- path(term, result), !rw_proc(result, _).`,
		`q(x) <-- p(x, "a"), if x != "b";`,
		`relation p(Proc, Proc); p("a", "b"); q(x,y) <-- p(x,y) q(x,z) <-- q(x,y), p(y,z)`,
		`// comment
r(x) <-- s(x), !t(x, 1), if x >= -2.5`,
		`q(x <-- p(x)) ; q(y) <-- p(y)`,
		`"unterminated`, `<-- ! if == . ; ( ) ,`, "\xff\xfe(", `q(x) <-- p(x,x), !p(_,x).`,
	} {
		f.Add(s)
	}
	schema := Schema{"p": {"A", "A"}, "path": {"Proc", "Proc"}, "rw_proc": {"Proc", "Proc"}, "s": {"Int"}}
	f.Fuzz(func(t *testing.T, src string) {
		p := ParseProgram("fuzz", src)
		checkSpans(t, src, p)
		for _, tok := range p.Tokens {
			if !tok.Span.Valid(len(src)) || src[tok.Span.Start:tok.Span.End] != tok.Text {
				t.Fatalf("token %+v does not match the source", tok)
			}
		}
		info := Check(p, schema)
		for _, d := range info.Diagnostics {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("check diagnostic %s outside source", d)
			}
		}
		r, ds := ParseRule(src)
		for _, d := range ds {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("rule diagnostic %s outside source", d)
			}
		}
		ri := CheckRule(r, schema)
		for _, d := range ri.Diagnostics {
			if !d.Span.Valid(len(src)) {
				t.Fatalf("rule check diagnostic %s outside source", d)
			}
		}
		p2 := ParseProgram("fuzz", src)
		if !reflect.DeepEqual(p.Diagnostics, p2.Diagnostics) || !reflect.DeepEqual(p.Rules, p2.Rules) {
			t.Fatalf("parse is not deterministic")
		}
		if !reflect.DeepEqual(info, Check(p2, schema)) {
			t.Fatalf("check is not deterministic")
		}
	})
}
