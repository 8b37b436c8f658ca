package sqlgen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/sqlgen"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// TestDatalogGolden compiles the program of each testdata/datalog
// archive, checked against the relations of its "schema" section (one
// "name: Type, Type" a line), to every dialect: the statements of its
// derived relations as `ctxql compile datalog` prints them (a semi-naive
// script first when the recursion needs one), or the refusal.
func TestDatalogGolden(t *testing.T) {
	golden.Run(t, "testdata/datalog/*.txtar", func(t *testing.T, c *golden.Case) {
		schema := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(c.Input("schema")), "\n") {
			name, types, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("schema line %q", line)
			}
			for _, ty := range strings.Split(types, ",") {
				schema[strings.TrimSpace(name)] = append(schema[strings.TrimSpace(name)], strings.TrimSpace(ty))
			}
		}
		prog := syn.ParseProgram("p.dl", c.Input("program"))
		info := syn.Check(prog, schema)
		if len(prog.Diagnostics)+len(info.Diagnostics) > 0 {
			t.Fatalf("%v %v", prog.Diagnostics, info.Diagnostics)
		}
		var outputs []string
		for _, st := range info.Strata {
			outputs = append(outputs, st...)
		}
		for _, d := range sqlgen.Dialects() {
			var b strings.Builder
			var rels []sqlgen.DatalogRelation
			var err error
			if sqlgen.NeedsScript(prog, info) {
				var sc *sqlgen.Script
				sc, rels, err = sqlgen.CompileDatalogScript(prog, info, schema, d, outputs)
				if err == nil {
					b.WriteString(sc.Text() + "\n")
				}
			} else {
				rels, err = sqlgen.CompileDatalog(prog, info, schema, d, outputs)
			}
			var de *sqlgen.DatalogError
			switch {
			case errors.As(err, &de):
				b.WriteString(prog.File.Position(de.Span.Start).String() + ": " + err.Error() + "\n")
			case err != nil:
				t.Fatal(err)
			}
			for _, r := range rels {
				b.WriteString("-- " + r.Name + "\n" + r.SQL + ";\n")
			}
			c.Want(string(d), b.String())
		}
	})
}

// TestRefused reads the refusal a failing statement carries, and nothing
// from other errors.
func TestRefused(t *testing.T) {
	err := errors.New(`engine: ERROR: invalid input syntax for type integer: "[ctxql refuses: agg n = sum(v) in r(x, v)|a value is not an integer]" (SQLSTATE 22P02)`)
	u := sqlgen.Refused(err, sqlgen.Postgres)
	if u == nil || u.Construct != "agg n = sum(v) in r(x, v)" || u.Why != "a value is not an integer" || u.Dialect != sqlgen.Postgres {
		t.Fatalf("%#v", u)
	}
	want := "agg n = sum(v) in r(x, v) cannot be compiled to postgres: a value is not an integer"
	if u.Error() != want {
		t.Fatalf("%q, want %q", u.Error(), want)
	}
	u = sqlgen.Refused(errors.New(`engine: SQL logic error: bad JSON path: '[ctxql refuses: let q = x|it''s why]' (1)`), sqlgen.SQLite)
	if u == nil || u.Construct != "let q = x" || u.Why != "it's why" {
		t.Fatalf("%#v", u)
	}
	if u := sqlgen.Refused(errors.New("engine: SQL logic error: bad JSON path: 'x' (1)"), sqlgen.SQLite); u != nil {
		t.Fatalf("%#v", u)
	}
}
