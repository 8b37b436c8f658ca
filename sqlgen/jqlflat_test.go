//go:build !wasm

package sqlgen_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/sqlgen"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// flatFields are the fields TestFlatDuckDB keeps in columns, with the
// values a document may hold there: one of each JSON kind, times spelled
// two ways, and (through arrays) several.
var flatFields = []string{"sessionId", "type", "plan.steps.index", "artifacts.exitCode"}

var flatValues = []string{`"s-1"`, `"s-2"`, `"S-1"`, `0`, `1`, `2.5`, `true`, `false`, `null`, `[]`, `[[]]`,
	`"2024-01-01T00:00:00Z"`, `"2024-01-01T01:00:00+01:00"`, `"progressUpdated"`}

// flatDoc is a generated activity: each field of flatFields missing, one
// value, an array, or (under an array of objects) one or several values.
func flatDoc(r *rand.Rand, i int) string {
	val := func() string {
		if r.IntN(4) == 0 {
			return "[" + flatValues[r.IntN(len(flatValues))] + ", " + flatValues[r.IntN(len(flatValues))] + "]"
		}
		return flatValues[r.IntN(len(flatValues))]
	}
	parts := []string{fmt.Sprintf(`"id": "a%d"`, i), fmt.Sprintf(`"createTime": "2024-01-0%dT00:00:00Z"`, 1+r.IntN(3))}
	for _, f := range flatFields[:2] {
		if r.IntN(5) > 0 {
			parts = append(parts, fmt.Sprintf("%q: %s", f, val()))
		}
	}
	// plan.steps (an object or an array of them) and artifacts (an
	// array of objects): zero, one or several values at the path.
	nested := func(inner string) string {
		var objs []string
		for range r.IntN(4) {
			if r.IntN(4) == 0 {
				objs = append(objs, `{}`)
			} else {
				objs = append(objs, fmt.Sprintf("{%q: %s}", inner, val()))
			}
		}
		if len(objs) == 1 && r.IntN(2) == 0 {
			return objs[0]
		}
		return "[" + strings.Join(objs, ", ") + "]"
	}
	if r.IntN(5) > 0 {
		parts = append(parts, `"plan": {"steps": `+nested("index")+`}`)
	}
	if r.IntN(5) > 0 {
		parts = append(parts, `"artifacts": `+nested("exitCode"))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// TestFlatDuckDB runs queries on the fields of a flat mapping (`nodes:
// mapped`, flatFields in columns) compiled to DuckDB's SQL over tables
// loaded with that mapping, and in process over the same documents: the
// result documents must be the same bytes in the same order. The queries
// test every field with every operator, then two or three fields at
// once, some after a cursor, with small limits (each part of the
// compiled union is cut to the limit before the union is). The data has
// documents where the fields tested hold one value and where they hold
// several (counted).
func TestFlatDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	duckdbtest.Available(t)
	ctx := context.Background()
	var src strings.Builder
	src.WriteString("activities:\n  nodes: mapped\n  columns:\n")
	for i, f := range flatFields {
		fmt.Fprintf(&src, "    %s: f%d\n", f, i)
	}
	m, err := sqlgen.ParseJQLMapping([]byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(34, 0x666c6174))
	mem := evjql.Memory{}
	for i := range 300 {
		mem["activities"] = append(mem["activities"], []byte(flatDoc(r, i)))
	}
	tables := map[string]sqlgen.Table{}
	var setup []string
	for _, tb := range sqlgen.JQLTablesMapped("activities", m["activities"]) {
		setup = append(setup, tb.Create(sqlgen.DuckDB)[1:]...)
		tables[tb.Name] = tb
	}
	rows := map[string][][]any{}
	single, several := 0, 0
	for i, d := range mem["activities"] {
		err := sqlgen.JQLRowsMapped("activities", int64(i), d, m["activities"], func(table string, row []any) error {
			if table == "activities" {
				// The kinds of the flattened fields: every sixth column
				// from the first field's kind on.
				for k := len(tables[table].Columns) - 6*len(flatFields) + 1; k < len(row); k += 6 {
					switch row[k] {
					case nil:
					case "multi":
						several++
					default:
						single++
					}
				}
			}
			rows[table] = append(rows[table], row)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, rs := range rows {
		s, err := tables[name].InsertLiterals(sqlgen.DuckDB, rs)
		if err != nil {
			t.Fatal(err)
		}
		setup = append(setup, s)
	}
	ops := []string{`"s-1"`, `{"neq": "s-1"}`, `0`, `{"neq": 0}`, `{"in": [1, "s-2", true, null]}`, `{"contains": "s-"}`,
		`{"gt": 0.5}`, `{"lte": "s-1"}`, `{"gte": "2024-01-01T00:30:00Z"}`, `{"eq": "2024-01-01T00:00:00Z"}`, `null`, `false`,
		`{"exists": true}`, `{"exists": false}`, `{"neq": 1, "lt": 3}`, `{"exists": true, "neq": "s-2"}`}
	var srcs []string
	for _, f := range flatFields {
		for i, op := range ops {
			srcs = append(srcs, fmt.Sprintf(`{"from": "activities", "where": {%q: %s}, "order": %q, "limit": %d}`, f, op, []string{"asc", "desc"}[i%2], 1+i%7*40))
		}
	}
	for i := range 300 {
		var conds []string
		for _, k := range r.Perm(len(flatFields))[:2+r.IntN(2)] {
			conds = append(conds, fmt.Sprintf("%q: %s", flatFields[k], ops[r.IntN(len(ops))]))
		}
		cursor := ""
		if i%3 == 0 {
			cursor = fmt.Sprintf(`, "startAfter": "a%d"`, r.IntN(300))
		}
		srcs = append(srcs, fmt.Sprintf(`{"from": "activities", "where": {%s}, "order": %q, "limit": %d%s}`,
			strings.Join(conds, ", "), []string{"asc", "desc"}[r.IntN(2)], 1+r.IntN(5), cursor))
	}
	type compiled struct {
		src string
		q   *syn.Query
		c   *sqlgen.JQLQuery
	}
	var cs []compiled
	var sqls []string
	refused := 0
	for _, s := range srcs {
		q, ds := syn.ParseQuery(s)
		c, err := sqlgen.CompileJQLMapped(q, ds, sqlgen.DuckDB, m)
		if err != nil {
			// A query the evaluator refuses (an operator the field's
			// type has not) is refused alike.
			if _, werr := evjql.Eval(ctx, s, mem); werr == nil || werr.Error() != err.Error() {
				t.Fatalf("%s: compiled: %v, in process: %v", s, err, werr)
			}
			refused++
			continue
		}
		cur := c.CursorSQL
		if cur == "" {
			cur = "SELECT 1"
		}
		cs = append(cs, compiled{s, q, c})
		sqls = append(sqls, cur, c.SQL)
	}
	results, err := duckdbtest.Run(t, setup, sqls)
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for i, c := range cs {
		count, rows := results[2*i], results[2*i+1]
		want, werr := evjql.Eval(ctx, c.src, mem)
		if werr != nil {
			t.Fatalf("%s: in process: %v", c.src, werr)
		}
		if *count[0][0] == "0" {
			t.Fatalf("%s: DuckDB finds no document the cursor names", c.src)
		}
		var got [][]byte
		for _, row := range rows {
			got = append(got, []byte(*row[0]))
		}
		res, err := evjql.Finish(ctx, c.q, nil, got, evjql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(res.Docs, want.Docs, bytes.Equal) {
			t.Fatalf("results differ\nquery: %s\nSQL:\n%s\nin process:\n%s\nduckdb:\n%s", c.src, c.c.SQL,
				bytes.Join(want.Docs, []byte("\n")), bytes.Join(res.Docs, []byte("\n")))
		}
		docs += len(want.Docs)
	}
	if len(cs) < 150 || docs < 2000 || single < 300 || several < 100 {
		t.Fatalf("only %d queries, %d documents compared (fields of single values %d, of several %d)", len(cs), docs, single, several)
	}
	t.Logf("duckdb, nodes: mapped: %d queries, %d result documents identical, %d refused alike (fields of single values %d, of several %d)",
		len(cs), docs, refused, single, several)
}
