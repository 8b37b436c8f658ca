// Package duckdbtest runs SQL in DuckDB for tests, through the npm
// package @duckdb/node-api (sqlgen/testdata/duckdb, installed by
// scripts/test with npm ci): the ctxql binary links no DuckDB driver.
// When node or the package is missing the test is skipped, except in CI
// (CI set), where it fails.
package duckdbtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/sqlgen"
)

// dir is the runner's directory.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "sqlgen", "testdata", "duckdb")
}

// Available skips (or, in CI, fails) the test when DuckDB cannot be run.
func Available(t testing.TB) {
	t.Helper()
	why := ""
	if _, err := exec.LookPath("node"); err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(dir(), "node_modules", "@duckdb", "node-api")); err != nil {
		why = "@duckdb/node-api is not installed (npm ci in sqlgen/testdata/duckdb)"
	}
	if why == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("DuckDB: " + why)
	}
	t.Skip("DuckDB: " + why)
}

// Run runs the setup statements, then the queries, in one in-memory
// DuckDB database and returns each query's rows, every value as text (nil
// for NULL). A statement DuckDB rejects is an error naming it.
func Run(t testing.TB, setup, queries []string) ([][][]*string, error) {
	t.Helper()
	var items []Item
	for _, s := range setup {
		items = append(items, Item{Exec: s})
	}
	for _, q := range queries {
		items = append(items, Item{Read: q})
	}
	return RunItems(t, items)
}

// Item is one step of a job: a statement run (Exec), a query read (Read),
// statements run again while Count reads a non-zero number (Loop), or a
// query read and then timed over N more runs (Time).
type Item struct {
	Exec  string   `json:"exec,omitempty"`
	Read  string   `json:"read,omitempty"`
	Loop  []string `json:"loop,omitempty"`
	Count string   `json:"count,omitempty"`
	Time  string   `json:"time,omitempty"`
	N     int      `json:"n,omitempty"`
	// Quiet makes a Time item's rows an empty result.
	Quiet bool `json:"quiet,omitempty"`
	// Group, when set, makes a failure of the item end its group only:
	// RunGroups reports it, the group's later items are skipped (a Read
	// then gives a nil result).
	Group string `json:"group,omitempty"`
}

// RunGroups is RunItems for items in groups: it also returns the error
// message of every group that failed.
func RunGroups(t testing.TB, items []Item) ([][][]*string, map[string]string, error) {
	t.Helper()
	res, err := run(t, items)
	if err != nil {
		return nil, nil, err
	}
	return res.Results, res.Failed, nil
}

// RunItems runs the items in order in one in-memory DuckDB database and
// returns the rows of each Read item.
func RunItems(t testing.TB, items []Item) ([][][]*string, error) {
	t.Helper()
	res, _, err := RunTimed(t, items)
	return res, err
}

// RunTimed is RunItems that also returns, per Time item in order, the
// median time of its timed runs in milliseconds (the rows read included).
func RunTimed(t testing.TB, items []Item) ([][][]*string, []float64, error) {
	t.Helper()
	res, err := run(t, items)
	if err != nil {
		return nil, nil, err
	}
	return res.Results, res.Times, nil
}

type result struct {
	Results [][][]*string     `json:"results"`
	Times   []float64         `json:"times"`
	Failed  map[string]string `json:"failed"`
	Error   string            `json:"error"`
	SQL     string            `json:"sql"`
}

func run(t testing.TB, items []Item) (*result, error) {
	t.Helper()
	Available(t)
	job, err := json.Marshal(map[string][]Item{"items": items})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", "run.mjs")
	cmd.Dir = dir()
	cmd.Stdin = bytes.NewReader(job)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node run.mjs: %w\n%s", err, stderr.Bytes())
	}
	var res result
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("node run.mjs: %w\n%s", err, out)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("duckdb: %s\n%s", res.Error, res.SQL)
	}
	return &res, nil
}

// Pairs are the Time items of rounds of two queries in turns (a first,
// then b, then b first, …), each read once and timed once: under a
// changing load, both see the same. The first round's rows are returned,
// the others' are empty. PairMedians reads their times.
func Pairs(a, b string, rounds int) []Item {
	var out []Item
	for i := range rounds {
		x, y := Item{Time: a, N: 1, Quiet: i > 0}, Item{Time: b, N: 1, Quiet: i > 0}
		if i%2 == 1 {
			x, y = y, x
		}
		out = append(out, x, y)
	}
	return out
}

// PairMedians returns the median times of the two queries of Pairs from
// the times RunTimed returned for its items.
func PairMedians(times []float64) (a, b float64) {
	var as, bs []float64
	for i := 0; i+1 < len(times); i += 2 {
		x, y := times[i], times[i+1]
		if (i/2)%2 == 1 {
			x, y = y, x
		}
		as, bs = append(as, x), append(bs, y)
	}
	slices.Sort(as)
	slices.Sort(bs)
	if len(as) == 0 {
		return 0, 0
	}
	return as[len(as)/2], bs[len(bs)/2]
}

// LoadItems writes the rows rows hands its emit (by table) as JSON Lines
// files in dir and returns the items that create tables in DuckDB and
// fill them from those files (read_json: NULL stays NULL, text stays
// text), then build the tables' indexes.
func LoadItems(dir string, tables []sqlgen.Table, rows func(emit func(table string, row []any) error) error) ([]Item, error) {
	files := map[string]*os.File{}
	bufs := map[string]*bufio.Writer{}
	byName := map[string]sqlgen.Table{}
	for i, tb := range tables {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i)))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		files[tb.Name], bufs[tb.Name], byName[tb.Name] = f, bufio.NewWriterSize(f, 1<<20), tb
	}
	err := rows(func(table string, row []any) error {
		tb, ok := byName[table]
		if !ok {
			return fmt.Errorf("no table %s", table)
		}
		obj := make(map[string]any, len(row))
		for i, v := range row {
			obj[tb.Columns[i].Name] = v
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		w := bufs[table]
		w.Write(b)
		return w.WriteByte('\n')
	})
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, tb := range tables {
		if err := bufs[tb.Name].Flush(); err != nil {
			return nil, err
		}
		var cols []string
		for _, c := range tb.Columns {
			typ := "VARCHAR"
			switch c.Type {
			case sqlgen.Int:
				typ = "BIGINT"
			case sqlgen.Float:
				typ = "DOUBLE"
			}
			cols = append(cols, fmt.Sprintf("'%s': '%s'", c.Name, typ))
		}
		for _, s := range tb.Create(sqlgen.DuckDB)[1:] {
			items = append(items, Item{Exec: s})
		}
		items = append(items, Item{Exec: fmt.Sprintf("INSERT INTO %s SELECT * FROM read_json('%s', format = 'newline_delimited', columns = {%s})",
			sqlgen.Ident(tb.Name), files[tb.Name].Name(), strings.Join(cols, ", "))})
		for _, s := range tb.CreateIndexes(sqlgen.DuckDB) {
			items = append(items, Item{Exec: s})
		}
	}
	return items, nil
}
