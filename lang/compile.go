package lang

import (
	"context"
	"errors"
	"fmt"
	"strings"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/sqlgen"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// Compiled is a query compiled to the SQL of a database over the table
// layout of docs/sql.md. An engine runs SQL (and CursorSQL, when set) and
// hands the rows to Finish, which answers what Evaluate answers over the
// same data.
type Compiled struct {
	// Lang is the query's language.
	Lang *Language
	// File is the compiled text, for positions.
	File *syntax.File
	// Dialect is the target dialect.
	Dialect sqlgen.Dialect
	// SQL is the query.
	SQL string
	// CursorSQL, for a JQL query with a startAfter cursor, counts the
	// documents the cursor names: none makes the query invalid.
	CursorSQL string
	// Diagnostics are the query's errors when it is invalid (as Evaluate
	// reports them), else its warnings.
	Diagnostics []syntax.Diagnostic

	jq    *jql.Query
	jdiag []syntax.Diagnostic
}

// Invalid reports whether the query has errors; it has no SQL then.
func (c *Compiled) Invalid() bool { return syntax.HasErrors(c.Diagnostics) }

// UnsupportedError refuses a construct a dialect cannot answer exactly:
// compiling never gives a query with a different answer.
type UnsupportedError = sqlgen.UnsupportedError

// ParseSQLDialect reads a SQL dialect name: sqlite, postgres
// (postgresql) or duckdb.
func ParseSQLDialect(s string) (sqlgen.Dialect, error) { return sqlgen.ParseDialect(s) }

// Compile compiles the query q to the dialect. An invalid query is a
// Compiled whose Diagnostics hold its errors, as Evaluate gives them; a
// construct the dialect cannot answer is an *UnsupportedError.
func (l *Language) Compile(q Query, d sqlgen.Dialect) (*Compiled, error) {
	c := &Compiled{Lang: l, File: syntax.NewFile(q.Name, q.Src), Dialect: d}
	switch l.ID {
	case JQL:
		if ds := l.CheckQuery(q.Name, q.Src, DialectUnset); syntax.HasErrors(ds) {
			c.Diagnostics = ds
			return c, nil
		}
		pq, ds := parseJQLQuery(q.Name, q.Src)
		out, err := sqlgen.CompileJQL(pq, ds, d)
		if err != nil {
			res := &Result{}
			if err := jqlError(res, err); err != nil {
				return nil, err
			}
			c.Diagnostics = res.Diagnostics
			return c, nil
		}
		c.SQL, c.CursorSQL, c.Diagnostics = out.SQL, out.CursorSQL, withOrigins(out.Warnings, jql.CodeSyntax)
		c.jq, c.jdiag = pq, ds
		return c, nil
	}
	return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
}

// Text is the SQL as `ctxql compile` prints it: a JQL cursor's check as a
// comment, then the query, ending in a semicolon.
func (c *Compiled) Text() string {
	var b strings.Builder
	if c.CursorSQL != "" {
		fmt.Fprintf(&b, "-- startAfter must name a document: %s\n", c.CursorSQL)
	}
	b.WriteString(c.SQL)
	b.WriteString(";\n")
	return b.String()
}

// Finish turns the rows an engine returned into the Result Evaluate gives
// over the same data: cursorCount is what CursorSQL counted (ignored
// without a cursor), rows the single column of SQL's rows.
func (c *Compiled) Finish(ctx context.Context, cursorCount int64, rows [][]byte, b Budget) (*Result, error) {
	if c.Invalid() || c.jq == nil {
		return nil, errors.New("compiled: no query to finish")
	}
	src := c.File.Text()
	res := &Result{Lang: c.Lang, File: c.File, Key: strings.TrimSpace(src), Span: syntax.Sp(0, len(src))}
	if c.CursorSQL != "" && cursorCount == 0 {
		if err := jqlError(res, evjql.CursorError(c.jq)); err != nil {
			return nil, err
		}
		return res, nil
	}
	r, err := evjql.Finish(ctx, c.jq, c.jdiag, rows, jqlEval{}.options(b))
	if err != nil {
		if err := jqlError(res, err); err != nil {
			return nil, err
		}
		return res, nil
	}
	fillJQL(res, r)
	return res, nil
}

// Table is a table of the SQL layout.
type Table = sqlgen.Table

// Tables are the tables the data d fills in the SQL layout, and TableRows
// derives their rows, handing each to emit with its table's name.
func (l *Language) Tables(ctx context.Context, d Data) ([]Table, error) {
	if err := l.check(d); err != nil {
		return nil, err
	}
	switch l.ID {
	case JQL:
		var out []Table
		for _, dom := range sqlgen.JQLDomains() {
			out = append(out, sqlgen.JQLTables(dom)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
}

// TableRows derives the rows of the tables of Tables from d.
func (l *Language) TableRows(ctx context.Context, d Data, emit func(table string, row []any) error) error {
	if err := l.check(d); err != nil {
		return err
	}
	switch l.ID {
	case JQL:
		src := d.(jqlData).src
		for _, dom := range sqlgen.JQLDomains() {
			var ord int64
			err := src.Scan(ctx, dom, func(raw []byte) error {
				err := sqlgen.JQLRows(dom, ord, raw, emit)
				ord++
				return err
			})
			if err != nil {
				var de *evjql.DataError
				if errors.As(err, &de) {
					return &DataError{Err: err}
				}
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
}
