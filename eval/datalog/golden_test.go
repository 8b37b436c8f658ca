package datalog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// loadCase builds the DB of a golden case: a "data.json" section, or
// sections under "facts/" written to a temporary facts directory.
func loadCase(t *testing.T, c *golden.Case) *DB {
	t.Helper()
	var d *Data
	var err error
	if c.Has("data.json") {
		d, err = ReadJSON(strings.NewReader(c.Input("data.json")))
	} else {
		dir := t.TempDir()
		for _, f := range c.Archive.Files {
			if name, ok := strings.CutPrefix(f.Name, "facts/"); ok {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(c.Input(f.Name)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		d, err = ReadFactsDir(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func formatDiags(src string, ds []syntax.Diagnostic) string {
	f := syntax.NewFile("x", src)
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s %s %s\n", f.Position(d.Span.Start), d.Severity, d.Code, d.Message)
	}
	return b.String()
}

// TestEvalGolden evaluates a "rule" (single query) or a "program" over the
// case's data and compares the JSON result and the diagnostics. Every
// case is evaluated twice to pin determinism.
func TestEvalGolden(t *testing.T) {
	golden.Run(t, "../../testdata/datalog/eval/*.txtar", func(t *testing.T, c *golden.Case) {
		db := loadCase(t, c)
		ctx := context.Background()
		var out, diags string
		for i := range 2 {
			var got any
			var ds []syntax.Diagnostic
			var src string
			if c.Has("rule") {
				src = c.Input("rule")
				res, err := EvalRule(ctx, db, src)
				if err != nil {
					t.Fatal(err)
				}
				got, ds = res.Tuples, res.Diagnostics
				if syntax.HasErrors(ds) {
					got = nil
				}
			} else {
				src = c.Input("program")
				res, err := EvalProgram(ctx, db, "program", src)
				if err != nil {
					t.Fatal(err)
				}
				got, ds = res.Relations, res.Diagnostics
			}
			b, _ := json.MarshalIndent(got, "", "  ")
			o, d := string(b)+"\n", formatDiags(src, ds)
			if i == 1 && (o != out || d != diags) {
				t.Fatalf("second evaluation differs:\n%s\n%s", o, d)
			}
			out, diags = o, d
		}
		c.Want("out", out)
		c.Want("diagnostics", diags)
	})
}
