package jql_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/internal/pgtest"
	"github.com/ctxql/ctxql/sqlgen"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// handSQL is benchQuery written by hand over the same tables: one
// semi-join per condition on the node table, the sort key's index.
const handSQL = `SELECT t.doc FROM activities AS t
WHERE t.ord IN (SELECT ord FROM activities_nodes WHERE path = '["sessionId"]' AND str = 's-42')
  AND t.ord IN (SELECT ord FROM activities_nodes WHERE path = '["type"]' AND str = 'progressUpdated')
  AND t.ord IN (SELECT ord FROM activities_nodes WHERE path = '["artifacts","exitCode"]' AND kind <> 'array' AND NOT (kind = 'number' AND num = 0))
ORDER BY t.ct_rank DESC, t.ct_sec DESC, t.ct_nsec DESC, t.ct_str DESC, t.id, t.ord
LIMIT 100`

// BenchmarkSQLCompiledVsHand runs benchQuery compiled by ctxql and the
// same query written by hand (handSQL) in SQLite and, with
// JQL_SQL_POSTGRES=1, a temporary PostgreSQL cluster and, with
// JQL_SQL_DUCKDB=1, DuckDB (through @duckdb/node-api), over JQL_SQL_N
// activities (default 20,000) loaded with the layout of docs/sql.md; both
// must return the same documents. It prints the time of each and their
// ratio (the goal: compiled within 1.25x of hand-written).
func BenchmarkSQLCompiledVsHand(b *testing.B) {
	n := 20000
	if s := os.Getenv("JQL_SQL_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		n = v
	}
	dir := b.TempDir()
	data := filepath.Join(dir, "activities.jsonl")
	generate(b, data, n)
	ctx := context.Background()
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(dir, "a.db")}
	if os.Getenv("JQL_SQL_POSTGRES") != "" {
		urls["postgres"] = pgtest.Start(b)
	}
	if os.Getenv("JQL_SQL_DUCKDB") != "" {
		b.Run("duckdb", func(b *testing.B) { benchDuckDB(b, dir, data) })
	}
	for name, url := range urls {
		b.Run(name, func(b *testing.B) {
			db, err := engine.Open(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			load(b, ctx, db, data)
			q, ds := syn.ParseQuery(benchQuery)
			c, err := sqlgen.CompileJQL(q, ds, db.Dialect())
			if err != nil {
				b.Fatal(err)
			}
			compiled, err := db.Texts(ctx, c.SQL)
			if err != nil {
				b.Fatal(err)
			}
			hand, err := db.Texts(ctx, handSQL)
			if err != nil {
				b.Fatal(err)
			}
			if len(compiled) == 0 || !slices.EqualFunc(compiled, hand, func(x, y []byte) bool { return string(x) == string(y) }) {
				b.Fatalf("compiled and hand-written SQL disagree: %d and %d rows", len(compiled), len(hand))
			}
			var tc, th time.Duration
			b.ResetTimer()
			run := func(query string, total *time.Duration) {
				start := time.Now()
				if _, err := db.Texts(ctx, query); err != nil {
					b.Fatal(err)
				}
				*total += time.Since(start)
			}
			// The two in turns, each first every other round.
			for i := range b.N {
				if i%2 == 0 {
					run(c.SQL, &tc)
					run(handSQL, &th)
				} else {
					run(handSQL, &th)
					run(c.SQL, &tc)
				}
			}
			b.ReportMetric(float64(tc.Microseconds())/float64(b.N)/1000, "compiled-ms/op")
			b.ReportMetric(float64(th.Microseconds())/float64(b.N)/1000, "hand-ms/op")
			b.ReportMetric(float64(tc)/float64(th), "compiled/hand")
		})
	}
}

// benchDuckDB is BenchmarkSQLCompiledVsHand in DuckDB: the tables filled
// from JSON Lines files, each query read once and timed over b.N runs in
// the same DuckDB process.
func benchDuckDB(b *testing.B, dir, data string) {
	var tables []sqlgen.Table
	for _, dom := range sqlgen.JQLDomains() {
		tables = append(tables, sqlgen.JQLTables(dom)...)
	}
	items, err := duckdbtest.LoadItems(dir, tables, func(emit func(string, []any) error) error { return scanRows(data, emit) })
	if err != nil {
		b.Fatal(err)
	}
	q, ds := syn.ParseQuery(benchQuery)
	c, err := sqlgen.CompileJQL(q, ds, sqlgen.DuckDB)
	if err != nil {
		b.Fatal(err)
	}
	items = append(items, duckdbtest.Pairs(c.SQL, handSQL, max(b.N, 5))...)
	res, times, err := duckdbtest.RunTimed(b, items)
	if err != nil {
		b.Fatal(err)
	}
	if len(res[0]) == 0 || !slices.EqualFunc(res[0], res[1], func(x, y []*string) bool { return *x[0] == *y[0] }) {
		b.Fatalf("compiled and hand-written SQL disagree: %d and %d rows", len(res[0]), len(res[1]))
	}
	tc, th := duckdbtest.PairMedians(times)
	b.ReportMetric(tc, "compiled-ms/op")
	b.ReportMetric(th, "hand-ms/op")
	b.ReportMetric(tc/th, "compiled/hand")
}

// scanRows hands emit the rows of the activities of a JSON Lines file.
func scanRows(path string, emit func(string, []any) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var ord int64
	for sc.Scan() {
		if err := sqlgen.JQLRows("activities", ord, sc.Bytes(), emit); err != nil {
			return err
		}
		ord++
	}
	return sc.Err()
}

// load fills the tables of the layout from a JSON Lines file.
func load(b *testing.B, ctx context.Context, db *engine.DB, path string) {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var tables []sqlgen.Table
	for _, dom := range sqlgen.JQLDomains() {
		tables = append(tables, sqlgen.JQLTables(dom)...)
	}
	_, err = db.Load(ctx, tables, func(emit func(string, []any) error) error {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		var ord int64
		for sc.Scan() {
			if err := sqlgen.JQLRows("activities", ord, sc.Bytes(), emit); err != nil {
				return err
			}
			ord++
		}
		return sc.Err()
	})
	if err != nil {
		b.Fatal(err)
	}
}
