package datalog

import (
	"reflect"
	"slices"
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
		`q(x + 1, -y, (x * 2) % 3) <-- r(x, y), let z = x / 2, if z > 1 && !(y == 0) || true;`,
		`a(x), b(x) <-- c(x) if x > 1, for k in 0..=x, (d(k) || e(k, _) | f(k));`,
		`lattice s(u32, u32, Dual<u32>); s(x, z, Dual(w + l)) <-- e(x, y, w), s(y, z, ?Dual(l));`,
		`n(c) <-- agg c = count() in e(_, _); m(p, s) <-- p(p), agg s = sum(v) in e(p, v); z(p) <-- p(p), agg () = not() in e(p, _);`,
		`x(v) <-- r(v), if v.len() > 1; #[ds(x)] relation y(u32); include_source!(s); f(None); g(y) <-- r(x), if let Some(y) = x;`,
		`a(x) <-- r(x), let f = |v| v + 1, let p = P { x }, let q = A::B, let d = *x, for y in &x;`,
		"#[ds(ascent_byods_rels::eqrel)]\nrelation eq(u32, u32);\n#[ds(trrel)] relation tr(u32, u32, u32); #[ds(x::y)] relation z(u8);",
		`relation t((i32, (String,)), u8); t((1, ("a",)), 2); q(x, (y, x)) <-- t((x, (y,)), _), let (a, _) = (x, 1), for (b, c) in vec![(a, 2), (3, a)], if (a, b) == (c, a);`,
		`macro m($x: expr) { a($x), b($x) } m!(1); m!(x + 1), c(x) <-- d(x); m!(y <-- e(y);`,
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
		// The check's types are those of a check typing each rule anew.
		if again := checkTyping(p.Rules, p.Decls, schema, false, 0, nil, nil, true); !reflect.DeepEqual(info, again) {
			t.Fatalf("check reusing rule types differs from typing again:\n%+v\n%+v", info, again)
		}
		// EachVar visits the variables Inspect does, in its order.
		for _, r := range p.Rules {
			var want, got []*Term
			Inspect(r, func(n Node) bool {
				if v, ok := n.(*Term); ok && v.Kind == Var {
					want = append(want, v)
				}
				return true
			})
			EachVar(r, func(v *Term) { got = append(got, v) })
			if !slices.Equal(want, got) {
				t.Fatalf("EachVar visits %v, Inspect %v", got, want)
			}
		}
	})
}
