package format

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	evaldl "github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestDatalogGolden formats the "input.dl" section of each archive under
// testdata/format/datalog and compares with "output"; the output must be
// a fixed point and parse to the same program.
func TestDatalogGolden(t *testing.T) {
	golden.Run(t, "../testdata/format/datalog/*.txtar", func(t *testing.T, c *golden.Case) {
		in := c.Input("input.dl")
		wantFormatted(t, c, "f.dl", in, func(out []byte) { checkDatalog(t, in, out) })
	})
}

// checkDatalog requires out, the formatting of in, to be idempotent, to
// end in exactly one newline (or be empty) and to parse to a program equal
// to in's modulo spans and literal spelling, comments included.
func checkDatalog(t *testing.T, in string, out []byte) {
	t.Helper()
	again, err := Datalog(out)
	if err != nil {
		t.Fatalf("formatted text does not format: %v\n%s", err, out)
	}
	if string(again) != string(out) {
		t.Fatalf("not idempotent:\n%s\nthen\n%s", out, again)
	}
	if len(out) > 0 && (!strings.HasSuffix(string(out), "\n") || strings.HasSuffix(string(out), "\n\n")) {
		t.Fatalf("output does not end in exactly one newline: %q", out)
	}
	a, b := datalog.ParseProgram("", in), datalog.ParseProgram("", string(out))
	if ka, kb := datalogKey(a), datalogKey(b); ka != kb {
		t.Fatalf("formatted program differs:\n%s\nvs\n%s", ka, kb)
	}
}

// datalogSources returns every Datalog text of the repository's test data:
// the rule, program and input sections of the Datalog archives, every
// section named *.dl, and every .dl file.
func datalogSources(t *testing.T) map[string]string {
	t.Helper()
	srcs := map[string]string{}
	archives, _ := filepath.Glob("../testdata/datalog/*/*.txtar")
	more, _ := filepath.Glob("../syntax/datalog/testdata/*/*.txtar")
	archives = append(archives, more...)
	for _, p := range archives {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "rule" || f.Name == "program" || f.Name == "input" || strings.HasSuffix(f.Name, ".dl") {
				srcs[p+":"+f.Name] = string(f.Data)
			}
		}
	}
	_ = filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".dl") {
			if b, err := os.ReadFile(p); err == nil {
				srcs[p] = string(b)
			}
		}
		return nil
	})
	return srcs
}

// TestDatalogCorpus formats every Datalog text in the repository: those
// that parse format idempotently to an equal program, those that do not
// are refused with a SyntaxError.
func TestDatalogCorpus(t *testing.T) {
	srcs := datalogSources(t)
	if len(srcs) < 50 {
		t.Fatalf("only %d Datalog sources found", len(srcs))
	}
	formatted := 0
	for name, src := range srcs {
		out, err := Datalog([]byte(src))
		if syntax.HasErrors(datalog.ParseProgram("", src).Diagnostics) {
			var se *SyntaxError
			if !errors.As(err, &se) || len(se.Diagnostics) == 0 {
				t.Errorf("%s: want a SyntaxError, got %v", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkDatalog(t, src, out)
		formatted++
	}
	t.Logf("%d Datalog sources, %d formatted", len(srcs), formatted)
	if formatted < 40 {
		t.Fatalf("only %d Datalog sources formatted", formatted)
	}
}

// TestDatalogMeaning evaluates every rule and program of the evaluator's
// goldens before and after formatting over the case's data and requires
// the same tuples and the same diagnostics (modulo positions).
func TestDatalogMeaning(t *testing.T) {
	archives, _ := filepath.Glob("../testdata/datalog/*/*.txtar")
	ctx := context.Background()
	compared, nonEmpty := 0, 0
	for _, p := range archives {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var data, rule, program string
		for _, f := range a.Files {
			switch f.Name {
			case "data.json":
				data = string(f.Data)
			case "rule":
				rule = string(f.Data)
			case "program":
				program = string(f.Data)
			}
		}
		if data == "" {
			continue
		}
		d, err := evaldl.ReadJSON(strings.NewReader(data))
		if err != nil {
			continue
		}
		db, err := evaldl.Load(d)
		if err != nil {
			continue
		}
		for _, src := range []string{rule, program} {
			if src == "" {
				continue
			}
			out, err := Datalog([]byte(src))
			if err != nil {
				continue // unparseable sources are covered by TestDatalogCorpus
			}
			if src == rule {
				before, err1 := evaldl.EvalRule(ctx, db, src)
				after, err2 := evaldl.EvalRule(ctx, db, string(out))
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v %v", p, err1, err2)
				}
				if !reflect.DeepEqual(before.Tuples, after.Tuples) || diagKey(before.Diagnostics) != diagKey(after.Diagnostics) {
					t.Errorf("%s: rule results differ after formatting:\n%v %s\n%v %s", p, before.Tuples, diagKey(before.Diagnostics), after.Tuples, diagKey(after.Diagnostics))
				}
				if len(before.Tuples) > 0 {
					nonEmpty++
				}
			} else {
				before, err1 := evaldl.EvalProgram(ctx, db, "p", src)
				after, err2 := evaldl.EvalProgram(ctx, db, "p", string(out))
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v %v", p, err1, err2)
				}
				if !reflect.DeepEqual(before.Relations, after.Relations) || diagKey(before.Diagnostics) != diagKey(after.Diagnostics) {
					t.Errorf("%s: program results differ after formatting:\n%v\n%v", p, before.Relations, after.Relations)
				}
				if len(before.Relations) > 0 {
					nonEmpty++
				}
			}
			compared++
		}
	}
	t.Logf("%d sources compared, %d with non-empty results", compared, nonEmpty)
	if compared < 20 || nonEmpty < 10 {
		t.Fatalf("compared %d sources, %d with non-empty results; want at least 20 and 10", compared, nonEmpty)
	}
}

// diagKey renders diagnostics without positions.
func diagKey(ds []syntax.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Severity.String() + " " + d.Code + " " + d.Message + "\n")
	}
	return b.String()
}

// FuzzDatalog formats arbitrary text: no panic; a program that parses
// formats to text that parses to an equal program and formats to itself.
func FuzzDatalog(f *testing.F) {
	archives, _ := filepath.Glob("../testdata/format/datalog/*.txtar")
	for _, p := range archives {
		a, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range a.Files {
			if file.Name == "input.dl" {
				f.Add(string(file.Data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := Datalog([]byte(src))
		canonical, cerr := DatalogIsCanonical([]byte(src))
		if syntax.HasErrors(datalog.ParseProgram("", src).Diagnostics) {
			var se, cse *SyntaxError
			if !errors.As(err, &se) || !errors.As(cerr, &cse) {
				t.Fatalf("want a SyntaxError, got %v and %v", err, cerr)
			}
			return
		}
		if err != nil || cerr != nil {
			t.Fatalf("%q: %v, %v", src, err, cerr)
		}
		if canonical != (string(out) == src) {
			t.Fatalf("%q: DatalogIsCanonical says %v, Datalog returns %q", src, canonical, out)
		}
		// The output is canonical, and no text that only starts like it.
		for _, text := range []string{string(out), string(out) + "\n", string(out) + "// c\n", strings.TrimSuffix(string(out), "\n")} {
			again, aerr := Datalog([]byte(text))
			c, cerr := DatalogIsCanonical([]byte(text))
			if aerr != nil || cerr != nil || c != (string(again) == text) {
				t.Fatalf("%q: DatalogIsCanonical says %v (%v), Datalog returns %q (%v)", text, c, cerr, again, aerr)
			}
		}
		checkDatalog(t, src, out)
	})
}
