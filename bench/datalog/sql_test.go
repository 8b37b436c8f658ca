package datalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/engine"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/internal/pgtest"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/sqlgen"
)

// sqlBar is one of the Datalog bar queries (docs/performance.md) with the
// SQL a programmer writes for it over the tables of `ctxql load`.
type sqlBar struct {
	name, query string
	program     bool
	hand        string
}

var sqlBars = []sqlBar{
	{"normal-forms-one", `q(r) <-- path("{ p7 | q }", r), !rw_proc(r, _)`, false,
		`SELECT DISTINCT p.c2 FROM path AS p WHERE p.c1 = '{ p7 | q }' AND NOT EXISTS (SELECT 1 FROM rw_proc AS r WHERE r.c1 = p.c2)`},
	{"normal-forms-all", `q(t, r) <-- path(t, r), !rw_proc(r, _)`, false,
		`SELECT DISTINCT p.c1, p.c2 FROM path AS p WHERE NOT EXISTS (SELECT 1 FROM rw_proc AS r WHERE r.c1 = p.c2)`},
	{"join3-selective", `q(z) <-- rw_proc(y, z), path(x, y), path("{ p7 | q }", x)`, false,
		`SELECT DISTINCT r.c2 FROM path AS p1 JOIN path AS p2 ON p2.c1 = p1.c2 JOIN rw_proc AS r ON r.c1 = p2.c2 WHERE p1.c1 = '{ p7 | q }'`},
	{"closure", "tc(x, y) <-- rw_tree(x, y);\ntc(x, z) <-- tc(x, y), rw_tree(y, z);\n", true,
		`WITH RECURSIVE tc(a, b) AS (SELECT c1, c2 FROM rw_tree UNION SELECT tc.a, r.c2 FROM tc JOIN rw_tree AS r ON r.c1 = tc.b) SELECT a, b FROM tc`},
}

// barData generates the bar relations over terms terms (the bar's shape:
// 10 random targets per term in path, 2 random rw_proc edges per term, a
// random forest on terms/2 nodes in rw_tree).
func barData(terms int) (map[string][]string, map[string][][]string) {
	rng := rand.New(rand.NewPCG(1, 2))
	name := func(i int) string { return fmt.Sprintf("{ p%d | q }", i) }
	rels := map[string][][]string{}
	for t := range terms {
		for range 10 {
			rels["path"] = append(rels["path"], []string{name(t), name(rng.IntN(terms))})
		}
		for range 2 {
			rels["rw_proc"] = append(rels["rw_proc"], []string{name(rng.IntN(terms)), name(rng.IntN(terms))})
		}
	}
	nodes := terms / 2
	for i := 1; i < nodes; i++ {
		if rng.IntN(50) != 0 {
			rels["rw_tree"] = append(rels["rw_tree"], []string{"n" + strconv.Itoa(rng.IntN(i)), "n" + strconv.Itoa(i)})
		}
	}
	schema := map[string][]string{"path": {"Proc", "Proc"}, "rw_proc": {"Proc", "Proc"}, "rw_tree": {"Node", "Node"}}
	return schema, rels
}

// BenchmarkSQLBars runs the Datalog bar queries compiled by ctxql and
// written by hand (sqlBars) in a temporary PostgreSQL cluster
// (DL_SQL_POSTGRES=1) and in DuckDB (DL_SQL_DUCKDB=1, through
// @duckdb/node-api), over the relations of barData(DL_SQL_TERMS) (default
// 10,000 terms: 100,000 path tuples) loaded as `ctxql load` loads them.
// Both must return the same tuples; it prints the time of each and their
// ratio (the goal: compiled within 1.25x of hand-written). In DuckDB
// (DL_SQL_DUCKDB_THREADS threads, default 1) each query's pair is timed
// in DL_SQL_ROUNDS rounds (default 11) of medians of DL_SQL_INNER runs
// (default 5) after a warm-up (duckDBBarItems); the ratio is the median
// of the rounds' ratios. Run it with -benchtime=1x.
func BenchmarkSQLBars(b *testing.B) {
	terms := 10_000
	if s := os.Getenv("DL_SQL_TERMS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		terms = v
	}
	schema, rels := barData(terms)
	tables := sqlgen.DatalogTables(schema)
	rows := func(emit func(string, []any) error) error {
		return sqlgen.DatalogRows(schema, func(rel string) [][]string { return rels[rel] }, emit)
	}
	compile := func(b *testing.B, d sqlgen.Dialect, q sqlBar) string {
		c, err := lang.ByID(lang.Datalog).Compile(lang.Query{Name: q.name, Src: q.query, Program: q.program}, d, schema)
		if err != nil || c.Invalid() || c.Script != nil {
			b.Fatalf("%s: %v %v", q.name, err, c.Diagnostics)
		}
		for _, r := range c.Relations {
			if r.Name == "q" || r.Name == "tc" {
				return r.SQL
			}
		}
		b.Fatalf("%s: no statement", q.name)
		return ""
	}
	ctx := context.Background()
	if os.Getenv("DL_SQL_POSTGRES") != "" {
		b.Run("postgres", func(b *testing.B) {
			db, err := engine.Open(ctx, pgtest.Start(b))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Load(ctx, tables, rows); err != nil {
				b.Fatal(err)
			}
			if err := db.Exec(ctx, "ANALYZE"); err != nil {
				b.Fatal(err)
			}
			for _, q := range sqlBars {
				b.Run(q.name, func(b *testing.B) {
					compiled := compile(b, sqlgen.Postgres, q)
					c, err := db.Rows(ctx, compiled)
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					h, err := db.Rows(ctx, q.hand)
					if err != nil {
						b.Fatal(err)
					}
					// A query of a millisecond or less is run many times a
					// round, so that the ratio is not the timer's noise.
					reps := max(1, int(50*time.Millisecond/max(time.Since(start), time.Microsecond)))
					sameTuples(b, anyRows(c), anyRows(h))
					var tc, th time.Duration
					b.ResetTimer()
					run := func(query string, total *time.Duration) {
						start := time.Now()
						for range reps {
							if _, err := db.Rows(ctx, query); err != nil {
								b.Fatal(err)
							}
						}
						*total += time.Since(start) / time.Duration(reps)
					}
					// The two in turns, each first every other round.
					for i := range b.N {
						if i%2 == 0 {
							run(compiled, &tc)
							run(q.hand, &th)
						} else {
							run(q.hand, &th)
							run(compiled, &tc)
						}
					}
					b.ReportMetric(float64(tc.Microseconds())/float64(b.N)/1000, "compiled-ms/op")
					b.ReportMetric(float64(th.Microseconds())/float64(b.N)/1000, "hand-ms/op")
					b.ReportMetric(float64(tc)/float64(th), "compiled/hand")
					b.ReportMetric(float64(len(c)), "tuples")
				})
			}
		})
	}
	if os.Getenv("DL_SQL_DUCKDB") != "" {
		b.Run("duckdb", func(b *testing.B) {
			items, err := duckdbtest.LoadItems(b.TempDir(), tables, rows)
			if err != nil {
				b.Fatal(err)
			}
			rounds, inner := max(b.N, envInt(b, "DL_SQL_ROUNDS", 11)), envInt(b, "DL_SQL_INNER", 5)
			items = append(items, duckdbtest.Item{Exec: fmt.Sprintf("SET threads = %d", envInt(b, "DL_SQL_DUCKDB_THREADS", 1))})
			items = append(items, duckDBBarItems(b, compile, rounds, inner)...)
			res, times, err := duckdbtest.RunTimed(b, items)
			if err != nil {
				b.Fatal(err)
			}
			for i, q := range sqlBars {
				sameTuples(b, strRows(res[2*i]), strRows(res[2*i+1]))
				var cs, hs []float64
				for r := range rounds {
					// Round r's pair of query i, compiled first in even rounds.
					k := 2*len(sqlBars) + 2*(r*len(sqlBars)+i)
					c, h := times[k], times[k+1]
					if r%2 == 1 {
						c, h = h, c
					}
					cs, hs = append(cs, c), append(hs, h)
				}
				ratios := make([]float64, rounds)
				for r := range rounds {
					ratios[r] = cs[r] / hs[r]
				}
				ratio := medianOf(ratios)
				b.Logf("%s: %d tuples, compiled %.2f ms, hand %.2f ms (medians), compiled/hand %.3f (median of the rounds' ratios, %.2f–%.2f)",
					q.name, len(res[2*i]), medianOf(cs), medianOf(hs), ratio, slices.Min(ratios), slices.Max(ratios))
				b.ReportMetric(ratio, q.name+"-compiled/hand")
			}
		})
	}
}

// duckDBBarItems are the DuckDB items of the bar queries after the load:
// each query compiled and by hand read once (the rows compared), a
// warm-up of each (3 runs, the plans and the buffers warm), then rounds
// of every query's pair in turns — the compiled query first in even
// rounds — each item the median of inner runs. The result is the median
// of the rounds' ratios: a round slowed by the machine's load falls out.
func duckDBBarItems(b *testing.B, compile func(*testing.B, sqlgen.Dialect, sqlBar) string, rounds, inner int) []duckdbtest.Item {
	var items []duckdbtest.Item
	compiled := make([]string, len(sqlBars))
	for i, q := range sqlBars {
		compiled[i] = compile(b, sqlgen.DuckDB, q)
		items = append(items, duckdbtest.Item{Read: compiled[i]}, duckdbtest.Item{Read: q.hand})
	}
	for i, q := range sqlBars {
		items = append(items, duckdbtest.Item{Time: compiled[i], N: 3, Quiet: true}, duckdbtest.Item{Time: q.hand, N: 3, Quiet: true})
	}
	for r := range rounds {
		for i, q := range sqlBars {
			x, y := duckdbtest.Item{Time: compiled[i], N: inner, Quiet: true}, duckdbtest.Item{Time: q.hand, N: inner, Quiet: true}
			if r%2 == 1 {
				x, y = y, x
			}
			items = append(items, x, y)
		}
	}
	return items
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return v
}

func medianOf(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func anyRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		s := make([]string, len(r))
		for k, v := range r {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			s[k] = fmt.Sprint(v)
		}
		out[i] = strings.Join(s, "\x00")
	}
	return out
}

func strRows(rows [][]*string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		s := make([]string, len(r))
		for k, v := range r {
			s[k] = *v
		}
		out[i] = strings.Join(s, "\x00")
	}
	return out
}

// sameTuples fails unless the two results hold the same set of tuples.
func sameTuples(b *testing.B, compiled, hand []string) {
	b.Helper()
	slices.Sort(compiled)
	slices.Sort(hand)
	if len(compiled) == 0 && len(hand) == 0 {
		return
	}
	if !slices.Equal(slices.Compact(compiled), slices.Compact(hand)) {
		b.Fatalf("compiled and hand-written SQL disagree: %d and %d tuples", len(compiled), len(hand))
	}
}
