package datalog

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/engine"
	dl "github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/internal/pgtest"
	"github.com/ctxql/ctxql/sqlgen"
)

// anchorWorkload is one Datalog workload of BenchmarkAnchors: its data,
// its program (whose result is the relation out) and the same query in
// SQL over tables of two text columns c1, c2.
type anchorWorkload struct {
	name    string
	rels    map[string][][]string
	types   map[string][]string
	program string
	out     string
	sql     string
}

// anchorWorkloads generates the data of the three workloads
// (deterministic seeds):
//   - negation: path-with-negation over 40,000 terms "{ pN | serv!(req) }":
//     path 200,000 tuples (5 random targets a term), rw_proc 8,000; the
//     JSON file is about 11 MB;
//   - closure: the transitive closure of a random recursive forest of
//     50,000 nodes (each node points at a random earlier one, 1 in 50 is a
//     root);
//   - samegen: same-generation over a random recursive tree of 5,000
//     nodes.
func anchorWorkloads() []*anchorWorkload {
	rng := rand.New(rand.NewPCG(36, 1))
	const terms = 40_000
	term := func(i int) string { return fmt.Sprintf("{ p%d | serv!(req) }", i) }
	var path, rw [][]string
	for t := range terms {
		for range 5 {
			path = append(path, []string{term(t), term(rng.IntN(terms))})
		}
	}
	for range 8_000 {
		rw = append(rw, []string{term(rng.IntN(terms)), term(rng.IntN(terms))})
	}
	var forest [][]string
	for i := 1; i < 50_000; i++ {
		if rng.IntN(50) == 0 {
			continue
		}
		forest = append(forest, []string{"n" + strconv.Itoa(i), "n" + strconv.Itoa(rng.IntN(i))})
	}
	var tree [][]string
	for i := 1; i < 5_000; i++ {
		tree = append(tree, []string{"n" + strconv.Itoa(i), "n" + strconv.Itoa(rng.IntN(i))})
	}
	two := func(t string) []string { return []string{t, t} }
	return []*anchorWorkload{
		{
			name: "negation", rels: map[string][][]string{"path": path, "rw_proc": rw},
			types:   map[string][]string{"path": two("Proc"), "rw_proc": two("Proc")},
			program: "relation path(Proc, Proc);\nrelation rw_proc(Proc, Proc);\nq(t, r) <-- path(t, r), !rw_proc(r, _);\n",
			out:     "q",
			sql:     "SELECT DISTINCT p.c1, p.c2 FROM path p WHERE NOT EXISTS (SELECT 1 FROM rw_proc r WHERE r.c1 = p.c2)",
		},
		{
			name: "closure", rels: map[string][][]string{"e": forest},
			types:   map[string][]string{"e": two("Node")},
			program: "relation e(Node, Node);\ntc(x, y) <-- e(x, y);\ntc(x, z) <-- tc(x, y), e(y, z);\n",
			out:     "tc",
			sql:     "WITH RECURSIVE tc(x, y) AS (SELECT c1, c2 FROM e UNION SELECT tc.x, e.c2 FROM tc JOIN e ON e.c1 = tc.y) SELECT x, y FROM tc",
		},
		{
			name: "samegen", rels: map[string][][]string{"p": tree},
			types:   map[string][]string{"p": two("Node")},
			program: "relation p(Node, Node);\nsg(x, y) <-- p(x, a), p(y, a), if x != y;\nsg(x, y) <-- p(x, a), p(y, b), sg(a, b);\n",
			out:     "sg",
			sql: `WITH RECURSIVE sg(x, y) AS (
  SELECT p1.c1, p2.c1 FROM p p1 JOIN p p2 ON p1.c2 = p2.c2 WHERE p1.c1 <> p2.c1
  UNION
  SELECT p1.c1, p2.c1 FROM sg JOIN p p1 ON p1.c2 = sg.x JOIN p p2 ON p2.c2 = sg.y)
SELECT x, y FROM sg`,
		},
	}
}

// write writes the workload's JSON data file (DIR/NAME.json), its facts
// directory of CSV files without declarations (DIR/NAME/REL.csv, which
// DuckDB reads too) and its program (DIR/NAME.dl).
func (w *anchorWorkload) write(tb testing.TB, dir string) {
	rels := map[string]any{}
	for name, tuples := range w.rels {
		rels[name] = map[string]any{"param_types": w.types[name], "tuples": tuples}
		var buf bytes.Buffer
		cw := csv.NewWriter(&buf)
		if err := cw.WriteAll(tuples); err != nil {
			tb.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, w.name), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, w.name, name+".csv"), buf.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	b, err := json.Marshal(map[string]any{"relations": rels})
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, w.name+".json"), b, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, w.name+".dl"), []byte(w.program), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// duckDatalog is what bench/duckdb/datalog.mjs prints.
type duckDatalog struct {
	Version  string                        `json:"version"`
	Rows     map[string]int                `json:"rows"`
	Prebuilt map[string]map[string]float64 `json:"prebuilt"`
	E2E      map[string]map[string]float64 `json:"e2e"`
	LoadMs   map[string]map[string]float64 `json:"loadMs"`
}

func medianD(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sortedRows returns rows as sorted lines of tab-separated values.
func sortedRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "\t")
	}
	slices.Sort(out)
	return out
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// ctxqlAnchorTimes are the measurements of ctxql on one workload.
type ctxqlAnchorTimes struct {
	rows             []string
	warm             map[int][]time.Duration // by GOMAXPROCS
	cpu              map[int]time.Duration   // summed over the warm runs
	e2eJSON, e2eCSV  []time.Duration
	cpuJSON, cpuCSV  []time.Duration
	loadJSON, loadMB float64
}

// BenchmarkAnchors runs the path-with-negation, closure and
// same-generation workloads (anchorWorkloads) on ctxql, DuckDB (through
// bench/duckdb/datalog.mjs: 1 and 2 threads, prebuilt tables and end to
// end) and PostgreSQL (a temporary cluster on a Unix socket, prebuilt
// indexed tables) in the same run. Every engine's rows are checked to be
// ctxql's before anything is timed; it prints each time and ratio (ctxql
// time / anchor time: below 1, ctxql is faster) and the machine's load.
//
// ctxql on loaded data: the evaluation of the program over a DB loaded
// beforehand, with GOMAXPROCS 1 and 2. ctxql end to end: the ctxql binary
// (`eval datalog --data D --rules P`, output to a file), from the JSON file
// and from the CSV facts directory, wall and CPU time. DuckDB end to end:
// a fresh in-memory database reading the CSV files, then counting the
// result, timed inside node (its start not included). DL_ANCHORS selects
// workloads (comma-separated), DL_ANCHOR_REPS the repetitions (default 3),
// DL_ANCHOR_NO_PG=1 leaves PostgreSQL out.
func BenchmarkAnchors(b *testing.B) {
	reps := 3
	if s := os.Getenv("DL_ANCHOR_REPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		reps = n
	}
	all := anchorWorkloads()
	var ws []*anchorWorkload
	if s := os.Getenv("DL_ANCHORS"); s != "" {
		for _, w := range all {
			if slices.Contains(strings.Split(s, ","), w.name) {
				ws = append(ws, w)
			}
		}
	} else {
		ws = all
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	build := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, w := range ws {
		w.write(b, dir)
	}
	fmt.Printf("load average at the start: %s (%d CPUs)\n", loadAvg(), runtime.NumCPU())
	ctx := context.Background()
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	pgURL := ""
	if os.Getenv("DL_ANCHOR_NO_PG") == "" {
		pgURL = pgtest.Start(b) // skips the benchmark where PostgreSQL is not installed
	}

	for b.Loop() {
		times := map[string]*ctxqlAnchorTimes{}
		for _, w := range ws {
			t := &ctxqlAnchorTimes{warm: map[int][]time.Duration{}, cpu: map[int]time.Duration{}}
			times[w.name] = t
			jsonPath := filepath.Join(dir, w.name+".json")
			st, err := os.Stat(jsonPath)
			if err != nil {
				b.Fatal(err)
			}
			t.loadMB = float64(st.Size()) / 1e6
			s := time.Now()
			db, err := dl.LoadPath(jsonPath)
			if err != nil {
				b.Fatal(err)
			}
			t.loadJSON = msOf(time.Since(s))
			for _, p := range []int{1, 2} {
				runtime.GOMAXPROCS(p)
				for i := range reps + 1 {
					runtime.GC()
					c0 := cpuTime()
					s := time.Now()
					res, rels, err := dl.EvalProgramRows(ctx, db, w.name, w.program, dl.Options{MaxTuples: -1, Workers: p})
					d := time.Since(s)
					if err != nil || len(res.Diagnostics) > 0 {
						b.Fatalf("%s: %v %v", w.name, err, res.Diagnostics)
					}
					if i == 0 {
						if t.rows == nil {
							t.rows = sortedRows(rels[w.out].Tuples())
						}
						continue // the first run builds the kept indexes
					}
					t.cpu[p] += cpuTime() - c0
					t.warm[p] = append(t.warm[p], d)
				}
			}
			runtime.GOMAXPROCS(procs)
			for _, data := range []string{jsonPath, filepath.Join(dir, w.name)} {
				for range reps {
					f, err := os.Create(filepath.Join(dir, "out.json"))
					if err != nil {
						b.Fatal(err)
					}
					cmd := exec.Command(bin, "eval", "datalog", "--data", data, "--rules", filepath.Join(dir, w.name+".dl"), "--relations", w.out, "--max-tuples", "0")
					cmd.Stdout = f
					var errb bytes.Buffer
					cmd.Stderr = &errb
					s := time.Now()
					err = cmd.Run()
					d := time.Since(s)
					f.Close()
					if err != nil {
						b.Fatalf("%s: %v\n%s", w.name, err, errb.String())
					}
					cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
					if data == jsonPath {
						t.e2eJSON, t.cpuJSON = append(t.e2eJSON, d), append(t.cpuJSON, cpu)
					} else {
						t.e2eCSV, t.cpuCSV = append(t.e2eCSV, d), append(t.cpuCSV, cpu)
					}
				}
				out, err := os.ReadFile(filepath.Join(dir, "out.json"))
				if err != nil {
					b.Fatal(err)
				}
				var got map[string][][]string
				if err := json.Unmarshal(out, &got); err != nil {
					b.Fatal(err)
				}
				if !slices.Equal(sortedRows(got[w.out]), t.rows) {
					b.Fatalf("%s: the binary over %s prints other rows (%d) than the evaluation (%d)", w.name, data, len(got[w.out]), len(t.rows))
				}
			}
		}

		// DuckDB.
		var duck *duckDatalog
		script, _ := filepath.Abs(filepath.Join("..", "duckdb", "datalog.mjs"))
		if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@duckdb", "node-api")); err != nil {
			fmt.Println("DuckDB: bench/duckdb/node_modules missing (run `npm ci` in bench/duckdb); not measured")
		} else {
			outDir := filepath.Join(dir, "duck")
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				b.Fatal(err)
			}
			args := []string{script, dir, outDir, strconv.Itoa(reps)}
			for _, w := range ws {
				args = append(args, w.name)
			}
			cmd := exec.Command("node", args...)
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("DuckDB: %v", err)
			}
			duck = &duckDatalog{}
			if err := json.Unmarshal(out, duck); err != nil {
				b.Fatalf("DuckDB output: %v", err)
			}
			for _, w := range ws {
				f, err := os.Open(filepath.Join(outDir, w.name+".csv"))
				if err != nil {
					b.Fatal(err)
				}
				rows, err := csv.NewReader(f).ReadAll()
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				if got := sortedRows(rows); !slices.Equal(got, times[w.name].rows) || duck.Rows[w.name] != len(got) {
					b.Fatalf("%s: DuckDB returns other rows (%d) than ctxql (%d)", w.name, len(got), len(times[w.name].rows))
				}
			}
		}

		// PostgreSQL.
		pgTimes := map[string][]time.Duration{}
		if pgURL != "" {
			pg, err := engine.Open(ctx, pgURL)
			if err != nil {
				b.Fatal(err)
			}
			for _, w := range ws {
				if err := pg.Exec(ctx, "DROP SCHEMA public CASCADE", "CREATE SCHEMA public"); err != nil {
					b.Fatal(err)
				}
				_, err := pg.Load(ctx, sqlgen.DatalogTables(w.types), func(emit func(string, []any) error) error {
					return sqlgen.DatalogRows(w.types, func(rel string) [][]string { return w.rels[rel] }, emit)
				})
				if err != nil {
					b.Fatal(err)
				}
				for rel := range w.rels {
					if err := pg.Exec(ctx, fmt.Sprintf("CREATE INDEX ON %s(c1, c2)", rel), fmt.Sprintf("CREATE INDEX ON %s(c2, c1)", rel), "ANALYZE "+rel); err != nil {
						b.Fatal(err)
					}
				}
				rows, err := pg.Rows(ctx, w.sql)
				if err != nil {
					b.Fatal(err)
				}
				strs := make([][]string, len(rows))
				for i, r := range rows {
					for _, v := range r {
						strs[i] = append(strs[i], fmt.Sprint(v))
					}
				}
				if got := sortedRows(strs); !slices.Equal(got, times[w.name].rows) {
					b.Fatalf("%s: PostgreSQL returns other rows (%d) than ctxql (%d)", w.name, len(got), len(times[w.name].rows))
				}
				for range reps {
					s := time.Now()
					if _, err := pg.Rows(ctx, "SELECT count(*) FROM ("+w.sql+") s"); err != nil {
						b.Fatal(err)
					}
					pgTimes[w.name] = append(pgTimes[w.name], time.Since(s))
				}
			}
			pg.Close()
		}

		fmt.Printf("load average at the end: %s\n", loadAvg())
		if duck != nil {
			fmt.Printf("DuckDB %s\n", duck.Version)
		}
		fmt.Println("workload | rows | ctxql loaded 1w | 2w | 2w speed-up | cpu 1w | cpu 2w | DuckDB prebuilt 1t | 2t | ratio 1w/1t | 2w/2t | PostgreSQL | ratio 1w/pg")
		for _, w := range ws {
			t := times[w.name]
			w1, w2 := medianD(t.warm[1]), medianD(t.warm[2])
			line := fmt.Sprintf("%s | %d | %.1f ms | %.1f ms | %.2fx | %.1f ms | %.1f ms", w.name, len(t.rows), msOf(w1), msOf(w2),
				float64(w1)/float64(w2), msOf(t.cpu[1])/float64(reps), msOf(t.cpu[2])/float64(reps))
			b.ReportMetric(float64(w1)/float64(w2), w.name+"-speedup-2w")
			if duck != nil {
				p1, p2 := duck.Prebuilt[w.name]["1"], duck.Prebuilt[w.name]["2"]
				line += fmt.Sprintf(" | %.1f ms | %.1f ms | %.2f | %.2f", p1, p2, msOf(w1)/p1, msOf(w2)/p2)
				b.ReportMetric(msOf(w1)/p1, w.name+"-x-duck-1t")
			} else {
				line += " | - | - | - | -"
			}
			if pt := pgTimes[w.name]; len(pt) > 0 {
				line += fmt.Sprintf(" | %.1f ms | %.2f", msOf(medianD(pt)), float64(w1)/float64(medianD(pt)))
				b.ReportMetric(float64(w1)/float64(medianD(pt)), w.name+"-x-pg")
			} else {
				line += " | - | -"
			}
			fmt.Println(line)
		}
		fmt.Println("end to end | ctxql load in process (JSON) | binary from JSON: wall, cpu | from CSV: wall, cpu | DuckDB read CSV + query 1t | 2t | ratio JSON wall/2t")
		for _, w := range ws {
			t := times[w.name]
			ej, ec := medianD(t.e2eJSON), medianD(t.e2eCSV)
			line := fmt.Sprintf("%s | %.1f ms (%.0f MB/s) | %.1f ms, %.1f ms | %.1f ms, %.1f ms", w.name, t.loadJSON, t.loadMB/t.loadJSON*1000,
				msOf(ej), msOf(medianD(t.cpuJSON)), msOf(ec), msOf(medianD(t.cpuCSV)))
			b.ReportMetric(t.loadMB/msOf(ej)*1000, w.name+"-e2e-json-MB/s")
			if duck != nil {
				e1, e2 := duck.E2E[w.name]["1"], duck.E2E[w.name]["2"]
				line += fmt.Sprintf(" | %.1f ms | %.1f ms | %.2f", e1, e2, msOf(ej)/e2)
			}
			fmt.Println(line)
		}
		fmt.Println("ratio: ctxql time / anchor time (< 1: ctxql faster); DuckDB and PostgreSQL time count(*) over the query")
	}
}

// BenchmarkLoadCLI measures loading as a whole process: `ctxql eval
// datalog --rules P --data D` over the negation workload's data (11 MB of
// JSON; BenchmarkAnchors) as a JSON file, a directory of CSV files and one
// of tab-separated .facts files, with a program whose one rule reads only
// the small relation and derives nothing, so that the time is the
// process's start, the load and the print of an empty result. The anchor
// in the same run is the same process over an empty JSON file (the start
// alone). Each form is run DL_LOAD_REPS times (default 5), the forms
// alternating; it reports the JSON's MB/s per wall and per CPU second
// (user + system; median runs) and each facts directory's time relative to
// the JSON's (target: ≥ 200 MB/s wall, facts ≤ 1). With DL_LOAD_BASELINE
// set to a ctxql binary, that binary runs alternately with the current
// one and is reported beside it.
func BenchmarkLoadCLI(b *testing.B) {
	reps := 5
	if s := os.Getenv("DL_LOAD_REPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		reps = n
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	bins := []string{bin}
	if base := os.Getenv("DL_LOAD_BASELINE"); base != "" {
		bins = append(bins, base)
	}
	w := anchorWorkloads()[0]
	w.write(b, dir) // negation.json, negation/*.csv
	tsv := filepath.Join(dir, "tsv")
	if err := os.MkdirAll(tsv, 0o755); err != nil {
		b.Fatal(err)
	}
	for name, tuples := range w.rels {
		var buf bytes.Buffer
		for _, t := range tuples {
			buf.WriteString(strings.Join(t, "\t"))
			buf.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(tsv, name+".facts"), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	empty := filepath.Join(dir, "empty.json")
	rules := filepath.Join(dir, "load.dl")
	for p, s := range map[string]string{empty: `{"relations": {}}`, rules: "relation path(Proc, Proc);\nrelation rw_proc(Proc, Proc);\nq(x) <-- rw_proc(x, x);\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	forms := []struct{ name, path string }{{"json", filepath.Join(dir, "negation.json")}, {"csv", filepath.Join(dir, "negation")}, {"tsv", tsv}, {"start", empty}}
	st, err := os.Stat(forms[0].path)
	if err != nil {
		b.Fatal(err)
	}
	mb := float64(st.Size()) / 1e6
	run := func(bin, data string) (wall, cpu time.Duration) {
		cmd := exec.Command(bin, "eval", "datalog", "--data", data, "--rules", rules, "--relations", "q")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		s := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %s: %v\n%s", bin, data, err, errb.String())
		}
		wall = time.Since(s)
		if got := strings.TrimSpace(out.String()); got != `{"q":[]}` {
			b.Fatalf("%s %s: output %.200q, want an empty q", bin, data, got)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	fmt.Printf("load average at the start: %s (%d CPUs); JSON %.1f MB\n", loadAvg(), runtime.NumCPU(), mb)
	for b.Loop() {
		walls := map[string][]time.Duration{}
		cpus := map[string][]time.Duration{}
		for range reps {
			for _, f := range forms {
				for i, bn := range bins {
					k := fmt.Sprintf("%d %s", i, f.name)
					wl, c := run(bn, f.path)
					walls[k], cpus[k] = append(walls[k], wl), append(cpus[k], c)
				}
			}
		}
		for i, bn := range bins {
			med := func(f string) (time.Duration, time.Duration) {
				k := fmt.Sprintf("%d %s", i, f)
				return medianD(walls[k]), medianD(cpus[k])
			}
			jw, jc := med("json")
			cw, cc := med("csv")
			tw, tc := med("tsv")
			sw, sc := med("start")
			fmt.Printf("%s: JSON %.0f ms wall, %.0f ms CPU: %.0f MB/s wall, %.0f MB/s CPU; CSV %.0f / %.0f ms (%.2fx, %.2fx JSON); TSV %.0f / %.0f ms (%.2fx, %.2fx); start alone %.0f / %.0f ms\n",
				bn, msOf(jw), msOf(jc), mb/jw.Seconds(), mb/jc.Seconds(), msOf(cw), msOf(cc), float64(cw)/float64(jw), float64(cc)/float64(jc),
				msOf(tw), msOf(tc), float64(tw)/float64(jw), float64(tc)/float64(jc), msOf(sw), msOf(sc))
			if i == 0 {
				b.ReportMetric(mb/jw.Seconds(), "json-MB/s")
				b.ReportMetric(mb/jc.Seconds(), "json-cpu-MB/s")
				b.ReportMetric(float64(cw)/float64(jw), "csv-x-json")
				b.ReportMetric(float64(tw)/float64(jw), "tsv-x-json")
				b.ReportMetric(msOf(sw), "start-ms")
			}
		}
		fmt.Printf("load average at the end: %s\n", loadAvg())
	}
}
