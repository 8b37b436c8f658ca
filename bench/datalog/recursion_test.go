package datalog

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	dl "github.com/ctxql/ctxql/eval/datalog"
)

const sameGeneration = `sg(x, y) <-- p(x, a), p(y, a), if x != y.
sg(x, y) <-- p(x, a), p(y, b), sg(a, b).`

const sameGenerationSQL = `WITH RECURSIVE sg(x, y) AS (
  SELECT p1.c, p2.c FROM p p1 JOIN p p2 ON p1.par = p2.par WHERE p1.c <> p2.c
  UNION
  SELECT p1.c, p2.c FROM sg JOIN p p1 ON p1.par = sg.x JOIN p p2 ON p2.par = sg.y)
SELECT count(*) FROM sg`

// BenchmarkSameGeneration times same-generation over a random recursive
// tree of 1,000 nodes (p(child, parent)) against SQLite's recursive CTE
// over the same table, in the same run; x-vs-sqlite is ctxql time /
// SQLite time.
func BenchmarkSameGeneration(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := &dl.RelationData{ParamTypes: []string{"Node", "Node"}}
	for i := 1; i < 1000; i++ {
		p.Tuples = append(p.Tuples, []string{fmt.Sprint("n", i), fmt.Sprint("n", rng.IntN(i))})
	}
	db, err := dl.Load(&dl.Data{Relations: map[string]*dl.RelationData{"p": p}})
	if err != nil {
		b.Fatal(err)
	}
	sq, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "sg.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer sq.Close()
	sq.SetMaxOpenConns(1)
	for _, s := range []string{"CREATE TABLE p(c TEXT NOT NULL, par TEXT NOT NULL, PRIMARY KEY(c, par)) WITHOUT ROWID", "CREATE INDEX p_par ON p(par)"} {
		if _, err := sq.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	for _, t := range p.Tuples {
		if _, err := sq.Exec("INSERT INTO p VALUES (?, ?)", t[0], t[1]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := sq.Exec("ANALYZE"); err != nil {
		b.Fatal(err)
	}
	var tc, ts time.Duration
	n := 0
	for b.Loop() {
		s := time.Now()
		res, err := dl.EvalProgramWith(context.Background(), db, "sg", sameGeneration, dl.Options{MaxTuples: -1})
		if err != nil || len(res.Diagnostics) > 0 {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
		tc += time.Since(s)
		s = time.Now()
		var count int
		if err := sq.QueryRow(sameGenerationSQL).Scan(&count); err != nil {
			b.Fatal(err)
		}
		ts += time.Since(s)
		if count != len(res.Relations["sg"]) {
			b.Fatalf("ctxql %d tuples, SQLite %d", len(res.Relations["sg"]), count)
		}
		if n == 0 {
			b.Logf("sg: %d tuples", count)
		}
		n++
	}
	b.ReportMetric(float64(tc.Microseconds())/float64(n)/1000, "ctxql-ms")
	b.ReportMetric(float64(ts.Microseconds())/float64(n)/1000, "sqlite-ms")
	b.ReportMetric(float64(tc)/float64(ts), "x-vs-sqlite")
}
