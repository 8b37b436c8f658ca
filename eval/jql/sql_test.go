//go:build !wasm

// The SQL engines (modernc.org/sqlite, pgx) do not build for WebAssembly.

package jql_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/engine"
	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/internal/pgtest"
	"github.com/ctxql/ctxql/sqlgen"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// TestSQLDifferential runs generated queries (the generator of
// TestDifferential) over generated data in process and compiled to SQL in
// SQLite (modernc.org/sqlite) and in a temporary PostgreSQL cluster: the
// result documents must be the same bytes in the same order, and a query
// the evaluator refuses (a cursor naming no document) must be refused
// after the engine's cursor check too.
func TestSQLDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts databases")
	}
	ctx := context.Background()
	engines := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "jql.db")}
	engines["postgres"] = pgtest.Start(t)
	for name, url := range engines {
		sqlDifferential(t, ctx, name, url, nil)
		sqlDifferential(t, ctx, name+"/mapped", url, flatMapping("all"))
		sqlDifferential(t, ctx, name+"/mapped-nodes", url, flatMapping("mapped"))
	}
}

// flatMapping flattens every filterable path of the generated data
// (TestSQLDifferential's second and third run): fields that are one value
// in some documents, several or an array in others, or missing. nodes is
// the mapping's nodes setting: all, or mapped (the node table holds only
// the mapped fields' several values).
func flatMapping(nodes string) sqlgen.JQLMapping {
	var b strings.Builder
	for _, dom := range []string{"activities", "sessions"} {
		fmt.Fprintf(&b, "%s:\n  nodes: %s\n  columns:\n", dom, nodes)
		seen := map[string]bool{}
		for i, f := range filterable[dom] {
			p := strings.ReplaceAll(f[0], "[]", "")
			if !seen[p] {
				seen[p] = true
				fmt.Fprintf(&b, "    %q: f%d\n", p, i)
			}
		}
	}
	m, err := sqlgen.ParseJQLMapping([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return m
}

// sqlDifferential is one engine's run of TestSQLDifferential, over tables
// loaded with the mapping m.
func sqlDifferential(t *testing.T, ctx context.Context, name, url string, m sqlgen.JQLMapping) {
	t.Run(name, func(t *testing.T) {
		db, err := engine.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		queries, docs, refused := 0, 0, 0
		flatSingle, flatMulti := 0, 0 // fields of a data set held as one value, as several
		for seed := uint64(1); seed <= 12; seed++ {
			g := &gen{r: rand.New(rand.NewPCG(seed, 0x6a716c))}
			mem := evjql.Memory{}
			for _, dom := range []string{"activities", "sessions"} {
				for i := range g.r.IntN(40) {
					mem[dom] = append(mem[dom], []byte(g.doc(dom, i)))
				}
			}
			if seed <= 3 {
				// Arrays where strings belong: empty, nested, of another kind.
				mem["activities"] = append(mem["activities"], []byte(`{"id":"e1","type":[],"title":[[]],"message":[["Hello"]],"artifacts":[[{"exitCode":[]}]],"createTime":"2024-01-01T00:00:00Z"}`))
				mem["sessions"] = append(mem["sessions"], []byte(`{"id":"se1","state":[],"title":[[],[null]],"createTime":[]}`))
			}
			loadMemory(t, ctx, db, mem, m)
			if m != nil {
				// The mapped fields hold single values in some documents
				// and several in others: both ways of answering run.
				for _, f := range m["activities"] {
					if f.Column == "" {
						continue // nodes: mapped
					}
					rows, err := db.Rows(ctx, fmt.Sprintf("SELECT %[1]s_kind = 'multi', count(*) FROM activities WHERE %[1]s_kind IS NOT NULL GROUP BY %[1]s_kind = 'multi'", f.Column))
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range rows {
						if multi := fmt.Sprint(r[0]); multi == "true" || multi == "1" {
							flatMulti++
						} else {
							flatSingle++
						}
					}
				}
			}
			srcs := pointedQueries(seed)
			for range 25 {
				srcs = append(srcs, g.render(g.query(mem), "json"))
			}
			for _, src := range srcs {
				want, werr := evjql.Eval(ctx, src, mem)
				got, gerr := sqlEval(ctx, db, src, m)
				switch {
				case werr != nil || gerr != nil:
					var wq, gq *evjql.QueryError
					if !errors.As(werr, &wq) || !errors.As(gerr, &gq) || werr.Error() != gerr.Error() {
						t.Fatalf("seed %d: in process %v, %s %v\nquery: %s", seed, werr, name, gerr, src)
					}
					refused++
				case !equalDocs(want.Docs, got.Docs):
					t.Fatalf("seed %d: results differ\nquery: %s\nin process:\n%s\n%s:\n%s\ndata:\n%s", seed, src,
						bytes.Join(want.Docs, []byte("\n")), name, bytes.Join(got.Docs, []byte("\n")), dumpData(mem[queryDomain(src)]))
				case len(want.Warnings) != len(got.Warnings):
					t.Fatalf("seed %d: %d warnings in process, %d in %s\nquery: %s", seed, len(want.Warnings), len(got.Warnings), name, src)
				default:
					docs += len(want.Docs)
				}
				queries++
			}
		}
		if queries < 1000 || docs < 1000 || m != nil && (flatSingle < 50 || flatMulti < 10) {
			t.Fatalf("only %d queries, %d documents compared (flattened fields: %d single, %d several)", queries, docs, flatSingle, flatMulti)
		}
		t.Logf("%s: %d generated queries, %d result documents identical, %d refused alike", name, queries, docs, refused)
	})
}

// pointedQueries are, for a few seeds, queries of every filterable path
// with the operators whose edge cases generated queries seldom reach:
// contains across case and Unicode folding, neq and comparisons on arrays
// and values of other kinds, exists on empty arrays, times spelled alike.
func pointedQueries(seed uint64) []string {
	if seed > 3 {
		return nil
	}
	ops := []string{
		`{"contains": "hello"}`, `{"contains": "HÉLLO"}`, `{"contains": "npm t"}`, `{"contains": "k"}`, `{"contains": "i̇stanbul"}`, `{"contains": ""}`,
		`{"neq": "x"}`, `{"neq": 3}`, `{"neq": null}`, `{"exists": false}`, `{"exists": true}`, `{"eq": "2024-01-01T01:00:00+01:00"}`,
		`{"gte": "2024-01-01T00:00:00Z", "lt": "9999-12-31T23:59:59Z"}`, `{"gt": "s"}`, `{"lte": 3}`, `{"in": [1, "s-1", true, null]}`,
	}
	var out []string
	for _, dom := range []string{"activities", "sessions"} {
		for _, f := range filterable[dom] {
			for i, op := range ops {
				order := []string{"asc", "desc"}[i%2]
				out = append(out, fmt.Sprintf(`{"from": %q, "where": {%q: %s}, "order": %q, "limit": 1000}`, dom, f[0], op, order))
			}
		}
	}
	return out
}

func queryDomain(src string) string {
	q, _ := syn.ParseQuery(src)
	return q.Domain()
}

func equalDocs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// loadMemory replaces the engine's tables with the documents of mem.
func loadMemory(t *testing.T, ctx context.Context, db *engine.DB, mem evjql.Memory, m sqlgen.JQLMapping) {
	t.Helper()
	var tables []sqlgen.Table
	for _, dom := range sqlgen.JQLDomains() {
		tables = append(tables, sqlgen.JQLTablesMapped(dom, m[dom])...)
	}
	_, err := db.Load(ctx, tables, func(emit func(string, []any) error) error {
		for _, dom := range sqlgen.JQLDomains() {
			for i, d := range mem[dom] {
				if err := sqlgen.JQLRowsMapped(dom, int64(i), d, m[dom], emit); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sqlEval is what `ctxql eval jql --engine` does: compile, check the
// cursor, run, project.
func sqlEval(ctx context.Context, db *engine.DB, src string, m sqlgen.JQLMapping) (*evjql.Result, error) {
	q, ds := syn.ParseQuery(src)
	c, err := sqlgen.CompileJQLMapped(q, ds, db.Dialect(), m)
	if err != nil {
		return nil, err
	}
	if c.CursorSQL != "" {
		n, err := db.Texts(ctx, c.CursorSQL)
		if err != nil {
			return nil, err
		}
		if len(n) != 1 {
			return nil, fmt.Errorf("cursor check: %d rows", len(n))
		}
		if k, _ := strconv.Atoi(strings.TrimSpace(string(n[0]))); k == 0 {
			return nil, evjql.CursorError(q)
		}
	}
	rows, err := db.Texts(ctx, c.SQL)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, c.SQL)
	}
	return evjql.Finish(ctx, q, ds, rows, evjql.Options{})
}

// TestSQLDifferentialDuckDB is TestSQLDifferential's generated queries
// compiled to DuckDB's SQL and run in DuckDB (through @duckdb/node-api,
// one process per data set): the same result documents, byte for byte,
// in the same order.
func TestSQLDifferentialDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	duckdbtest.Available(t)
	ctx := context.Background()
	queries, docs, refused := 0, 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(seed, 0x6a716c))}
		mem := evjql.Memory{}
		for _, dom := range []string{"activities", "sessions"} {
			for i := range g.r.IntN(40) {
				mem[dom] = append(mem[dom], []byte(g.doc(dom, i)))
			}
		}
		mem["activities"] = append(mem["activities"], []byte(`{"id":"e1","type":[],"title":[[]],"message":[["Hello"]],"artifacts":[[{"exitCode":[]}]],"createTime":"2024-01-01T00:00:00Z"}`))
		var setup []string
		for _, dom := range sqlgen.JQLDomains() {
			tables := map[string]sqlgen.Table{}
			rows := map[string][][]any{}
			for _, tb := range sqlgen.JQLTables(dom) {
				setup = append(setup, tb.Create(sqlgen.DuckDB)[1:]...)
				tables[tb.Name] = tb
			}
			for i, d := range mem[dom] {
				err := sqlgen.JQLRows(dom, int64(i), d, func(table string, row []any) error {
					rows[table] = append(rows[table], row)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			// One statement per table: DuckDB takes milliseconds a statement.
			for name, rs := range rows {
				s, err := tables[name].InsertLiterals(sqlgen.DuckDB, rs)
				if err != nil {
					t.Fatal(err)
				}
				setup = append(setup, s)
			}
		}
		// Every third pointed query of the first data set: DuckDB takes
		// some milliseconds a query.
		var srcs []string
		for i, src := range pointedQueries(seed) {
			if seed == 1 && i%3 == 0 {
				srcs = append(srcs, src)
			}
		}
		for range 40 {
			srcs = append(srcs, g.render(g.query(mem), "json"))
		}
		// Each query's cursor count (or a constant) and its SELECT.
		type compiled struct {
			src string
			q   *syn.Query
			ds  []syntax.Diagnostic
			err error
		}
		var cs []compiled
		var sqls []string
		for _, src := range srcs {
			q, ds := syn.ParseQuery(src)
			c, err := sqlgen.CompileJQL(q, ds, sqlgen.DuckDB)
			cs = append(cs, compiled{src, q, ds, err})
			if err != nil {
				continue
			}
			cur := c.CursorSQL
			if cur == "" {
				cur = "SELECT 1"
			}
			sqls = append(sqls, cur, c.SQL)
		}
		results, err := duckdbtest.Run(t, setup, sqls)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			want, werr := evjql.Eval(ctx, c.src, mem)
			var got *evjql.Result
			gerr := c.err
			if gerr == nil {
				count, rows := results[0], results[1]
				results = results[2:]
				if *count[0][0] == "0" {
					gerr = evjql.CursorError(c.q)
				} else {
					var docs [][]byte
					for _, r := range rows {
						docs = append(docs, []byte(*r[0]))
					}
					got, gerr = evjql.Finish(ctx, c.q, c.ds, docs, evjql.Options{})
				}
			}
			switch {
			case werr != nil || gerr != nil:
				if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
					t.Fatalf("seed %d: in process %v, duckdb %v\nquery: %s", seed, werr, gerr, c.src)
				}
				refused++
			case !equalDocs(want.Docs, got.Docs):
				t.Fatalf("seed %d: results differ\nquery: %s\nin process:\n%s\nduckdb:\n%s", seed, c.src,
					bytes.Join(want.Docs, []byte("\n")), bytes.Join(got.Docs, []byte("\n")))
			default:
				docs += len(want.Docs)
			}
			queries++
		}
	}
	if queries < 300 || docs < 1000 {
		t.Fatalf("only %d queries, %d documents compared", queries, docs)
	}
	t.Logf("duckdb: %d generated queries, %d result documents identical, %d refused alike", queries, docs, refused)
}
