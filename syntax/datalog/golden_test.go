package datalog

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

func dumpTerm(t *Term) string {
	if t == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%s:%s@%s", t.Kind, t.Text, t.Sp)
	if t.IsConst() && t.Value != t.Text {
		s += fmt.Sprintf("=%q", t.Value)
	}
	if !t.Pattern.IsZero() {
		s += "[?]"
	}
	if !t.Dual.IsZero() {
		s += "[Dual]"
	}
	if t.X != nil {
		s += "{" + dumpExpr(t.X) + "}"
	}
	if t.Elems != nil {
		var es []string
		for _, e := range t.Elems {
			es = append(es, dumpTerm(e))
		}
		s += "[" + strings.Join(es, ", ") + "]"
	}
	return s
}

func dumpExpr(x Expr) string {
	switch x := x.(type) {
	case *Term:
		return dumpTerm(x)
	case *Binary:
		return fmt.Sprintf("(%s %s@%s %s)", dumpExpr(x.L), x.Op, x.OpSpan, dumpExpr(x.R))
	case *Unary:
		return fmt.Sprintf("(%s@%s %s)", x.Op, x.OpSpan, dumpExpr(x.X))
	case *Call:
		var args []string
		for _, a := range x.Args {
			args = append(args, dumpExpr(a))
		}
		ty := ""
		if x.Type != nil {
			ty = fmt.Sprintf("::<%s@%s>", x.Type.Name, x.Type.Sp)
		}
		recv := "-"
		if x.Recv != nil {
			recv = dumpExpr(x.Recv)
		}
		return fmt.Sprintf("call[%s %s@%s%s (%s) span=%s]", recv, x.Name.Name, x.Name.Sp, ty, strings.Join(args, ", "), x.Sp)
	}
	return "<nil>"
}

func dumpItems(b *strings.Builder, indent string, items []BodyItem) {
	for _, it := range items {
		switch {
		case it.Atom != nil:
			fmt.Fprintf(b, "%satom %s\n", indent, dumpAtom(it.Atom))
		case it.Cond != nil:
			c := it.Cond
			fmt.Fprintf(b, "%sif@%s %s %s@%s %s span=%s\n", indent, c.If, dumpTerm(c.Left), c.Op, c.OpSpan, dumpTerm(c.Right), c.Sp)
		case it.If != nil:
			fmt.Fprintf(b, "%sif@%s %s span=%s\n", indent, it.If.If, dumpExpr(it.If.X), it.If.Sp)
		case it.Let != nil:
			fmt.Fprintf(b, "%slet@%s %s = %s span=%s\n", indent, it.Let.Let, dumpTerm(it.Let.Var), dumpExpr(it.Let.X), it.Let.Sp)
		case it.For != nil:
			f := it.For
			if f.List != nil {
				var xs []string
				for _, x := range f.List {
					xs = append(xs, dumpExpr(x))
				}
				fmt.Fprintf(b, "%sfor@%s %s in list vec=%v [%s] span=%s\n", indent, f.For, dumpTerm(f.Var), f.Vec, strings.Join(xs, ", "), f.Sp)
				continue
			}
			fmt.Fprintf(b, "%sfor@%s %s in %s range@%s inclusive=%v %s span=%s\n", indent, f.For, dumpTerm(f.Var), dumpExpr(f.Lo), f.Range, f.Inclusive, dumpExpr(f.Hi), f.Sp)
		case it.Agg != nil:
			g := it.Agg
			var args []string
			for _, a := range g.Args {
				args = append(args, dumpTerm(a))
			}
			fmt.Fprintf(b, "%sagg@%s %s = %s@%s(%s) in %s span=%s\n", indent, g.Agg, dumpTerm(g.Var), g.Func.Name, g.Func.Sp, strings.Join(args, ", "), dumpAtom(g.Atom), g.Sp)
		case it.Macro != nil:
			fmt.Fprintf(b, "%smacro %s@%s args=%d span=%s\n", indent, it.Macro.Name.Name, it.Macro.Name.Sp, len(it.Macro.Args), it.Macro.Sp)
			dumpItems(b, indent+"    ", it.Macro.Items)
		case it.Disj != nil:
			fmt.Fprintf(b, "%sdisj span=%s\n", indent, it.Disj.Sp)
			for i, alt := range it.Disj.Alts {
				fmt.Fprintf(b, "%s  alt %d\n", indent, i)
				dumpItems(b, indent+"    ", alt)
			}
		}
	}
}

func dumpAtom(a *Atom) string {
	var args []string
	for _, t := range a.Args {
		args = append(args, dumpTerm(t))
	}
	neg := ""
	if a.Negated {
		neg = fmt.Sprintf("!@%s ", a.Bang)
	}
	return fmt.Sprintf("%s%s@%s(%s) span=%s", neg, a.Name.Name, a.Name.Sp, strings.Join(args, ", "), a.Sp)
}

// Dump renders a program's AST, one node per line, for golden tests.
func dumpProgram(p *Program) string {
	var b strings.Builder
	for _, h := range p.Headers {
		var ps []string
		for _, t := range h.Params {
			ps = append(ps, fmt.Sprintf("%s@%s", t.Name, t.Sp))
		}
		fmt.Fprintf(&b, "header %s@%s params=[%s] tokens=%d span=%s\n", h.Name.Name, h.Name.Sp, strings.Join(ps, ", "), len(h.Tokens), h.Sp)
	}
	for _, m := range p.Macros {
		fmt.Fprintf(&b, "macro %s@%s params=%v kinds=%v tokens=%d span=%s\n", m.Name.Name, m.Name.Sp, len(m.Params), m.Kinds, len(m.Body), m.Sp)
	}
	Inspect(p, func(n Node) bool {
		switch n := n.(type) {
		case *Decl:
			var ts []string
			for _, t := range n.Types {
				ts = append(ts, fmt.Sprintf("%s@%s", t.Name, t.Sp))
			}
			kw := "decl"
			if n.Lattice {
				kw = "lattice"
			}
			fmt.Fprintf(&b, "%s %s@%s(%s) span=%s", kw, n.Name.Name, n.Name.Sp, strings.Join(ts, ", "), n.Sp)
			if !n.Eq.IsZero() {
				fmt.Fprintf(&b, " init@%s=%d", n.Eq, len(n.Init))
			}
			if n.DS != nil {
				fmt.Fprintf(&b, " ds=%s@%s path=%s attr=%s", n.DS.Name, n.DS.Sp, n.DSPath, n.Attr)
			}
			b.WriteByte('\n')
			return false
		case *Rule:
			kind := "rule"
			if n.IsFact() {
				kind = "fact"
			}
			if n.Init {
				kind = "init fact"
			}
			fmt.Fprintf(&b, "%s span=%s arrow=%s term=%s\n", kind, n.Sp, n.Arrow, n.Terminator)
			for _, h := range n.AllHeads() {
				from := ""
				if h.Macro != nil {
					from = fmt.Sprintf(" from macro %s@%s", h.Macro.Name.Name, h.Macro.Sp)
				}
				fmt.Fprintf(&b, "  head %s%s\n", dumpAtom(h), from)
			}
			dumpItems(&b, "  ", n.Body)
			return false
		}
		return true
	})
	for _, c := range p.Comments {
		fmt.Fprintf(&b, "comment %s\n", c)
	}
	return b.String()
}

func dumpDiags(f *syntax.File, ds []syntax.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s %s %s\n", f.Position(d.Span.Start), d.Severity, d.Code, d.Message)
		for _, r := range d.Related {
			fmt.Fprintf(&b, "  related %s: %s\n", f.Position(r.Span.Start), r.Message)
		}
	}
	return b.String()
}

func checkSpans(t *testing.T, src string, p *Program) {
	t.Helper()
	n := len(src)
	Inspect(p, func(nd Node) bool {
		if !nd.Span().Valid(n) {
			t.Errorf("node %T span %s outside source of %d bytes", nd, nd.Span(), n)
		}
		return true
	})
	for _, d := range p.Diagnostics {
		if !d.Span.Valid(n) {
			t.Errorf("diagnostic %s outside source", d)
		}
	}
}

// TestParseGolden parses each archive's "input" section as a program and
// compares the AST dump and diagnostics.
func TestParseGolden(t *testing.T) {
	golden.Run(t, "../../testdata/datalog/parse/*.txtar", func(t *testing.T, c *golden.Case) {
		src := c.Input("input")
		p := ParseProgram("input", src)
		checkSpans(t, src, p)
		c.Want("ast", dumpProgram(p))
		c.Want("diagnostics", dumpDiags(p.File, p.Diagnostics))
		if c.Has("rule-diagnostics") {
			_, ds := ParseRule(src)
			c.Want("rule-diagnostics", dumpDiags(p.File, ds))
		}
	})
}

// TestCheckGolden checks a "rule" (query mode) or "program" against a
// "schema" section (JSON: relation -> types) and compares diagnostics,
// inferred head types, strata and variable types.
func TestCheckGolden(t *testing.T) {
	golden.Run(t, "../../testdata/datalog/check/*.txtar", func(t *testing.T, c *golden.Case) {
		var schema Schema
		if err := json.Unmarshal([]byte(c.Input("schema")), &schema); err != nil {
			t.Fatal(err)
		}
		var src string
		var info *Info
		var parseDiags []syntax.Diagnostic
		if c.Has("rule") {
			src = c.Input("rule")
			r, ds := ParseRule(src)
			parseDiags = ds
			info = CheckRule(r, schema)
		} else {
			src = c.Input("program")
			p := ParseProgram("program", src)
			parseDiags = p.Diagnostics
			info = Check(p, schema)
			if again := checkTyping(p.Rules, p.Decls, schema, false, 0, nil, nil, true); !reflect.DeepEqual(info.Diagnostics, again.Diagnostics) || !reflect.DeepEqual(info.Vars, again.Vars) || !reflect.DeepEqual(info.HeadTypes, again.HeadTypes) {
				t.Errorf("check reusing rule types differs from typing again")
			}
		}
		f := syntax.NewFile("x", src)
		all := append(parseDiags, info.Diagnostics...)
		for _, d := range all {
			if !d.Span.Valid(len(src)) {
				t.Errorf("diagnostic %s outside source", d)
			}
		}
		c.Want("diagnostics", dumpDiags(f, all))
		var b strings.Builder
		for i, ht := range info.HeadTypes {
			fmt.Fprintf(&b, "head %d: (%s)\n", i, strings.Join(ht, ", "))
		}
		for _, s := range info.Strata {
			fmt.Fprintf(&b, "stratum: %s\n", strings.Join(s, " "))
		}
		for _, v := range info.Vars {
			fmt.Fprintf(&b, "var %s@%s: %s\n", v.Name, f.Position(v.Span.Start), v.Type)
		}
		c.Want("types", b.String())
	})
}

// TestTypeAt pins the hover lookup.
func TestTypeAt(t *testing.T) {
	src := `q(r) <-- path("a", r), !rw_proc(r, _)`
	r, ds := ParseRule(src)
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	info := CheckRule(r, Schema{"path": {"Proc", "Proc"}, "rw_proc": {"Proc", "Proc"}})
	v, ok := info.TypeAt(2)
	if !ok || v.Name != "r" || v.Type != "Proc" {
		t.Fatalf("TypeAt(2) = %+v, %v", v, ok)
	}
	if _, ok := info.TypeAt(0); ok {
		t.Fatalf("TypeAt(0) found a variable on the relation name")
	}
}

// TestQuoteRoundTrip pins that Quote and Unquote are inverse.
func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", `{ x | serv!(req) }`, "quote\" back\\slash\nnl\ttab\x00nul", "ünï"} {
		got, ok := Unquote(Quote(s))
		if !ok || got != s {
			t.Errorf("Unquote(Quote(%q)) = %q, %v", s, got, ok)
		}
	}
}
