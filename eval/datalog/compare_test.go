//go:build !wasm

// The reference engine, SQLite (modernc.org/sqlite), does not build for
// WebAssembly: these differential tests run on every other platform.

package datalog

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"
)

// workload is generated data in three forms: the Data model, the interned
// DB, and a SQLite database with the same tables.
type workload struct {
	terms   int
	data    *Data
	db      *DB
	sql     *sql.DB
	start   string // the constant term of the selective queries
	pathN   int
	rwN     int
	treeN   int
	queries []query
}

// query is one benchmark query in its three forms.
type query struct {
	name  string
	rule  string // a single rule, or a program when prog is set
	prog  bool
	out   string // the program relation to read
	sql   string
	args  []any
	floor func(w *workload) *table
}

// genWorkload builds path (about perTerm targets per term), rw_proc
// (rw edges with random endpoints) and rw_tree (a random recursive forest:
// every node but the roots points at an earlier node, so its transitive
// closure has about n·ln(n) tuples) and loads them into SQLite.
func genWorkload(tb testing.TB, terms, perTerm, rw, tree int) *workload {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	name := func(i int) string { return fmt.Sprintf("{ p%d | q }", i) }
	path := &RelationData{ParamTypes: []string{"Proc", "Proc"}}
	for t := 0; t < terms; t++ {
		for k := 0; k < perTerm; k++ {
			path.Tuples = append(path.Tuples, []string{name(t), name(rng.IntN(terms))})
		}
	}
	rwp := &RelationData{ParamTypes: []string{"Proc", "Proc"}}
	for i := 0; i < rw; i++ {
		rwp.Tuples = append(rwp.Tuples, []string{name(rng.IntN(terms)), name(rng.IntN(terms))})
	}
	rwt := &RelationData{ParamTypes: []string{"Proc", "Proc"}}
	for i := 1; i < tree; i++ {
		if rng.IntN(50) == 0 {
			continue // a root
		}
		rwt.Tuples = append(rwt.Tuples, []string{name(i), name(rng.IntN(i))})
	}
	w := &workload{terms: terms, data: &Data{Relations: map[string]*RelationData{"path": path, "rw_proc": rwp, "rw_tree": rwt}}, start: name(7)}
	var err error
	if w.db, err = Load(w.data); err != nil {
		tb.Fatal(err)
	}
	for _, r := range w.db.Relations() {
		switch r.Name {
		case "path":
			w.pathN = r.Size
		case "rw_proc":
			w.rwN = r.Size
		case "rw_tree":
			w.treeN = r.Size
		}
	}
	w.sql, err = sql.Open("sqlite", filepath.Join(tb.TempDir(), "bench.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.sql.Close() })
	w.sql.SetMaxOpenConns(1)
	for _, stmt := range []string{
		"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA cache_size=-262144", "PRAGMA temp_store=MEMORY",
		"CREATE TABLE path(a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID",
		"CREATE TABLE rw_proc(a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID",
		"CREATE TABLE rw_tree(a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID",
	} {
		if _, err := w.sql.Exec(stmt); err != nil {
			tb.Fatal(err)
		}
	}
	for name, rel := range w.data.Relations {
		tx, err := w.sql.Begin()
		if err != nil {
			tb.Fatal(err)
		}
		st, err := tx.Prepare("INSERT OR IGNORE INTO " + name + "(a, b) VALUES (?, ?)")
		if err != nil {
			tb.Fatal(err)
		}
		for _, t := range rel.Tuples {
			if _, err := st.Exec(t[0], t[1]); err != nil {
				tb.Fatal(err)
			}
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
	for _, stmt := range []string{"CREATE INDEX path_b ON path(b)", "CREATE INDEX rw_tree_b ON rw_tree(b)", "ANALYZE"} {
		if _, err := w.sql.Exec(stmt); err != nil {
			tb.Fatal(err)
		}
	}
	q := fmt.Sprintf("%q", w.start)
	w.queries = []query{
		{
			name: "normal-forms-one",
			rule: `q(r) <-- path(` + q + `, r), !rw_proc(r, _)`,
			sql:  "SELECT DISTINCT p.b FROM path p WHERE p.a = ? AND NOT EXISTS (SELECT 1 FROM rw_proc r WHERE r.a = p.b) ORDER BY 1",
			args: []any{w.start}, floor: floorNormalFormsOne,
		},
		{
			name:  "normal-forms-all",
			rule:  `q(t, r) <-- path(t, r), !rw_proc(r, _)`,
			sql:   "SELECT DISTINCT p.a, p.b FROM path p WHERE NOT EXISTS (SELECT 1 FROM rw_proc r WHERE r.a = p.b) ORDER BY 1, 2",
			floor: floorNormalFormsAll,
		},
		{
			name: "join3-selective",
			rule: `q(z) <-- rw_proc(y, z), path(x, y), path(` + q + `, x)`,
			sql:  "SELECT DISTINCT r.b FROM path p1 JOIN path p2 ON p2.a = p1.b JOIN rw_proc r ON r.a = p2.b WHERE p1.a = ? ORDER BY 1",
			args: []any{w.start}, floor: floorJoin3,
		},
		{
			name: "closure",
			rule: "tc(x, y) <-- rw_tree(x, y);\ntc(x, z) <-- tc(x, y), rw_tree(y, z);",
			prog: true, out: "tc",
			sql:   "WITH RECURSIVE tc(a, b) AS (SELECT a, b FROM rw_tree UNION SELECT tc.a, t.b FROM tc JOIN rw_tree t ON t.a = tc.b) SELECT a, b FROM tc ORDER BY 1, 2",
			floor: floorClosure,
		},
	}
	return w
}

func (w *workload) runCtxql(tb testing.TB, q query) [][]string {
	tb.Helper()
	if q.prog {
		res, err := EvalProgram(context.Background(), w.db, q.name, q.rule)
		if err != nil || len(res.Diagnostics) > 0 {
			tb.Fatalf("%s: %v %v", q.name, err, res.Diagnostics)
		}
		return res.Relations[q.out]
	}
	res, err := EvalRule(context.Background(), w.db, q.rule)
	if err != nil || len(res.Diagnostics) > 0 {
		tb.Fatalf("%s: %v %v", q.name, err, res.Diagnostics)
	}
	return res.Tuples
}

func (w *workload) runSQLite(tb testing.TB, q query) [][]string {
	tb.Helper()
	return sqlStrings(tb, w.sql, q.name, q.sql, q.args...)
}

// sqlStrings runs a query on db and returns its rows, every column read as
// a string; name identifies the query in a failure.
func sqlStrings(tb testing.TB, db *sql.DB, name, query string, args ...any) [][]string {
	tb.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := [][]string{}
	for rows.Next() {
		vals := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

func (w *workload) runFloor(q query) [][]string { return w.db.strings(q.floor(w)) }

// The floor: the same queries hand-written in Go over the interned
// columns with maps, as a programmer would code each one. Output goes
// through the same deduplicated, sorted conversion as the engine's.

func floorNormalFormsOne(w *workload) *table {
	path, rw := w.db.rels["path"].tab, w.db.rels["rw_proc"].tab
	t, _ := w.db.lookup(w.start)
	cand := map[uint32]struct{}{}
	for i := 0; i < path.len(); i++ {
		if path.row(i)[0] == t {
			cand[path.row(i)[1]] = struct{}{}
		}
	}
	for i := 0; i < rw.len(); i++ {
		delete(cand, rw.row(i)[0])
	}
	out := newTable(1)
	for r := range cand {
		out.append([]uint32{r})
	}
	return out
}

func floorNormalFormsAll(w *workload) *table {
	path, rw := w.db.rels["path"].tab, w.db.rels["rw_proc"].tab
	has := make(map[uint32]struct{}, rw.len())
	for i := 0; i < rw.len(); i++ {
		has[rw.row(i)[0]] = struct{}{}
	}
	out := newTable(2)
	for i := 0; i < path.len(); i++ {
		if _, ok := has[path.row(i)[1]]; !ok {
			out.append(path.row(i))
		}
	}
	return out
}

func floorJoin3(w *workload) *table {
	path, rw := w.db.rels["path"].tab, w.db.rels["rw_proc"].tab
	t, _ := w.db.lookup(w.start)
	xs := map[uint32]struct{}{}
	for i := 0; i < path.len(); i++ {
		if path.row(i)[0] == t {
			xs[path.row(i)[1]] = struct{}{}
		}
	}
	ys := map[uint32]struct{}{}
	for i := 0; i < path.len(); i++ {
		if _, ok := xs[path.row(i)[0]]; ok {
			ys[path.row(i)[1]] = struct{}{}
		}
	}
	zs := map[uint32]struct{}{}
	for i := 0; i < rw.len(); i++ {
		if _, ok := ys[rw.row(i)[0]]; ok {
			zs[rw.row(i)[1]] = struct{}{}
		}
	}
	out := newTable(1)
	for z := range zs {
		out.append([]uint32{z})
	}
	return out
}

func floorClosure(w *workload) *table {
	edges := w.db.rels["rw_tree"].tab
	succ := map[uint32][]uint32{}
	for i := 0; i < edges.len(); i++ {
		succ[edges.row(i)[0]] = append(succ[edges.row(i)[0]], edges.row(i)[1])
	}
	seen := map[uint64]struct{}{}
	out := newTable(2)
	var delta [][2]uint32
	for i := 0; i < edges.len(); i++ {
		e := [2]uint32{edges.row(i)[0], edges.row(i)[1]}
		seen[uint64(e[0])<<32|uint64(e[1])] = struct{}{}
		out.append(e[:])
		delta = append(delta, e)
	}
	for len(delta) > 0 {
		var next [][2]uint32
		for _, d := range delta {
			for _, z := range succ[d[1]] {
				k := uint64(d[0])<<32 | uint64(z)
				if _, ok := seen[k]; !ok {
					seen[k] = struct{}{}
					e := [2]uint32{d[0], z}
					out.append(e[:])
					next = append(next, e)
				}
			}
		}
		delta = next
	}
	return out
}

// TestAgainstSQLiteAndFloor checks on small generated data that the
// engine, real SQLite and the hand-written Go floor return identical
// results for every benchmark query.
func TestAgainstSQLiteAndFloor(t *testing.T) {
	w := genWorkload(t, 2000, 5, 3000, 3000)
	for _, q := range w.queries {
		t.Run(q.name, func(t *testing.T) {
			got := w.runCtxql(t, q)
			if len(got) == 0 {
				t.Fatalf("%s: empty result; the generated data should produce tuples", q.name)
			}
			if d := cmp.Diff(w.runSQLite(t, q), got); d != "" {
				t.Errorf("ctxql vs SQLite (-sqlite +ctxql):\n%s", d)
			}
			if d := cmp.Diff(w.runFloor(q), got); d != "" {
				t.Errorf("ctxql vs floor (-floor +ctxql):\n%s", d)
			}
		})
	}
}

// BenchmarkDatalog times each query on the engine, the hand-written floor
// and SQLite in the same run, over path (~1,000,000 tuples on 100,000
// terms), rw_proc (200,000) and rw_tree (a 50,000-node forest for the
// closure). It reports each engine's time per query and the ratios
// x-vs-floor (engine/floor, target <= 2) and sqlite-x (SQLite/engine,
// target >= 5).
func BenchmarkDatalog(b *testing.B) {
	w := genWorkload(b, 100_000, 10, 200_000, 50_000)
	b.Logf("path=%d rw_proc=%d rw_tree=%d terms=%d", w.pathN, w.rwN, w.treeN, len(w.db.strs))
	for _, q := range w.queries {
		b.Run(q.name, func(b *testing.B) {
			// Cold: the engine's first run builds the indexes it needs
			// (SQLite built its own at load time); later runs reuse them.
			w.db.dropIndexes()
			s := time.Now()
			w.runCtxql(b, q)
			cold := time.Since(s)
			s = time.Now()
			w.runFloor(q)
			coldFloor := time.Since(s)
			w.runSQLite(b, q)
			var tc, tf, ts time.Duration
			var n int
			for b.Loop() {
				s := time.Now()
				got := w.runCtxql(b, q)
				tc += time.Since(s)
				s = time.Now()
				fl := w.runFloor(q)
				tf += time.Since(s)
				s = time.Now()
				sq := w.runSQLite(b, q)
				ts += time.Since(s)
				if n == 0 && (!slices.EqualFunc(got, fl, slices.Equal) || !slices.EqualFunc(got, sq, slices.Equal)) {
					b.Fatalf("%s: results differ: ctxql %d, floor %d, sqlite %d tuples", q.name, len(got), len(fl), len(sq))
				}
				n++
				if n == 1 {
					b.Logf("%s: %d result tuples", q.name, len(got))
				}
			}
			b.ReportMetric(float64(cold.Microseconds())/1000, "ctxql-cold-ms")
			b.ReportMetric(float64(cold)/float64(coldFloor), "cold-x-vs-floor")
			b.ReportMetric(float64(tc.Microseconds())/float64(n)/1000, "ctxql-ms")
			b.ReportMetric(float64(tf.Microseconds())/float64(n)/1000, "floor-ms")
			b.ReportMetric(float64(ts.Microseconds())/float64(n)/1000, "sqlite-ms")
			b.ReportMetric(float64(tc)/float64(tf), "x-vs-floor")
			b.ReportMetric(float64(ts)/float64(tc), "sqlite-x")
		})
	}
}
