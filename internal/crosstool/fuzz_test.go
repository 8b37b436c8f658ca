package crosstool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxql/ctxql/config"
	evdatalog "github.com/ctxql/ctxql/eval/datalog"
	evjql "github.com/ctxql/ctxql/eval/jql"
	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/format"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// fuzzNames are the file names a generated file may get: every suffix of
// the query languages.
var fuzzNames = []string{"q.pact", "q.jql", "q.jql.json", "q.jql.yaml", "q.jql.yml", "q.dl"}

// fuzzConfigs are the configurations a generated file may live under.
var fuzzConfigs = []string{"", "dialect: {default: v1}\n", "dialect: {default: v2}\n", "rules: {select: [DL, JQL]}\n"}

// FuzzToolsAgree generates files (a name, a configuration and a text) and
// requires the tools to agree on them as TestToolsAgree does, in-process:
// the lint driver behind check reports exactly the table's syntax errors
// and fails on every invalid file whatever rules are selected; the
// formatter refuses exactly the files with parser errors and its output
// has the same dialect, the same validity and, on sample data, the same
// evaluation results; the evaluators refuse exactly the invalid queries;
// a PACT file migrated to v2 parses in its new dialect and its queries
// evaluate as before.
func FuzzToolsAgree(f *testing.F) {
	for _, e := range append(corpus(f), repros...) {
		i := slices.IndexFunc(fuzzNames, func(n string) bool { return lang.ForName(n) == lang.ForName(e.name) })
		if i < 0 {
			continue
		}
		if n := slices.Index(fuzzNames, filepath.Base(e.name)); n >= 0 {
			i = n
		}
		f.Add(uint8(i), uint8(slices.Index(fuzzConfigs, e.config)+1), e.src)
	}
	pactData, err := evpact.LoadFile(filepath.Join("..", "..", "testdata", "pact", "history.json"))
	if err != nil {
		f.Fatal(err)
	}
	jqlData := evjql.Memory{
		"sessions":   {[]byte(`{"id": "s1", "title": "a", "state": "completed", "createTime": "2024-01-01T00:00:00Z"}`)},
		"activities": {[]byte(`{"id": "a1", "sessionId": "s1", "type": "agentMessaged", "originator": "agent", "createTime": "2024-01-01T00:00:01Z", "message": "hi"}`)},
	}
	dlDB, err := evdatalog.Load(&evdatalog.Data{Relations: map[string]*evdatalog.RelationData{
		"p":    {ParamTypes: []string{"A", "A"}, Tuples: [][]string{{"a", "b"}, {"b", "c"}}},
		"path": {ParamTypes: []string{"Proc", "Proc"}, Tuples: [][]string{{"a", "b"}}},
	}})
	if err != nil {
		f.Fatal(err)
	}
	linter, err := lint.New(pact.DialectUnset)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, nameIdx, cfgIdx uint8, src string) {
		name := fuzzNames[int(nameIdx)%len(fuzzNames)]
		cfgText := fuzzConfigs[int(cfgIdx)%len(fuzzConfigs)]
		cfg, err := config.Parse([]byte(cfgText))
		if err != nil {
			t.Fatal(err)
		}
		s := lang.Settings{Config: cfg}
		l := lang.ForName(name)
		p := l.Parse(name, src, s.Dialect(name, pact.DialectUnset))

		// check
		_, diags, err := linter.WithConfig(cfg).Check(context.Background(), name, src)
		if err != nil {
			t.Fatal(err)
		}
		want, got := syntaxSet(p.File, p.Diagnostics), syntaxSet(p.File, diags)
		if !slices.Equal(want, got) {
			t.Fatalf("check's syntax errors %v, the table's %v", got, want)
		}
		if !p.Valid() && !syntax.HasErrors(diags) {
			t.Fatalf("check passes a file the table finds invalid: %v", p.Invalid())
		}

		// fmt
		out, err := l.Format(name, []byte(src), s.Dialect(name, pact.DialectUnset))
		var se *format.SyntaxError
		refused := err != nil
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("fmt: %v", err)
		}
		if refused != parserErrors(p) {
			t.Fatalf("fmt refused: %v; parser errors: %v", refused, p.Diagnostics)
		}

		// eval, and eval after fmt
		switch a := p.AST.(type) {
		case *pact.File:
			// migrate --to v2: the output parses in its dialect and
			// evaluates as the original.
			if err := migrationAgrees(name, src, s, pactData); err != nil {
				t.Fatal(err)
			}
			invalid := p.Invalid()
			for _, q := range a.Queries {
				text := a.Src.Slice(q.Sp)
				eq, ediags := pact.ParseQuery(text, a.Dialect)
				_, cerr := evpact.Compile(eq, text)
				refuses := syntax.HasErrors(ediags) || cerr != nil
				bad := slices.ContainsFunc(invalid, func(d syntax.Diagnostic) bool {
					return a.Src.LineOf(d.Span.Start) == a.Src.LineOf(q.Sp.Start)
				})
				if refuses != bad {
					t.Fatalf("eval pact --dialect %s %q refuses: %v (%v %v); the table's errors: %v", a.Dialect, text, refuses, ediags, cerr, invalid)
				}
			}
			if refused {
				return
			}
			g := l.Parse(name, string(out), s.Dialect(name, pact.DialectUnset))
			ga := g.AST.(*pact.File)
			if g.Dialect != p.Dialect || len(ga.Queries) != len(a.Queries) || g.Valid() != p.Valid() {
				t.Fatalf("fmt changes the dialect (%s → %s), the query count (%d → %d) or validity (%v → %v):\n%s",
					p.Dialect, g.Dialect, len(a.Queries), len(ga.Queries), p.Valid(), g.Valid(), out)
			}
			for i, q := range a.Queries {
				if b, af := outcome(pactData, q, a.Src.Slice(q.Sp)), outcome(pactData, ga.Queries[i], ga.Src.Slice(ga.Queries[i].Sp)); b != af {
					t.Fatalf("fmt changes %q → %q:\nbefore: %s\nafter:  %s", a.Src.Slice(q.Sp), ga.Src.Slice(ga.Queries[i].Sp), b, af)
				}
			}
		case *jql.File:
			if len(a.Queries) != 1 {
				return
			}
			before, berr := evjql.EvalQuery(context.Background(), a.Queries[0], a.Diagnostics, jqlData)
			var qe *evjql.QueryError
			if (berr != nil && errors.As(berr, &qe)) == p.Valid() && !dataError(fmt.Sprint(berr)) {
				t.Fatalf("eval jql refuses: %v; the table's errors: %v", berr, p.Invalid())
			}
			if refused || berr != nil {
				return
			}
			g := jql.ParseFile(name, string(out))
			if len(g.Queries) != 1 {
				t.Fatalf("fmt changes the number of queries:\n%s", out)
			}
			after, aerr := evjql.EvalQuery(context.Background(), g.Queries[0], g.Diagnostics, jqlData)
			if aerr != nil || jsonOf(t, before) != jsonOf(t, after) {
				t.Fatalf("fmt changes the result (%v):\n%s", aerr, out)
			}
		case *datalog.Program:
			before, err := evdatalog.EvalProgram(context.Background(), dlDB, name, src)
			if err != nil {
				return // cancelled or a resource bound
			}
			if !p.Valid() && !syntax.HasErrors(before.Diagnostics) {
				t.Fatalf("eval datalog accepts a program the table finds invalid: %v", p.Invalid())
			}
			if refused || syntax.HasErrors(before.Diagnostics) {
				return
			}
			after, err := evdatalog.EvalProgram(context.Background(), dlDB, name, string(out))
			if err != nil || syntax.HasErrors(after.Diagnostics) || jsonOf(t, before.Relations) != jsonOf(t, after.Relations) {
				t.Fatalf("fmt changes the result (%v %v):\n%s", err, after.Diagnostics, out)
			}
		}
	})
}

func syntaxSet(f *syntax.File, ds []syntax.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == syntax.SeverityError && d.Origin == syntax.OriginSyntax {
			out = append(out, key(f.Position(d.Span.Start), d.Message))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parserErrors reports whether the parser itself found errors: what makes
// the formatter refuse a file.
func parserErrors(p *lang.Parsed) bool {
	switch a := p.AST.(type) {
	case *pact.File:
		return syntax.HasErrors(a.Diagnostics)
	case *jql.File:
		return syntax.HasErrors(a.Diagnostics)
	case *datalog.Program:
		return syntax.HasErrors(a.Diagnostics)
	}
	return false
}

func jsonOf(t *testing.T, v any) string {
	var b bytes.Buffer
	switch r := v.(type) {
	case *evjql.Result:
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	return string(must(json.Marshal(v)))
}
