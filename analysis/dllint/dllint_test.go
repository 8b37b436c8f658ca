package dllint_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/analysistest"
	"github.com/ctxql/ctxql/analysis/dllint"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

func registry(t testing.TB) *analysis.Registry {
	t.Helper()
	reg, err := analysis.NewRegistry(dllint.Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// lint parses src as a .dl file and runs every rule of the package on it,
// as the driver does; data is passed as Pass.Data.
func lint(t testing.TB, src string, data any) (*datalog.Program, []syntax.Diagnostic) {
	t.Helper()
	prog := datalog.ParseProgram("p.dl", src)
	return prog, analysis.Run(context.Background(), registry(t).For(analysis.Datalog), prog.File, prog, data)
}

// TestRules runs each archive under testdata: every .dl section is linted
// with every rule; `// want "re"` comments must match the diagnostics
// exactly; a "fixed:NAME" section is the golden result of the safe fixes,
// which must parse cleanly and be a fixed point of the rules.
func TestRules(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, c *golden.Case) {
		// A "data.json" section is the sample data of the archive's
		// programs, as ctxql eval datalog --data reads it.
		var data any
		if c.Has("data.json") {
			var d struct {
				Relations map[string]struct {
					ParamTypes []string   `json:"param_types"`
					Tuples     [][]string `json:"tuples"`
				} `json:"relations"`
			}
			if err := json.Unmarshal([]byte(c.Input("data.json")), &d); err != nil {
				t.Fatal(err)
			}
			s := &dllint.Sample{Schema: datalog.Schema{}, Numeric: map[string][]bool{}}
			for name, r := range d.Relations {
				s.Schema[name] = r.ParamTypes
				s.Numeric[name] = dllint.NumericColumns(r.Tuples, len(r.ParamTypes))
			}
			data = s
		}
		for _, fl := range c.Archive.Files {
			name := fl.Name
			if strings.Contains(name, "fixed:") || name == "data.json" {
				continue
			}
			src := c.Input(name)
			prog, diags := lint(t, src, data)
			if len(prog.Diagnostics) > 0 {
				t.Errorf("%s: parse errors: %v", name, prog.Diagnostics)
			}
			exps, err := analysistest.ParseExpectations(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range analysistest.Match(prog.File, diags, exps) {
				t.Errorf("%s:%s", name, p)
			}
			for _, d := range diags {
				if !strings.HasPrefix(d.Code, "DL") {
					t.Errorf("%s: diagnostic without a rule code: %+v", name, d)
				}
				if !d.Span.Valid(len(src)) || d.Span.Start == d.Span.End {
					t.Errorf("%s: span %v empty or outside the file", name, d.Span)
				}
			}
			if !c.Has("fixed:" + name) {
				for _, d := range diags {
					if len(d.SuggestedFixes) > 0 {
						t.Errorf("%s: %s offers a fix but the archive has no fixed:%s section", name, d.Code, name)
					}
				}
				continue
			}
			fixed, err := analysistest.ApplyFixes(src, diags, false)
			if err != nil {
				t.Fatalf("%s: applying fixes: %v", name, err)
			}
			c.Want("fixed:"+name, fixed)
			prog2, again := lint(t, fixed, nil)
			if len(prog2.Diagnostics) > 0 {
				t.Errorf("%s: fixed text does not parse: %v", name, prog2.Diagnostics)
			}
			for _, d := range again {
				if len(d.SuggestedFixes) > 0 {
					t.Errorf("%s: after the fixes %s still offers a fix: %s", name, d.Code, d.Message)
				}
			}
			if twice, _ := analysistest.ApplyFixes(fixed, again, false); twice != fixed {
				t.Errorf("%s: fixes are not idempotent:\n%s\nthen\n%s", name, fixed, twice)
			}
		}
	})
}

// TestRegistry checks that every rule has a unique code and name and the
// documentation the registry requires, and that each documented bad example
// triggers its rule while the good example does not.
func TestRegistry(t *testing.T) {
	reg := registry(t)
	if got := len(reg.All()); got != len(dllint.Analyzers()) {
		t.Fatalf("registry holds %d of %d rules", got, len(dllint.Analyzers()))
	}
	for i, a := range reg.All() {
		if want := fmt.Sprintf("DL%03d", i+1); a.Code != want {
			t.Errorf("rule %d has code %s, want %s (codes are dense and stable)", i, a.Code, want)
		}
		if a.Language != analysis.Datalog {
			t.Errorf("%s: language %q", a.Code, a.Language)
		}
		// Rules that look at values run with sample data whose every
		// column holds numbers.
		var data any
		if a.Code == "DL011" {
			data = &dllint.Sample{Numeric: map[string][]bool{"edge": {true, true}}}
		}
		count := func(src string) int {
			prog, ds := lint(t, src+"\n", data)
			if len(prog.Diagnostics) > 0 {
				t.Errorf("%s: example %q does not parse: %v", a.Code, src, prog.Diagnostics)
			}
			n := 0
			for _, d := range ds {
				if d.Code == a.Code {
					n++
				}
			}
			return n
		}
		if count(a.Doc.Bad) == 0 {
			t.Errorf("%s: the bad example %q does not trigger the rule", a.Code, a.Doc.Bad)
		}
		if count(a.Doc.Good) != 0 {
			t.Errorf("%s: the good example %q triggers the rule", a.Code, a.Doc.Good)
		}
	}
}

// TestCheckerCodesCovered reads the checker's source and expects every
// diagnostic code it declares to be mapped to a rule of this package, or to
// be one that only the single-rule query check reports: the driver relies on
// these rules instead of running the checker itself.
func TestCheckerCodesCovered(t *testing.T) {
	src, err := os.ReadFile("../../syntax/datalog/check.go")
	if err != nil {
		t.Fatal(err)
	}
	queryOnly := []string{datalog.CodeQueryReadsData}
	codes := regexp.MustCompile(`(?m)^\s*Code\w+\s*=\s*"(datalog/[a-z-]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(codes) < 7 {
		t.Fatalf("found only %d checker codes in check.go", len(codes))
	}
	reg := registry(t)
	mapped := dllint.CheckerCodes()
	for _, m := range codes {
		code := m[1]
		if slices.Contains(queryOnly, code) {
			continue
		}
		rule, ok := mapped[code]
		if !ok {
			t.Errorf("checker code %s has no rule", code)
			continue
		}
		if _, ok := reg.Lookup(rule); !ok {
			t.Errorf("checker code %s maps to %s, which is not registered", code, rule)
		}
	}
}

// TestCheckerParity checks the checker's own goldens: the DL001..DL007
// findings of the rules are exactly the checker's findings (same span, same
// message, the mapped code), with the golden's schema passed as Pass.Data,
// and the same again with a precomputed *datalog.Info.
func TestCheckerParity(t *testing.T) {
	mapped := dllint.CheckerCodes()
	total := 0
	golden.Run(t, "../../testdata/datalog/check/*.txtar", func(t *testing.T, c *golden.Case) {
		var schema datalog.Schema
		if err := json.Unmarshal([]byte(c.Input("schema")), &schema); err != nil {
			t.Fatal(err)
		}
		src := c.InputOr("program", "")
		if src == "" {
			src = c.Input("rule")
		}
		prog := datalog.ParseProgram("p.dl", src)
		if syntax.HasErrors(prog.Diagnostics) {
			return
		}
		info := datalog.Check(prog, schema)
		var want []string
		for _, d := range info.Diagnostics {
			if code, ok := mapped[d.Code]; ok {
				want = append(want, fmt.Sprintf("%v %s %s", d.Span, code, d.Message))
			}
		}
		for _, data := range []any{schema, info} {
			var got []string
			for _, d := range analysis.Run(context.Background(), registry(t).For(analysis.Datalog), prog.File, prog, data) {
				if slices.Contains(slices.Collect(maps.Values(mapped)), d.Code) {
					got = append(got, fmt.Sprintf("%v %s %s", d.Span, d.Code, d.Message))
				}
			}
			slices.Sort(got)
			w := slices.Clone(want)
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Errorf("data %T:\n got %q\nwant %q", data, got, w)
			}
		}
		total += len(want)
	})
	if total < 5 {
		t.Fatalf("only %d checker findings compared", total)
	}
}

// TestSchemaRelationsAreInputs pins that relations the data provides count
// as known and non-empty: with the schema as Pass.Data, a rule over them is
// neither an unknown relation nor a rule that never fires. It also pins
// when a declared relation counts as an input.
func TestSchemaRelationsAreInputs(t *testing.T) {
	src := "path2(x, z) <-- path(x, y), path(y, z);\n"
	_, without := lint(t, src, nil)
	if len(without) != 2 || without[0].Code != "DL001" {
		t.Fatalf("without a schema: %v", without)
	}
	schema := datalog.Schema{"path": {"Proc", "Proc"}}
	_, with := lint(t, src, schema)
	if len(with) != 0 {
		t.Fatalf("with a schema: %v", with)
	}
	// A declared relation is an input only while the data's relations are
	// unknown; the data decides once they are known.
	src = "relation extra(Proc);\nout(x) <-- extra(x);\n"
	if _, ds := lint(t, src, nil); len(ds) != 0 {
		t.Fatalf("declared input without a schema: %v", ds)
	}
	for _, data := range []any{schema, datalog.Check(datalog.ParseProgram("p.dl", src), schema)} {
		_, ds := lint(t, src, data)
		if len(ds) != 1 || ds[0].Code != "DL010" || !strings.Contains(ds[0].Message, "extra never holds a tuple (the data does not provide it") {
			t.Fatalf("declared relation the data lacks, data %T: %v", data, ds)
		}
	}
}

// TestPartialPrograms pins the behavior on programs with parse errors: the
// whole-program rules stay silent (a dropped rule could hold the use or the
// definition they would miss) and singletons are still reported in the rules
// that parsed.
func TestPartialPrograms(t *testing.T) {
	src := "relation edge(Proc, Proc);\nrelation unused(Proc);\nsource(x) <-- edge(x, y);\nbroken(x <-- edge(x, x);\nnever(x) <-- nothing(x);\n"
	prog, diags := lint(t, src, nil)
	if !syntax.HasErrors(prog.Diagnostics) {
		t.Fatal("the program was expected to have a parse error")
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	if !slices.Equal(codes, []string{"DL008"}) {
		t.Fatalf("codes %v, want only the singleton", codes)
	}
}

// TestMalformedAST runs every rule on hand-made partial trees (nil rules,
// heads, arguments and condition operands) and on inputs that are not
// Datalog programs: no rule may fail, and on a tree the parser could not
// have produced without errors only the per-rule singleton check reports.
// The last variant is well-formed but has no syntax.File of its own.
func TestMalformedAST(t *testing.T) {
	src := "p(x) <-- q(x, y).\n"
	good := datalog.ParseProgram("p.dl", src)
	r := good.Rules[0]
	variants := []any{
		nil, "not a program", (*datalog.Program)(nil),
		&datalog.Program{File: good.File, Rules: []*datalog.Rule{nil}},
		&datalog.Program{File: good.File, Rules: []*datalog.Rule{{Sp: r.Sp}}},
		&datalog.Program{File: good.File, Rules: []*datalog.Rule{{Head: r.Head, Arrow: r.Arrow, Body: []datalog.BodyItem{{}}}}},
		&datalog.Program{File: good.File, Rules: []*datalog.Rule{{Head: &datalog.Atom{Name: r.Head.Name, Args: []*datalog.Term{nil}}, Arrow: r.Arrow, Body: r.Body}}},
		&datalog.Program{File: good.File, Rules: []*datalog.Rule{{Head: r.Head, Arrow: r.Arrow, Body: append(slices.Clone(r.Body), datalog.BodyItem{Cond: &datalog.Cond{Op: "=="}})}}},
		&datalog.Program{File: good.File, Decls: []*datalog.Decl{nil}, Rules: good.Rules},
		&datalog.Program{Rules: good.Rules},
	}
	for i, ast := range variants {
		diags := analysis.Run(context.Background(), registry(t).For(analysis.Datalog), good.File, ast, nil)
		for _, d := range diags {
			if strings.Contains(d.Message, "internal error") {
				t.Errorf("variant %d: %s", i, d.Message)
			}
			if d.Code != "DL008" && i != len(variants)-1 {
				t.Errorf("variant %d: unexpected %s: %s", i, d.Code, d.Message)
			}
		}
	}
}

// TestSingletonFixes pins both fixes of a singleton: the first (applied by
// --fix) renames it to a fresh "_name", the second replaces it with "_";
// both leave no singleton behind.
func TestSingletonFixes(t *testing.T) {
	src := "relation edge(Proc, Proc);\nsource(x) <-- edge(x, y);\n"
	_, diags := lint(t, src, nil)
	if len(diags) != 1 || len(diags[0].SuggestedFixes) != 2 {
		t.Fatalf("diagnostics: %v", diags)
	}
	for i, want := range []string{"source(x) <-- edge(x, _y);", "source(x) <-- edge(x, _);"} {
		d := diags[0]
		d.SuggestedFixes = d.SuggestedFixes[i:]
		out, err := analysistest.ApplyFixes(src, []syntax.Diagnostic{d}, false)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("fix %d: %q %v", i, out, err)
		}
		if _, again := lint(t, out, nil); len(again) != 0 {
			t.Fatalf("fix %d leaves %v", i, again)
		}
	}
}
