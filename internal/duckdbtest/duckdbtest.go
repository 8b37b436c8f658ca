// Package duckdbtest runs SQL in DuckDB for tests, through the npm
// package @duckdb/node-api (sqlgen/testdata/duckdb, installed by
// scripts/test with npm ci): the ctxql binary links no DuckDB driver.
// When node or the package is missing the test is skipped, except in CI
// (CI set), where it fails.
package duckdbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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
// or statements run again while Count reads a non-zero number (Loop).
type Item struct {
	Exec  string   `json:"exec,omitempty"`
	Read  string   `json:"read,omitempty"`
	Loop  []string `json:"loop,omitempty"`
	Count string   `json:"count,omitempty"`
}

// RunItems runs the items in order in one in-memory DuckDB database and
// returns the rows of each Read item.
func RunItems(t testing.TB, items []Item) ([][][]*string, error) {
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
	var res struct {
		Results [][][]*string `json:"results"`
		Error   string        `json:"error"`
		SQL     string        `json:"sql"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("node run.mjs: %w\n%s", err, out)
	}
	if res.Error != "" {
		return nil, fmt.Errorf("duckdb: %s\n%s", res.Error, res.SQL)
	}
	return res.Results, nil
}
