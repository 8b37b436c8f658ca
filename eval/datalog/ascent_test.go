package datalog

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/format"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// TestAscentCorpus evaluates the programs of testdata/datalog/ascent,
// one construct of the Ascent language each. Every archive holds the
// program, its data, the results a reader works out by hand ("expect":
// relation -> tuples, for the relations it names; "{}" when the program
// must fail) and the goldens of the whole result ("out") and of the
// diagnostics. The canonical form of the program (see format.Datalog)
// must evaluate to the same result.
func TestAscentCorpus(t *testing.T) {
	golden.Run(t, "../../testdata/datalog/ascent/*.txtar", func(t *testing.T, c *golden.Case) {
		db := loadCase(t, c)
		src := c.Input("program")
		res, err := EvalProgram(context.Background(), db, "program", src)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(res.Relations, "", "  ")
		c.Want("out", string(b)+"\n")
		c.Want("diagnostics", formatDiags(src, res.Diagnostics))
		var expect map[string][][]string
		if err := json.Unmarshal([]byte(c.Input("expect")), &expect); err != nil {
			t.Fatalf("expect: %v", err)
		}
		if len(expect) == 0 && !syntax.HasErrors(res.Diagnostics) {
			t.Errorf("expected errors, got none")
		}
		for rel, want := range expect {
			got := res.Relations[rel]
			if got == nil {
				got = [][]string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s = %v, want %v", rel, got, want)
			}
		}
		formatted, err := format.Datalog([]byte(src))
		if err != nil {
			t.Fatalf("format: %v", err)
		}
		again, err := format.Datalog(formatted)
		if err != nil || string(again) != string(formatted) {
			t.Fatalf("format is not idempotent: %v\n%s\n%s", err, formatted, again)
		}
		res2, err := EvalProgram(context.Background(), loadCase(t, c), "program", string(formatted))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Relations, res2.Relations) || syntax.HasErrors(res.Diagnostics) != syntax.HasErrors(res2.Diagnostics) {
			t.Errorf("the formatted program evaluates differently:\n%s", formatted)
		}
	})
}

// TestRefusedCorpus parses the programs of testdata/datalog/refused,
// each using one construct of Ascent that needs the Rust host: exactly
// one error, of code datalog/rust, at the line and column the archive's
// "at" section names (the construct's first token).
func TestRefusedCorpus(t *testing.T) {
	golden.Run(t, "../../testdata/datalog/refused/*.txtar", func(t *testing.T, c *golden.Case) {
		src := c.Input("program")
		res, err := EvalProgram(context.Background(), loadCase(t, c), "program", src)
		if err != nil {
			t.Fatal(err)
		}
		c.Want("diagnostics", formatDiags(src, res.Diagnostics))
		var errs []syntax.Diagnostic
		for _, d := range res.Diagnostics {
			if d.Severity == syntax.SeverityError {
				errs = append(errs, d)
			}
		}
		if len(errs) != 1 {
			t.Fatalf("want one error, got %d: %v", len(errs), errs)
		}
		f := syntax.NewFile("x", src)
		at := strings.TrimSpace(c.Input("at"))
		if errs[0].Code != "datalog/rust" || f.Position(errs[0].Span.Start).String() != at {
			t.Errorf("error %s %s at %s, want datalog/rust at %s", errs[0].Code, errs[0].Message, f.Position(errs[0].Span.Start), at)
		}
	})
}

// TestNumericColumns pins what DL011 reads from the data: a column is
// numeric when it holds values and each is a plain decimal number.
func TestNumericColumns(t *testing.T) {
	db, err := Load(&Data{Relations: map[string]*RelationData{
		"e":     {ParamTypes: []string{"Node", "Node", "Node"}, Tuples: [][]string{{"9", "x", "1e3"}, {"10", "2", "-0.5"}}},
		"empty": {ParamTypes: []string{"Node"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := db.NumericColumns()
	want := map[string][]bool{"e": {true, false, true}, "empty": {false}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NumericColumns = %v, want %v", got, want)
	}
}
