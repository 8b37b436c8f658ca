package format

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	evalpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax/pact"
)

// TestPACTGolden formats the "input" section of each archive under
// testdata/format/pact and compares with "output"; formatting the output
// again must not change it.
func TestPACTGolden(t *testing.T) {
	golden.Run(t, "../testdata/format/pact/*.txtar", func(t *testing.T, c *golden.Case) {
		wantFormatted(t, c, "f.pact", c.Input("input"), func(out []byte) { checkIdempotent(t, out) })
	})
}

func checkIdempotent(t *testing.T, out []byte) {
	t.Helper()
	again, err := PACT(out)
	if err != nil {
		t.Fatalf("formatted text does not format: %v\n%s", err, out)
	}
	if string(again) != string(out) {
		t.Fatalf("not idempotent:\n%s\nthen\n%s", out, again)
	}
}

// evalCase is one evaluator golden: a query, its dialect and its data.
type evalCase struct {
	name, query, data string
	dialect           pact.Dialect
}

func evalCases(t *testing.T) []evalCase {
	t.Helper()
	files, err := filepath.Glob("../testdata/pact/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluator goldens: %v", err)
	}
	var out []evalCase
	for _, f := range files {
		c := golden.Load(t, f)
		d := pact.V2
		if strings.TrimSpace(c.InputOr("dialect", "v2")) == "v1" {
			d = pact.V1
		}
		out = append(out, evalCase{name: filepath.Base(f), query: strings.TrimSpace(c.Input("query")),
			data: filepath.Join("../testdata/pact", strings.TrimSpace(c.Input("datafile"))), dialect: d})
	}
	return out
}

// outcome renders an evaluation without the parts that echo the query's
// text or positions: the result, or "error: " and the message.
func outcome(t *testing.T, d *evalpact.Data, q string, dialect pact.Dialect) string {
	t.Helper()
	res, err := evalpact.Select(context.Background(), d, q, dialect, evalpact.Options{IncludeContent: true})
	if err != nil {
		var qe *evalpact.Error
		if errors.As(err, &qe) {
			return "error: " + qe.Msg
		}
		return "error: " + err.Error()
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "query")
	}
	b, _ = json.Marshal(v)
	return string(b)
}

// TestPACTPreservesMeaning formats every evaluator golden query (in a file
// with its dialect's pragma) and evaluates the original and the formatted
// query over the golden's data: the results must be identical.
func TestPACTPreservesMeaning(t *testing.T) {
	data := map[string]*evalpact.Data{}
	changed, nonEmpty := 0, 0
	for _, ec := range evalCases(t) {
		src := "// pact: " + ec.dialect.String() + "\n" + ec.query + "\n"
		out, err := PACT([]byte(src))
		var se *SyntaxError
		if errors.As(err, &se) {
			continue // a golden of a syntax error
		}
		if err != nil {
			t.Fatalf("%s: %v", ec.name, err)
		}
		checkIdempotent(t, out)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		got := lines[len(lines)-1]
		if got != ec.query {
			changed++
		}
		d := data[ec.data]
		if d == nil {
			if d, err = evalpact.LoadFile(ec.data); err != nil {
				t.Fatal(err)
			}
			data[ec.data] = d
		}
		before, after := outcome(t, d, ec.query, ec.dialect), outcome(t, d, got, ec.dialect)
		if before != after {
			t.Errorf("%s: %q → %q changed the result:\n%s\n%s", ec.name, ec.query, got, before, after)
		}
		if !strings.HasPrefix(before, "error") && before != "[]" {
			nonEmpty++
		}
	}
	if changed < 10 || nonEmpty < 10 {
		t.Fatalf("only %d queries changed and %d had results: the test proves little", changed, nonEmpty)
	}
}

// TestPACTRepositoryFiles formats every PACT source of the repository
// (pactSources): the result parses, has as many queries and comments, and
// is a fixed point.
func TestPACTRepositoryFiles(t *testing.T) {
	srcs := pactSources(t)
	n := 0
	for _, src := range srcs {
		out, err := PACT([]byte(src))
		var se *SyntaxError
		if errors.As(err, &se) {
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		n++
		before := pact.ParseFile("f.pact", src, pact.DialectUnset)
		after := pact.ParseFile("f.pact", string(out), pact.DialectUnset)
		if len(before.Queries) != len(after.Queries) || len(before.Comments) != len(after.Comments) {
			t.Errorf("%q: %d queries and %d comments became %d and %d", src, len(before.Queries), len(before.Comments), len(after.Queries), len(after.Comments))
		}
		checkIdempotent(t, out)
	}
	if n < 10 {
		t.Fatalf("only %d PACT sources formatted", n)
	}
}
