package lang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
)

// sample writes the sample data files of the three query languages into a
// temporary directory and returns their paths by language.
func sample(t *testing.T) map[ID]string {
	t.Helper()
	dir := t.TempDir()
	files := map[ID][2]string{
		PACT: {"pact.json", `{"root": {"id": "r", "nodeType": "root", "children": [
			{"id": "a", "nodeType": "mt", "children": [{"id": "b", "nodeType": "cb:summary"}]},
			{"id": "c", "nodeType": "mt", "children": [{"id": "d", "nodeType": "cb:hover"}]}]}}`},
		JQL: {"jql.json", `{"sessions": [{"id": "s1", "state": "paused"}, {"id": "s2", "state": "completed"}], "activities": []}`},
		Datalog: {"dl.json", `{"relations": {"e": {"param_types": ["String", "String"],
			"tuples": [["a", "b"], ["b", "c"], ["c", "d"]]}}}`},
	}
	out := map[ID]string{}
	for id, f := range files {
		p := filepath.Join(dir, f[0])
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		out[id] = p
	}
	return out
}

// queries are, per language, a query text and its expected JSON result.
var queries = map[ID]struct {
	q    Query
	want string
}{
	PACT:    {Query{Name: "selector", Src: ".mt .cb:summary", Dialect: V1}, `["b"]`},
	JQL:     {Query{Name: "query", Src: `{"from": "sessions", "where": {"state": "completed"}, "select": ["id"]}`}, `[{"id":"s2"}]`},
	Datalog: {Query{Name: "rule", Src: `q(x, z) <-- e(x, y), e(y, z)`}, `[["a","c"],["b","d"]]`},
}

func load(t *testing.T, id ID, path string) Data {
	t.Helper()
	d, err := ByID(id).Load(context.Background(), (*files.Reader)(nil), path)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	return d
}

// TestEvaluateConcurrently runs evaluations of every query language on
// several goroutines over one loaded Data: each gives the sequential
// result. Run with -race, it checks that nothing an evaluation writes is
// shared.
func TestEvaluateConcurrently(t *testing.T) {
	paths := sample(t)
	for _, l := range Queries() {
		t.Run(string(l.ID), func(t *testing.T) {
			d := load(t, l.ID, paths[l.ID])
			c := queries[l.ID]
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for i := range 16 {
				wg.Go(func() {
					q := c.q
					if l.ID == Datalog && i%2 == 1 {
						// A rule with a constant of its own, which
						// evaluation interns into its database.
						q.Src = fmt.Sprintf(`q(x, z) <-- e(x, y), e(y, z), if x != "c%d"`, i)
					}
					res, err := l.Evaluate(context.Background(), d, q, Budget{})
					if err != nil {
						errs <- err
						return
					}
					if res.Invalid() {
						errs <- fmt.Errorf("invalid: %v", res.Diagnostics)
						return
					}
					b, _ := json.Marshal(res.Value)
					if string(b) != c.want {
						errs <- fmt.Errorf("goroutine %d: got %s, want %s", i, b, c.want)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestEvaluateInvalid: a query that does not parse, or that the evaluator
// refuses, is a result with errors of origin syntax or check, the codes
// validity gives them.
func TestEvaluateInvalid(t *testing.T) {
	paths := sample(t)
	for _, c := range []struct {
		id     ID
		src    string
		origin syntax.Origin
		code   string
	}{
		{PACT, ".mt[", syntax.OriginSyntax, "pact-syntax"},
		{PACT, ".mt:nth(0)", syntax.OriginCheck, CodeInvalidPACT},
		{JQL, `{"from": `, syntax.OriginSyntax, "SyntaxError"},
		{Datalog, `q(x) <-- `, syntax.OriginSyntax, "datalog/syntax"},
		{Datalog, `q(x) <-- e(x)`, syntax.OriginCheck, ""},
	} {
		l := ByID(c.id)
		res, err := l.Evaluate(context.Background(), load(t, c.id, paths[c.id]), Query{Name: "q", Src: c.src}, Budget{})
		if err != nil {
			t.Errorf("%s %q: %v", c.id, c.src, err)
			continue
		}
		found := false
		for _, d := range syntax.Invalid(res.Diagnostics) {
			found = found || d.Origin == c.origin && (c.code == "" || d.Code == c.code)
		}
		if !found {
			t.Errorf("%s %q: diagnostics %v, want origin %s code %q", c.id, c.src, res.Diagnostics, c.origin, c.code)
		}
	}
}

// TestLimitNamesNoFlag: a budget error names no flag; the caller adds one.
func TestLimitNamesNoFlag(t *testing.T) {
	paths := sample(t)
	l := ByID(Datalog)
	_, err := l.Evaluate(context.Background(), load(t, Datalog, paths[Datalog]), Query{Name: "rule", Src: `q(x, y) <-- e(x, y)`}, Budget{MaxTuples: 1})
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want a *LimitError", err)
	}
	if got := le.Error(); containsFlag(got) {
		t.Errorf("library message names a flag: %s", got)
	}
	if got := le.WithFlag("--max-tuples").Error(); !containsFlag(got) || !strings.HasSuffix(got, "(raise with --max-tuples)") {
		t.Errorf("WithFlag: %s", got)
	}
}

func containsFlag(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '-' && s[i+1] == '-' {
			return true
		}
	}
	return false
}

// TestEvaluateFile evaluates every query of a file: one result per PACT
// query, per Datalog relation a rule derives.
func TestEvaluateFile(t *testing.T) {
	paths := sample(t)
	p, err := ParseFile("q.pact", "// pact: v1\n.mt\n.mt .cb:hover\n.mt[\n", Settings{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := p.Lang.EvaluateFile(context.Background(), load(t, PACT, paths[PACT]), p, Budget{})
	if err != nil || len(rs) != 3 {
		t.Fatalf("%v, %d results", err, len(rs))
	}
	if rs[0].Count != 2 || rs[1].Count != 1 || rs[2].Err == nil {
		t.Errorf("results %+v", rs)
	}
	p, _ = ParseFile("p.dl", "r(x, y) <-- e(x, y);\nr(x, z) <-- r(x, y), e(y, z);\ns(x) <-- r(x, \"d\");\n", Settings{})
	rs, err = p.Lang.EvaluateFile(context.Background(), load(t, Datalog, paths[Datalog]), p, Budget{})
	if err != nil || len(rs) != 2 {
		t.Fatalf("%v, %d results", err, len(rs))
	}
	if rs[0].Key != "r" || rs[0].Count != 6 || rs[1].Key != "s" || rs[1].Count != 3 || rs[1].Columns[0].Name != "x" {
		t.Errorf("results %+v", rs)
	}
}
