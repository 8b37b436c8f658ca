// Package datalog compares the Datalog evaluator with SQLite: the data
// loaded from its JSON file and the query evaluated, against the sqlite3
// command-line shell answering the same query over a database that is
// already loaded (and, in the same run, SQLite in process).
package datalog

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	dl "github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/internal/ostest"
	_ "modernc.org/sqlite"
)

const normalForms = `q(t, r) <-- path(t, r), !rw_proc(r, _)`

// normalFormsSQL asks for the same set; without ORDER BY, as a user asks
// for a set (ctxql's output is sorted all the same).
const normalFormsSQL = "SELECT DISTINCT p.a, p.b FROM path p WHERE NOT EXISTS (SELECT 1 FROM rw_proc r WHERE r.a = p.b)"

// fixture writes the JSON data (path: 298,000 tuples over terms of the
// shape "{ pN | q }", rw_proc: 60,000) and a SQLite database with the same
// tables, indexed, and returns their paths.
func fixture(tb testing.TB) (jsonPath, dbPath string, pathN int) {
	tb.Helper()
	dir := tb.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	const terms = 60_000
	name := func(i int) string { return fmt.Sprintf("{ p%d | serv!(req) }", i) }
	var path, rw [][]string
	for t := 0; t < terms; t++ {
		for range 5 {
			path = append(path, []string{name(t), name(rng.IntN(terms))})
		}
	}
	path = path[:298_000]
	for range 60_000 {
		rw = append(rw, []string{name(rng.IntN(terms)), name(rng.IntN(terms))})
	}
	data := map[string]any{"relations": map[string]any{
		"path":    map[string]any{"param_types": []string{"Proc", "Proc"}, "tuples": path},
		"rw_proc": map[string]any{"param_types": []string{"Proc", "Proc"}, "tuples": rw},
	}}
	b, err := json.Marshal(data)
	if err != nil {
		tb.Fatal(err)
	}
	jsonPath = filepath.Join(dir, "data.json")
	if err := os.WriteFile(jsonPath, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	dbPath = filepath.Join(dir, "data.sqlite")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF",
		"CREATE TABLE path(a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID",
		"CREATE TABLE rw_proc(a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID",
	} {
		if _, err := db.Exec(stmt); err != nil {
			tb.Fatal(err)
		}
	}
	for tab, rows := range map[string][][]string{"path": path, "rw_proc": rw} {
		tx, err := db.Begin()
		if err != nil {
			tb.Fatal(err)
		}
		st, err := tx.Prepare("INSERT OR IGNORE INTO " + tab + "(a, b) VALUES (?, ?)")
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range rows {
			if _, err := st.Exec(r[0], r[1]); err != nil {
				tb.Fatal(err)
			}
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := db.Exec("ANALYZE"); err != nil {
		tb.Fatal(err)
	}
	return jsonPath, dbPath, len(path)
}

// ctxqlEndToEnd loads the JSON file, evaluates the query and prints its
// result to out as "ctxql eval datalog" does; it returns the number of
// tuples.
func ctxqlEndToEnd(tb testing.TB, jsonPath string, out io.Writer) int {
	db, err := dl.LoadPath(jsonPath)
	if err != nil {
		tb.Fatal(err)
	}
	res, rows, err := dl.EvalRuleRows(context.Background(), db, normalForms, dl.Options{})
	if err != nil || len(res.Diagnostics) > 0 {
		tb.Fatalf("%v %v", err, res.Diagnostics)
	}
	if err := rows.WriteJSON(out); err != nil {
		tb.Fatal(err)
	}
	return rows.Len()
}

// BenchmarkLoad times loading the JSON file (read and interned, tuples
// deduplicated) and reports the throughput in MB/s (target >= 200), per
// wall-clock and per CPU second.
func BenchmarkLoad(b *testing.B) {
	jsonPath, _, _ := fixture(b)
	st, err := os.Stat(jsonPath)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var cpu time.Duration
	for b.Loop() {
		c0 := cpuTime()
		if _, err := dl.LoadPath(jsonPath); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
	}
	// On a shared machine the wall-clock MB/s mostly measures scheduling:
	// the throughput per CPU second (garbage collection included) too.
	b.ReportMetric(float64(st.Size())*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
}

// sqliteCLI runs the query in the sqlite3 shell over the loaded database
// and returns the number of result rows and the CPU time the shell used.
func sqliteCLI(tb testing.TB, bin, dbPath string) (int, time.Duration) {
	var out bytes.Buffer
	cmd := exec.Command(bin, "-readonly", dbPath, normalFormsSQL)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		tb.Fatal(err)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return bytes.Count(out.Bytes(), []byte("\n")), cpu
}

// cpuTime is the CPU time this process has used (all threads).
func cpuTime() time.Duration {
	d, _ := ostest.CPUTime()
	return d
}

func sqliteInProcess(tb testing.TB, db *sql.DB) int {
	rows, err := db.Query(normalFormsSQL)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	return n
}

// BenchmarkLoadAndQuery times ctxql end to end (JSON load, query and the
// result printed as JSON) against SQLite answering the query alone over
// an already loaded database: the sqlite3 shell when it is installed
// (printing its rows), and SQLite in process
// (modernc.org/sqlite). Reported ratios: x-vs-sqlite3 (ctxql time /
// sqlite3 time, target <= 1) and x-vs-sqlite-inproc; on a loaded machine
// wall-clock times mostly measure scheduling, so the CPU times of ctxql
// (this process, garbage collection included) and of the sqlite3 shell
// are reported too, with their ratio cpu-x-vs-sqlite3.
func BenchmarkLoadAndQuery(b *testing.B) {
	jsonPath, dbPath, pathN := fixture(b)
	st, _ := os.Stat(jsonPath)
	b.Logf("path=%d tuples, JSON %d bytes", pathN, st.Size())
	bin, binErr := exec.LookPath("sqlite3")
	sq, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer sq.Close()
	want := sqliteInProcess(b, sq)
	var tc, tcli, tin, cc, ccli time.Duration
	var out bytes.Buffer
	n := 0
	for b.Loop() {
		s, c0 := time.Now(), cpuTime()
		out.Reset()
		got := ctxqlEndToEnd(b, jsonPath, &out)
		tc += time.Since(s)
		cc += cpuTime() - c0
		if got != want {
			b.Fatalf("ctxql %d tuples, sqlite %d", got, want)
		}
		if binErr == nil {
			s = time.Now()
			c, cpu := sqliteCLI(b, bin, dbPath)
			if c != want {
				b.Fatalf("sqlite3 printed %d rows, want %d", c, want)
			}
			tcli += time.Since(s)
			ccli += cpu
		}
		s = time.Now()
		sqliteInProcess(b, sq)
		tin += time.Since(s)
		n++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) / 1000 }
	b.ReportMetric(ms(tc), "ctxql-ms")
	b.ReportMetric(ms(tin), "sqlite-inproc-ms")
	b.ReportMetric(float64(tc)/float64(tin), "x-vs-sqlite-inproc")
	if binErr == nil {
		b.ReportMetric(ms(tcli), "sqlite3-ms")
		b.ReportMetric(float64(tc)/float64(tcli), "x-vs-sqlite3")
		b.ReportMetric(ms(cc), "ctxql-cpu-ms")
		b.ReportMetric(ms(ccli), "sqlite3-cpu-ms")
		b.ReportMetric(float64(cc)/float64(ccli), "cpu-x-vs-sqlite3")
	} else {
		b.Logf("sqlite3 shell not found (%v): only the in-process anchor ran", binErr)
	}
}
