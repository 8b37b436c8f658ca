// Package engine runs compiled SQL on a database reached by URL through a
// pure-Go driver: sqlite:FILE (modernc.org/sqlite) and postgres://…
// (github.com/jackc/pgx/v5). It creates and fills the tables of the layout
// sqlgen documents and returns the rows of a compiled query; what the rows
// mean is the language table's business.
package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	// The drivers register themselves with database/sql.
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/ctxql/ctxql/sqlgen"
)

// URLError reports an engine URL that names no database ctxql can reach.
type URLError struct {
	// URL is the URL as given.
	URL string
	// Why says what is wrong with it.
	Why string
}

// Error implements error.
func (e *URLError) Error() string { return fmt.Sprintf("engine %q: %s", e.URL, e.Why) }

// DB is an open database.
type DB struct {
	db      *sql.DB
	dialect sqlgen.Dialect
}

// Open opens the database an engine URL names: sqlite:FILE (the file is
// created when missing), postgres://… or postgresql://… (any URL or
// key=value string pgx accepts after the scheme). duckdb:FILE is refused:
// DuckDB has no driver without cgo, and ctxql is built without cgo.
func Open(ctx context.Context, url string) (*DB, error) {
	var driver, dsn string
	var d sqlgen.Dialect
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		driver, dsn, d = "sqlite", strings.TrimPrefix(url, "sqlite:"), sqlgen.SQLite
		if dsn == "" {
			return nil, &URLError{URL: url, Why: "no file after sqlite:"}
		}
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		driver, dsn, d = "pgx", url, sqlgen.Postgres
	case strings.HasPrefix(url, "duckdb:"):
		return nil, &URLError{URL: url, Why: "DuckDB has no driver without cgo; run the SQL of `ctxql compile --to duckdb` in DuckDB"}
	default:
		return nil, &URLError{URL: url, Why: "want sqlite:FILE or postgres://…"}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &DB{db: db, dialect: d}, nil
}

// Dialect is the database's SQL dialect.
func (db *DB) Dialect() sqlgen.Dialect { return db.dialect }

// Close closes the database.
func (db *DB) Close() error { return db.db.Close() }

// batch is the number of rows one INSERT statement of Load carries.
const batch = 128

// Load replaces the tables with new ones filled by rows, which calls emit
// once per row with the row's table, in one transaction (the database
// holds the old tables or the new ones, never a part), then gathers the
// tables' statistics for the planner.
func (db *DB) Load(ctx context.Context, tables []sqlgen.Table, rows func(emit func(table string, row []any) error) error) (counts map[string]int64, err error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreDone(tx.Rollback()))
		}
	}()
	type pending struct {
		t    sqlgen.Table
		full *sql.Stmt // inserts batch rows
		rows []any     // the values of the rows not inserted yet
	}
	byName := map[string]*pending{}
	for _, t := range tables {
		for _, s := range t.Create(db.dialect) {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return nil, fmt.Errorf("engine: %s: %w", s, err)
			}
		}
		st, err := tx.PrepareContext(ctx, t.Insert(db.dialect, batch))
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		defer st.Close()
		byName[t.Name] = &pending{t: t, full: st}
	}
	counts = map[string]int64{}
	err = rows(func(table string, row []any) error {
		p := byName[table]
		if p == nil {
			return fmt.Errorf("engine: no table %s", table)
		}
		if len(row) != len(p.t.Columns) {
			return fmt.Errorf("engine: a row of %s has %d values, want %d", table, len(row), len(p.t.Columns))
		}
		p.rows = append(p.rows, row...)
		counts[table]++
		if len(p.rows) == batch*len(row) {
			if _, err := p.full.ExecContext(ctx, p.rows...); err != nil {
				return fmt.Errorf("engine: rows of %s: %w", table, err)
			}
			p.rows = p.rows[:0]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		p := byName[t.Name]
		if n := len(p.rows) / max(len(t.Columns), 1); n > 0 {
			if _, err := tx.ExecContext(ctx, t.Insert(db.dialect, n), p.rows...); err != nil {
				return nil, fmt.Errorf("engine: rows of %s: %w", t.Name, err)
			}
		}
		for _, s := range t.CreateIndexes(db.dialect) {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return nil, fmt.Errorf("engine: %s: %w", s, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	// Statistics of the new tables: without them the planners guess
	// thousands of rows per table (and PostgreSQL compiles small queries
	// to machine code, which costs seconds).
	for _, t := range tables {
		if _, err := db.db.ExecContext(ctx, "ANALYZE "+sqlgen.Ident(t.Name)); err != nil {
			return nil, fmt.Errorf("engine: analyze %s: %w", t.Name, err)
		}
	}
	return counts, nil
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// Texts runs a query whose rows have one column and returns its values as
// text (JSON documents, or a count).
func (db *DB) Texts(ctx context.Context, query string) ([][]byte, error) {
	rs, err := db.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	defer rs.Close()
	var out [][]byte
	for rs.Next() {
		var b []byte
		if err := rs.Scan(&b); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		out = append(out, b)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return out, nil
}

// Rows runs a query and returns every row, each value as the driver gives
// it (int64, float64, string, []byte, bool or nil).
// A statement failing with a refusal (a construct that, on this data,
// would not give the in-process answer: see sqlgen.Refused) returns the
// *sqlgen.UnsupportedError.
func (db *DB) Rows(ctx context.Context, query string) ([][]any, error) {
	rows, err := queryRows(ctx, db.db, query)
	if u := sqlgen.Refused(err, db.dialect); u != nil {
		return nil, u
	}
	return rows, err
}

// Exec runs statements, in order, in one transaction.
func (db *DB) Exec(ctx context.Context, stmts ...string) (err error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return errors.Join(fmt.Errorf("engine: %w", err), ignoreDone(tx.Rollback()))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}

// RunScript runs a semi-naive evaluation on one connection (its temporary
// tables live there), then each of queries, and returns their rows; the
// script's cleanup runs whatever happened.
func (db *DB) RunScript(ctx context.Context, sc *sqlgen.Script, queries []string) (out [][][]any, err error) {
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	defer conn.Close()
	defer func() {
		for _, s := range sc.Cleanup {
			if _, cerr := conn.ExecContext(context.WithoutCancel(ctx), s); cerr != nil && err == nil {
				err = fmt.Errorf("engine: %s: %w", s, cerr)
			}
		}
	}()
	for _, st := range sc.Steps {
		for {
			for _, s := range st.Stmts {
				if _, err := conn.ExecContext(ctx, s); err != nil {
					if u := sqlgen.Refused(err, db.dialect); u != nil {
						return nil, u
					}
					return nil, fmt.Errorf("engine: %s: %w", s, err)
				}
			}
			if !st.Loop {
				break
			}
			var n int64
			if err := conn.QueryRowContext(ctx, st.Count).Scan(&n); err != nil {
				return nil, fmt.Errorf("engine: %s: %w", st.Count, err)
			}
			if n == 0 {
				break
			}
		}
	}
	for _, q := range queries {
		rows, err := queryRows(ctx, conn, q)
		if err != nil {
			if u := sqlgen.Refused(err, db.dialect); u != nil {
				return nil, u
			}
			return nil, err
		}
		out = append(out, rows)
	}
	return out, nil
}

// queryer is what a query needs of a database or a connection.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryRows(ctx context.Context, q queryer, query string) ([][]any, error) {
	rs, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var out [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return out, nil
}
