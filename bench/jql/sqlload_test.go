package jql_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ctxql/ctxql/bench/internal/gen"
	"github.com/ctxql/ctxql/internal/duckdbtest"
	"github.com/ctxql/ctxql/sqlgen"
)

// The bulk load of the SQL benchmarks: the rows `ctxql load` writes for
// the activities of gen.Activities (sqlgen.JQLRows, ord counting from 0),
// derived once on every core and written as gzipped CSV, one file per
// table; PostgreSQL reads the files through COPY FROM STDIN, DuckDB
// through read_csv. Ten million activities are 5.5 GB of JSON and 141
// million node rows: neither the JSON nor the rows pass through a file
// uncompressed.

// csvFile is the gzipped CSV file of a table in dir.
func csvFile(dir, table string) string { return filepath.Join(dir, table+".csv.gz") }

// appendCSV appends one CSV field: NULL as nothing, text always quoted
// (so that an empty string stays one), numbers as Go spells them.
func appendCSV(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return b, nil
	case string:
		b = append(b, '"')
		for i := 0; i < len(v); i++ {
			if v[i] == '"' {
				b = append(b, '"')
			}
			b = append(b, v[i])
		}
		return append(b, '"'), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case float64:
		return strconv.AppendFloat(b, v, 'g', -1, 64), nil
	}
	return b, fmt.Errorf("no CSV spelling for %T", v)
}

// batchOut is the CSV text of a batch of activities, per table.
type batchOut struct {
	text map[string][]byte
	rows map[string]int64
	err  error
}

// writeCSV generates n activities and writes the rows of the layout's
// tables (with the flattened columns of m) as gzipped CSV files in dir;
// it returns the rows per table.
func writeCSV(ctx context.Context, dir string, n int, m sqlgen.JQLMapping) (map[string]int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		_, err := gen.Activities(pw, n)
		pw.CloseWithError(err)
	}()
	defer pr.Close()

	type batch struct {
		ord   int64
		lines [][]byte
		out   chan batchOut
	}
	jobs := make(chan *batch, 8)
	order := make(chan *batch, 64)
	workers := runtime.GOMAXPROCS(0)
	for range workers {
		go func() {
			for bt := range jobs {
				o := batchOut{text: map[string][]byte{}, rows: map[string]int64{}}
				for i, line := range bt.lines {
					err := sqlgen.JQLRowsMapped("activities", bt.ord+int64(i), line, m["activities"], func(table string, row []any) error {
						b := o.text[table]
						for k, v := range row {
							if k > 0 {
								b = append(b, ',')
							}
							var err error
							if b, err = appendCSV(b, v); err != nil {
								return err
							}
						}
						o.text[table] = append(b, '\n')
						o.rows[table]++
						return nil
					})
					if err != nil {
						o.err = err
						break
					}
				}
				bt.out <- o
			}
		}()
	}
	// The reader cuts the stream into batches of lines, in order.
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		br := bufio.NewReaderSize(pr, 1<<20)
		var ord int64
		for {
			bt := &batch{ord: ord, out: make(chan batchOut, 1)}
			var err error
			for len(bt.lines) < 2048 {
				var line []byte
				line, err = br.ReadBytes('\n')
				if len(line) > 0 {
					bt.lines = append(bt.lines, bytes.TrimSuffix(line, []byte("\n")))
				}
				if err != nil {
					break
				}
			}
			if len(bt.lines) > 0 {
				select {
				case jobs <- bt:
				case <-ctx.Done():
					readErr <- ctx.Err()
					return
				}
				order <- bt
				ord += int64(len(bt.lines))
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
		}
	}()
	type sink struct {
		f  *os.File
		bw *bufio.Writer
		zw *gzip.Writer
	}
	sinks := map[string]*sink{}
	for _, t := range sqlgen.JQLTablesMapped("activities", m["activities"]) {
		f, err := os.Create(csvFile(dir, t.Name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		bw := bufio.NewWriterSize(f, 1<<20)
		zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
		sinks[t.Name] = &sink{f, bw, zw}
	}
	counts := map[string]int64{}
	for bt := range order {
		o := <-bt.out
		if o.err != nil {
			return nil, o.err
		}
		for table, text := range o.text {
			s := sinks[table]
			if s == nil {
				return nil, fmt.Errorf("no table %s", table)
			}
			if _, err := s.zw.Write(text); err != nil {
				return nil, err
			}
			counts[table] += o.rows[table]
		}
	}
	if err := <-readErr; err != nil {
		return nil, err
	}
	for _, s := range sinks {
		if err := s.zw.Close(); err != nil {
			return nil, err
		}
		if err := s.bw.Flush(); err != nil {
			return nil, err
		}
		if err := s.f.Close(); err != nil {
			return nil, err
		}
	}
	return counts, nil
}

// loadPostgres creates the tables of the layout in the database at url
// and fills them from the CSV files in dir with COPY, then builds the
// indexes and gathers the statistics, as `ctxql load` leaves them.
func loadPostgres(ctx context.Context, url, dir string, tables []sqlgen.Table) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	// Index builds sort in memory rather than in many runs on disk.
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '1GB'"); err != nil {
		return err
	}
	for _, t := range tables {
		for _, s := range t.Create(sqlgen.Postgres) {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		f, err := os.Open(csvFile(dir, t.Name))
		if err != nil {
			return err
		}
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
		if err != nil {
			f.Close()
			return err
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = sqlgen.Ident(c.Name)
		}
		_, err = conn.PgConn().CopyFrom(ctx, zr, fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT csv)", sqlgen.Ident(t.Name), strings.Join(cols, ", ")))
		f.Close()
		if err != nil {
			return fmt.Errorf("copy %s: %w", t.Name, err)
		}
		for _, s := range append(t.CreateIndexes(sqlgen.Postgres), "ANALYZE "+sqlgen.Ident(t.Name)) {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	return nil
}

// duckDBLoadItems are the items that attach a DuckDB database file in dir
// (the tables of ten million activities do not fit the memory of an
// in-memory database), create the tables of the layout there and fill
// them from the CSV files in csvDir, then build the indexes.
func duckDBLoadItems(dir, csvDir string, tables []sqlgen.Table) []duckdbtest.Item {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	items := []duckdbtest.Item{
		{Exec: "ATTACH " + q(filepath.Join(dir, "bench.duckdb")) + " AS bench"},
		{Exec: "USE bench"},
		{Exec: "SET temp_directory = " + q(filepath.Join(dir, "duckdb.tmp"))},
	}
	// The memory DuckDB may take (JQL_SQL_DUCKDB_MEMORY, default 8GB; its
	// own default is 80 % of the machine's), the rest spilled to files.
	mem := os.Getenv("JQL_SQL_DUCKDB_MEMORY")
	if mem == "" {
		mem = "8GB"
	}
	items = append(items, duckdbtest.Item{Exec: "SET memory_limit = " + q(mem)})
	for _, t := range tables {
		var cols []string
		for _, c := range t.Columns {
			typ := "VARCHAR"
			switch c.Type {
			case sqlgen.Int:
				typ = "BIGINT"
			case sqlgen.Float:
				typ = "DOUBLE"
			}
			cols = append(cols, fmt.Sprintf("'%s': '%s'", c.Name, typ))
		}
		for _, s := range t.Create(sqlgen.DuckDB) {
			items = append(items, duckdbtest.Item{Exec: s})
		}
		items = append(items, duckdbtest.Item{Exec: fmt.Sprintf(
			`INSERT INTO %s SELECT * FROM read_csv(%s, header = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, columns = {%s})`,
			sqlgen.Ident(t.Name), q(csvFile(csvDir, t.Name)), strings.Join(cols, ", "))})
		// DuckDB answers both queries with table scans and hash joins,
		// with or without the indexes (EXPLAIN ANALYZE); building them on
		// 141 million node rows takes most of the load, so
		// JQL_SQL_DUCKDB_INDEXES=0 leaves them out.
		if os.Getenv("JQL_SQL_DUCKDB_INDEXES") != "0" {
			for _, s := range t.CreateIndexes(sqlgen.DuckDB) {
				items = append(items, duckdbtest.Item{Exec: s})
			}
		}
		items = append(items, duckdbtest.Item{Exec: "ANALYZE " + sqlgen.Ident(t.Name)})
	}
	return items
}
