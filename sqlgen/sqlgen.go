// Package sqlgen compiles parsed JQL queries and Datalog programs to the
// SQL of a database (SQLite, PostgreSQL, DuckDB) over a documented table
// layout, and derives the rows of that layout from the data ctxql reads.
//
// It generates text only: running the SQL is the engine package's work, so
// that builds without database drivers (WebAssembly) can still compile.
// What cannot be compiled to a query that answers exactly what the
// in-process evaluator answers is refused with an *UnsupportedError naming
// the construct.
package sqlgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Dialect is a database's SQL dialect.
type Dialect string

// The dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
	DuckDB   Dialect = "duckdb"
)

// Dialects lists the dialects in documentation order.
func Dialects() []Dialect { return []Dialect{SQLite, Postgres, DuckDB} }

// ParseDialect reads a dialect name ("postgresql" is Postgres).
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(s) {
	case "sqlite":
		return SQLite, nil
	case "postgres", "postgresql":
		return Postgres, nil
	case "duckdb":
		return DuckDB, nil
	}
	return "", fmt.Errorf("unknown SQL dialect %q (want sqlite, postgres or duckdb)", s)
}

// UnsupportedError refuses a construct that cannot be compiled to the
// dialect without changing the answer.
type UnsupportedError struct {
	// Construct names what was refused.
	Construct string
	// Dialect is the target.
	Dialect Dialect
	// Why says what the dialect or the compiler lacks.
	Why string
}

// Error implements error.
func (e *UnsupportedError) Error() string {
	s := fmt.Sprintf("%s cannot be compiled to %s", e.Construct, e.Dialect)
	if e.Why != "" {
		s += ": " + e.Why
	}
	return s
}

// Column is a column of a table.
type Column struct {
	// Name is the column name.
	Name string
	// Type is one of the Type constants.
	Type Type
}

// Type is a column type, spelled per dialect by SQLType.
type Type int

// The column types.
const (
	// Text is byte-ordered text.
	Text Type = iota
	// Int is a 64-bit integer.
	Int
	// Float is a 64-bit float.
	Float
	// JSON is a JSON document kept as written (key order, duplicate keys
	// and number spelling preserved).
	JSON
	// Value is text in the database's default collation: a Datalog value,
	// compared for equality only (the result is sorted by ctxql).
	Value
)

// SQLType spells t in the dialect.
func (d Dialect) SQLType(t Type) string {
	switch t {
	case Int:
		if d == SQLite {
			return "INTEGER"
		}
		return "BIGINT"
	case Float:
		if d == SQLite {
			return "REAL"
		}
		return "DOUBLE PRECISION"
	case JSON:
		switch d {
		case Postgres:
			return "JSON"
		case DuckDB:
			return "JSON"
		}
		return "TEXT"
	}
	if d == Postgres && t == Text {
		return `TEXT COLLATE "C"`
	}
	return "TEXT"
}

// Table is a table of the layout.
type Table struct {
	// Name is the table name.
	Name string
	// Columns are the columns in order.
	Columns []Column
	// Indexes are the column lists indexed.
	Indexes [][]string
}

// Create returns the statements that drop and create the table.
func (t Table) Create(d Dialect) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", Ident(t.Name))
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", Ident(c.Name), d.SQLType(c.Type))
	}
	b.WriteString(")")
	return []string{"DROP TABLE IF EXISTS " + Ident(t.Name), b.String()}
}

// CreateIndexes returns the statements that create the table's indexes
// (after it is filled: building an index at once is faster than row by
// row).
func (t Table) CreateIndexes(d Dialect) []string {
	var out []string
	for i, ix := range t.Indexes {
		cols := make([]string, len(ix))
		for j, c := range ix {
			cols[j] = Ident(c)
		}
		out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", Ident(fmt.Sprintf("%s_ix%d", t.Name, i)), Ident(t.Name), strings.Join(cols, ", ")))
	}
	return out
}

// Insert returns the statement inserting rows rows into the table, with
// the dialect's placeholders.
func (t Table) Insert(d Dialect, rows int) string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = Ident(c.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", Ident(t.Name), strings.Join(cols, ", "))
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(d.Placeholder(n))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Placeholder is the n-th (from 1) bind parameter.
func (d Dialect) Placeholder(n int) string {
	if d == SQLite {
		return "?"
	}
	return "$" + strconv.Itoa(n)
}

// Ident quotes an identifier when it is not a plain lower-case word.
func Ident(s string) string {
	plain := s != ""
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			plain = false
		}
	}
	if plain && !reserved[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

var reserved = map[string]bool{
	"select": true, "from": true, "where": true, "order": true, "group": true, "limit": true, "table": true,
	"with": true, "union": true, "all": true, "as": true, "and": true, "or": true, "not": true, "in": true,
	"is": true, "null": true, "on": true, "join": true, "by": true, "values": true, "case": true, "when": true,
	"then": true, "else": true, "end": true, "exists": true, "distinct": true, "recursive": true, "user": true,
}

// String quotes a string literal. A string holding U+0000 is refused:
// PostgreSQL text cannot hold it, and the other dialects are kept alike.
func (d Dialect) String(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", &UnsupportedError{Construct: "a string holding U+0000", Dialect: d, Why: "SQL text cannot hold it"}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
}

// Float spells a float64 so that the database reads the same value.
func (d Dialect) Float(f float64) string {
	switch {
	case math.IsInf(f, 1):
		if d == SQLite {
			return "9e999"
		}
		return "CAST('Infinity' AS DOUBLE PRECISION)"
	case math.IsInf(f, -1):
		if d == SQLite {
			return "-9e999"
		}
		return "CAST('-Infinity' AS DOUBLE PRECISION)"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if d == SQLite {
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	}
	return "CAST(" + s + " AS DOUBLE PRECISION)"
}

// Literal spells a row value (string, int64, float64, nil) as a literal
// of the dialect, for statements that carry their values inline.
func (d Dialect) Literal(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return d.String(v)
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return d.Float(v), nil
	}
	return "", fmt.Errorf("no literal for %T", v)
}

// InsertLiteral is the statement inserting one row into the table with
// its values inline.
func (t Table) InsertLiteral(d Dialect, row []any) (string, error) {
	return t.InsertLiterals(d, [][]any{row})
}

// InsertLiterals is one statement inserting rows into the table with
// their values inline: engines that take milliseconds a statement load a
// table in one.
func (t Table) InsertLiterals(d Dialect, rows [][]any) (string, error) {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = Ident(c.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", Ident(t.Name), strings.Join(cols, ", "))
	for r, row := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, v := range row {
			l, err := d.Literal(v)
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(l)
		}
		b.WriteByte(')')
	}
	return b.String(), nil
}
