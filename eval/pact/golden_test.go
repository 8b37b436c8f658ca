package pact

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

const testdataDir = "../../testdata/pact"

// render formats a result or error the way the CLI prints it.
func render(src string, res Result, err error) string {
	if err != nil {
		var qe *Error
		if errors.As(err, &qe) {
			return "error: " + syntax.NewFile("selector", src).Position(qe.Span.Start).String() + ": " + qe.Msg
		}
		return "error: " + err.Error()
	}
	var b []byte
	if res.Range != nil {
		b, err = json.MarshalIndent(res, "", "  ")
	} else {
		b, err = json.Marshal(res)
	}
	if err != nil {
		return "marshal error: " + err.Error()
	}
	return string(b)
}

func dialectOf(s string) syn.Dialect {
	if strings.TrimSpace(s) == "v1" {
		return syn.V1
	}
	return syn.V2
}

// TestGolden runs every txtar case under testdata/pact: the spec goldens of
// both dialects and the cases for each clause.
func TestGolden(t *testing.T) {
	cache := map[string]*Data{}
	golden.Run(t, filepath.Join(testdataDir, "*.txtar"), func(t *testing.T, c *golden.Case) {
		df := strings.TrimSpace(c.Input("datafile"))
		d := cache[df]
		if d == nil {
			var err error
			d, err = LoadFile(filepath.Join(testdataDir, df))
			if err != nil {
				t.Fatal(err)
			}
			cache[df] = d
		}
		src := strings.TrimRight(c.Input("query"), "\n")
		opts, err := ParseOptions([]byte(c.InputOr("options", "")))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Select(context.Background(), d, src, dialectOf(c.InputOr("dialect", "v2")), opts)
		got := render(src, res, err)
		res2, err2 := Select(context.Background(), d, src, dialectOf(c.InputOr("dialect", "v2")), opts)
		if again := render(src, res2, err2); again != got {
			t.Fatalf("non-deterministic output:\n%s\n---\n%s", got, again)
		}
		c.Want("out", got+"\n")
	})
}
