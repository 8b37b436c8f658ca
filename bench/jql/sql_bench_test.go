package jql_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxql/ctxql/bench/internal/gen"
	"github.com/ctxql/ctxql/engine"
	evaljql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/internal/pgtest"
	"github.com/ctxql/ctxql/sqlgen"
	"github.com/ctxql/ctxql/syntax"
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

// flatMappingSrc is the mapping of the flattened layout (JQL_SQL_LAYOUT=flat):
// the benchmark query's three fields in columns of the activities table,
// and the node table holding only what the columns cannot, the exit codes
// of activities with several.
const flatMappingSrc = `activities:
  nodes: mapped
  columns:
    sessionId: session_id
    type: type
    artifacts.exitCode: exit_code
`

// handFlatSQL is benchQuery written by hand over the flattened layout: the
// fields' columns and their (kind, value) indexes, the node table probed
// for the activities with several exit codes.
const handFlatSQL = `SELECT t.doc FROM activities AS t
WHERE t.session_id_kind = 'string' AND t.session_id = 's-42'
  AND t.type_kind = 'string' AND t.type = 'progressUpdated'
  AND (t.exit_code_kind NOT IN ('multi', 'number') OR t.exit_code_num <> 0
       OR t.exit_code_kind = 'multi' AND EXISTS (SELECT 1 FROM activities_nodes AS n WHERE n.ord = t.ord AND n.path = '["artifacts","exitCode"]' AND n.kind <> 'array' AND NOT (n.kind = 'number' AND n.num = 0)))
ORDER BY t.ct_rank DESC, t.ct_sec DESC, t.ct_nsec DESC, t.ct_str DESC, t.id, t.ord
LIMIT 100`

// sqlSettings are the knobs of BenchmarkSQLCompiledVsHand, read from the
// environment.
type sqlSettings struct {
	n       int      // activities (JQL_SQL_N, default 10,000,000)
	engines []string // JQL_SQL_ENGINES, default duckdb,postgres (in that order: DuckDB's file is gone before PostgreSQL loads)
	rounds  int      // timed rounds of the two queries in turns (JQL_SQL_ROUNDS, default 7)
	evalMax int      // up to this size the in-process evaluator checks the rows too (JQL_SQL_EVAL_MAX, default 200,000)
	dir     string   // where the CSV files and databases go (JQL_SQL_DIR, default a temporary directory)
	csv     string   // where the CSV files are kept and reused (JQL_SQL_CSV, default dir, removed at the end)
	layout  string   // the tables: json (the node table whole) or flat (JQL_SQL_LAYOUT, default json)
	explain bool     // print PostgreSQL's EXPLAIN ANALYZE of both queries (JQL_SQL_EXPLAIN=1)
}

// mapping is the layout's mapping: none for json.
func (s sqlSettings) mapping(tb testing.TB) sqlgen.JQLMapping {
	if s.layout == "json" {
		return nil
	}
	m, err := sqlgen.ParseJQLMapping([]byte(flatMappingSrc))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// hand is the hand-written query over the layout's tables.
func (s sqlSettings) hand() string {
	if s.layout == "json" {
		return handSQL
	}
	return handFlatSQL
}

// tables are the layout's tables of the activities domain.
func (s sqlSettings) tables(tb testing.TB) []sqlgen.Table {
	return sqlgen.JQLTablesMapped("activities", s.mapping(tb)["activities"])
}

func envInt(tb testing.TB, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return v
}

func readSettings(b *testing.B) sqlSettings {
	s := sqlSettings{
		n:       envInt(b, "JQL_SQL_N", 10_000_000),
		engines: []string{"duckdb", "postgres"},
		rounds:  envInt(b, "JQL_SQL_ROUNDS", 7),
		evalMax: envInt(b, "JQL_SQL_EVAL_MAX", 200_000),
		dir:     os.Getenv("JQL_SQL_DIR"),
		csv:     os.Getenv("JQL_SQL_CSV"),
		layout:  os.Getenv("JQL_SQL_LAYOUT"),
		explain: os.Getenv("JQL_SQL_EXPLAIN") == "1",
	}
	switch s.layout {
	case "":
		s.layout = "json"
	case "json", "flat":
	default:
		b.Fatalf("JQL_SQL_LAYOUT: no layout %s (json, flat)", s.layout)
	}
	if e := os.Getenv("JQL_SQL_ENGINES"); e != "" {
		s.engines = strings.Split(e, ",")
	}
	if s.dir == "" {
		s.dir = b.TempDir()
	} else {
		d, err := os.MkdirTemp(s.dir, "jql-sql-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(d) })
		s.dir = d
	}
	if s.csv == "" {
		s.csv = s.dir
	}
	return s
}

// BenchmarkSQLCompiledVsHand runs benchQuery compiled by ctxql and the
// same query written by hand (handSQL) over JQL_SQL_N generated
// activities (default 10,000,000) in the engines of JQL_SQL_ENGINES
// (default duckdb,postgres, run in that order; sqlite too): a temporary PostgreSQL cluster,
// DuckDB through @duckdb/node-api (a database file), SQLite through the
// engine package. The tables have the layout `ctxql load` writes, filled
// in bulk (see sqlload_test.go; SQLite through engine.Load, one
// transaction). Before timing, the compiled and the hand-written query
// must return the same documents, and up to JQL_SQL_EVAL_MAX activities
// the compiled query's result must be the in-process evaluator's. Then
// JQL_SQL_ROUNDS rounds run the two in turns (each first every other
// round) after a warm-up run of each; it prints the medians and their
// ratio (the goal: compiled within 1.25x of hand-written). Run it with
// -benchtime=1x: the rounds are the repetitions. JQL_SQL_CSV keeps the
// CSV files in a directory and reuses them (JQL_SQL_ENGINES=none only
// writes them); JQL_SQL_DUCKDB_MEMORY (default 8GB) and
// JQL_SQL_DUCKDB_INDEXES=0 are for DuckDB. JQL_SQL_LAYOUT=flat loads the
// tables with flatMappingSrc and times handFlatSQL; JQL_SQL_EXPLAIN=1
// prints PostgreSQL's plans of both queries before timing, DuckDB's
// after.
func BenchmarkSQLCompiledVsHand(b *testing.B) {
	s := readSettings(b)
	ctx := context.Background()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("JQL SQL: %d activities, %s layout, engines %s, %d rounds, load average %s", s.n, s.layout, strings.Join(s.engines, ","), s.rounds, load)
	q, ds := syn.ParseQuery(benchQuery)
	if len(ds) > 0 {
		b.Fatal(ds)
	}
	var want *evaljql.Result
	if s.n <= s.evalMax {
		want = inProcess(b, ctx, q, filepath.Join(s.dir, "activities.jsonl"), s.n)
	}
	if slices.Contains(s.engines, "postgres") || slices.Contains(s.engines, "duckdb") || slices.Contains(s.engines, "none") {
		prepareCSV(b, ctx, s)
	}
	for _, name := range s.engines {
		b.Run(name, func(b *testing.B) {
			var tc, th float64
			switch name {
			case "duckdb":
				tc, th = benchDuckDB(b, ctx, s, q, ds, want)
			case "postgres", "sqlite":
				tc, th = benchEngine(b, ctx, s, name, q, ds, want)
			case "none":
				b.Skip("JQL_SQL_ENGINES=none: the CSV files only")
			default:
				b.Fatalf("JQL_SQL_ENGINES: no engine %s (postgres, duckdb, sqlite)", name)
			}
			load, _ := os.ReadFile("/proc/loadavg")
			fmt.Printf("%s: compiled %.1f ms, hand-written %.1f ms, compiled/hand %.3f (medians of %d rounds), load average %s",
				name, tc, th, tc/th, s.rounds, load)
			b.ReportMetric(tc, "compiled-ms")
			b.ReportMetric(th, "hand-ms")
			b.ReportMetric(tc/th, "compiled/hand")
		})
	}
}

// prepareCSV writes the CSV files of the tables, unless s.csv holds
// those of the same number of activities and layout (its file n says).
func prepareCSV(b *testing.B, ctx context.Context, s sqlSettings) {
	stamp := filepath.Join(s.csv, "n")
	id := strconv.Itoa(s.n) + " " + s.layout
	if old, err := os.ReadFile(stamp); err == nil && string(old) == id {
		fmt.Printf("the CSV files of %s\n", s.csv)
		return
	}
	os.Remove(stamp)
	start := time.Now()
	counts, err := writeCSV(ctx, s.csv, s.n, s.mapping(b))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(stamp, []byte(id), 0o644); err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, t := range s.tables(b) {
		if fi, err := os.Stat(csvFile(s.csv, t.Name)); err == nil {
			size += fi.Size()
		}
	}
	fmt.Printf("rows %v, %.0f MB of gzipped CSV in %v\n", counts, float64(size)/1e6, time.Since(start).Round(time.Second))
}

// inProcess evaluates q over n generated activities with the in-process
// evaluator.
func inProcess(b *testing.B, ctx context.Context, q *syn.Query, path string, n int) *evaljql.Result {
	generate(b, path, n)
	t, err := evaljql.Load(ctx, evaljql.File{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	res, err := evaljql.EvalQueryOptions(ctx, q, nil, t, evaljql.Options{})
	if err != nil {
		b.Fatal(err)
	}
	os.Remove(path)
	return res
}

// checkRows fails unless the compiled and the hand-written query returned
// the same documents, some, and (with want) the compiled ones make the
// in-process evaluator's result.
func checkRows(b *testing.B, ctx context.Context, q *syn.Query, ds []syntax.Diagnostic, compiled, hand [][]byte, want *evaljql.Result) {
	b.Helper()
	if len(compiled) == 0 || !slices.EqualFunc(compiled, hand, func(x, y []byte) bool { return string(x) == string(y) }) {
		b.Fatalf("compiled and hand-written SQL disagree: %d and %d rows", len(compiled), len(hand))
	}
	if want == nil {
		return
	}
	got, err := evaljql.Finish(ctx, q, ds, compiled, evaljql.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if !slices.EqualFunc(got.Docs, want.Docs, func(x, y []byte) bool { return string(x) == string(y) }) {
		b.Fatalf("the compiled query's result differs from the in-process evaluator's: %d and %d documents", len(got.Docs), len(want.Docs))
	}
}

// benchEngine is the benchmark in PostgreSQL or SQLite, reached through
// the engine package as `ctxql eval --engine` reaches them.
func benchEngine(b *testing.B, ctx context.Context, s sqlSettings, name string, q *syn.Query, ds []syntax.Diagnostic, want *evaljql.Result) (tc, th float64) {
	start := time.Now()
	var url string
	if name == "postgres" {
		roomFor(b, os.TempDir(), int64(s.n)*pgBytesPerActivity[s.layout])
		url = pgtest.Start(b)
		if err := loadPostgres(ctx, url, s.csv, s.tables(b)); err != nil {
			b.Fatal(err)
		}
	} else {
		url = "sqlite:" + filepath.Join(s.dir, "a.db")
		defer os.Remove(filepath.Join(s.dir, "a.db"))
	}
	db, err := engine.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if name == "sqlite" {
		loadSQLite(b, ctx, db, s.n, s.mapping(b))
	} else {
		rows, err := db.Texts(ctx, "SELECT pg_database_size(current_database())")
		if err == nil && len(rows) == 1 {
			mb, _ := strconv.ParseFloat(string(rows[0]), 64)
			fmt.Printf("postgres: database %.0f MB\n", mb/1e6)
		}
	}
	fmt.Printf("%s: loaded in %v\n", name, time.Since(start).Round(time.Second))
	c, err := sqlgen.CompileJQLMapped(q, ds, db.Dialect(), s.mapping(b))
	if err != nil {
		b.Fatal(err)
	}
	handSQL := s.hand()
	compiled, err := db.Texts(ctx, c.SQL)
	if err != nil {
		b.Fatal(err)
	}
	hand, err := db.Texts(ctx, handSQL)
	if err != nil {
		b.Fatal(err)
	}
	if s.explain && name == "postgres" {
		for _, sql := range []string{c.SQL, handSQL} {
			plan, err := db.Texts(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("postgres: EXPLAIN ANALYZE of\n%s\n%s\n", sql, bytes.Join(plan, []byte("\n")))
		}
	}
	checkRows(b, ctx, q, ds, compiled, hand, want)
	fmt.Printf("%s: %d documents\n", name, len(compiled))
	run := func(query string) float64 {
		start := time.Now()
		if _, err := db.Texts(ctx, query); err != nil {
			b.Fatal(err)
		}
		return float64(time.Since(start).Microseconds()) / 1000
	}
	// A warm-up run of each, then rounds in turns.
	run(c.SQL)
	run(handSQL)
	var cs, hs []float64
	for i := range s.rounds {
		if i%2 == 0 {
			cs = append(cs, run(c.SQL))
			hs = append(hs, run(handSQL))
		} else {
			hs = append(hs, run(handSQL))
			cs = append(cs, run(c.SQL))
		}
	}
	return medianOf(cs), medianOf(hs)
}

// pgBytesPerActivity is, per layout, about what PostgreSQL's cluster
// takes per activity, tables and indexes, at the peak of the load
// (measured, json: 3.8 GB for a million activities, plus the sort files
// of the index builds; flat: 205 MB for 200,000, and the sort files).
var pgBytesPerActivity = map[string]int64{"json": 4600, "flat": 1400}

// roomFor skips the benchmark when the file system of dir has less than
// need bytes free and 5 GB to spare: a full disk stops everything else on
// the machine. TMPDIR moves PostgreSQL's temporary cluster.
func roomFor(b *testing.B, dir string, need int64) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		b.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	if free < need+5e9 {
		b.Skipf("%s has %.1f GB free; the database needs about %.1f GB and 5 GB are kept free (set JQL_SQL_N lower or TMPDIR elsewhere)",
			dir, float64(free)/1e9, float64(need)/1e9)
	}
}

func medianOf(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// loadSQLite fills the tables through engine.Load (batched INSERTs in
// one transaction), the rows derived from the generator's stream.
func loadSQLite(b *testing.B, ctx context.Context, db *engine.DB, n int, m sqlgen.JQLMapping) {
	pr, pw := io.Pipe()
	go func() {
		_, err := gen.Activities(pw, n)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	_, err := db.Load(ctx, sqlgen.JQLTablesMapped("activities", m["activities"]), func(emit func(string, []any) error) error {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		var ord int64
		for sc.Scan() {
			if err := sqlgen.JQLRowsMapped("activities", ord, sc.Bytes(), m["activities"], emit); err != nil {
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

// duckBytesPerActivity is about what DuckDB's database file and its
// spill files take per activity (measured: 1.6 GB for a million
// activities of the json layout with the indexes).
const duckBytesPerActivity = 2000

// benchDuckDB is the benchmark in DuckDB: one node process loads the
// CSV files into a database file, reads each query once, runs a warm-up
// of each and then the rounds in turns.
func benchDuckDB(b *testing.B, ctx context.Context, s sqlSettings, q *syn.Query, ds []syntax.Diagnostic, want *evaljql.Result) (tc, th float64) {
	defer os.Remove(filepath.Join(s.dir, "bench.duckdb"))
	defer os.RemoveAll(filepath.Join(s.dir, "duckdb.tmp"))
	roomFor(b, s.dir, int64(s.n)*duckBytesPerActivity)
	c, err := sqlgen.CompileJQLMapped(q, ds, sqlgen.DuckDB, s.mapping(b))
	if err != nil {
		b.Fatal(err)
	}
	handSQL := s.hand()
	items := duckDBLoadItems(s.dir, s.csv, s.tables(b))
	items = append(items,
		duckdbtest.Item{Read: c.SQL}, duckdbtest.Item{Read: handSQL},
		duckdbtest.Item{Time: c.SQL, N: 1, Quiet: true}, duckdbtest.Item{Time: handSQL, N: 1, Quiet: true})
	items = append(items, duckdbtest.Pairs(c.SQL, handSQL, s.rounds)...)
	if s.explain {
		items = append(items, duckdbtest.Item{Read: "EXPLAIN ANALYZE " + c.SQL}, duckdbtest.Item{Read: "EXPLAIN ANALYZE " + handSQL})
	}
	start := time.Now()
	res, times, err := duckdbtest.RunTimed(b, items)
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(s.dir, "bench.duckdb"))
	if fi != nil {
		fmt.Printf("duckdb: database file %.0f MB\n", float64(fi.Size())/1e6)
	}
	fmt.Printf("duckdb: loaded, checked and timed in %v\n", time.Since(start).Round(time.Second))
	text := func(rows [][]*string) [][]byte {
		out := make([][]byte, len(rows))
		for i, r := range rows {
			out[i] = []byte(*r[0])
		}
		return out
	}
	checkRows(b, ctx, q, ds, text(res[0]), text(res[1]), want)
	fmt.Printf("duckdb: %d documents\n", len(res[0]))
	if s.explain {
		for _, plan := range res[len(res)-2:] {
			for _, r := range plan {
				if len(r) > 0 && r[len(r)-1] != nil {
					fmt.Printf("duckdb: EXPLAIN ANALYZE\n%s\n", *r[len(r)-1])
				}
			}
		}
	}
	return duckdbtest.PairMedians(times[2:])
}
