package lang

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	evdl "github.com/ctxql/ctxql/eval/datalog"
	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/sqlgen"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
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
	// Relations are, for Datalog, the statements of the relations the
	// query derives (a rule: its head; a program: every derived relation),
	// each returning the relation's distinct tuples.
	Relations []CompiledRelation
	// Script, when set, is a semi-naive evaluation the engine runs first
	// (on the connection it then runs Relations on): the program has
	// recursion a recursive CTE cannot hold (mutual or non-linear).
	Script *Script
	// Diagnostics are the query's errors when it is invalid (as Evaluate
	// reports them), else its warnings.
	Diagnostics []syntax.Diagnostic

	jq      *jql.Query
	jdiag   []syntax.Diagnostic
	program bool
}

// Script is a semi-naive evaluation driven by ctxql.
type Script = sqlgen.Script

// CompiledRelation is the statement of one derived Datalog relation.
type CompiledRelation = sqlgen.DatalogRelation

// Invalid reports whether the query has errors; it has no SQL then.
func (c *Compiled) Invalid() bool { return syntax.HasErrors(c.Diagnostics) }

// UnsupportedError refuses a construct a dialect cannot answer exactly:
// compiling never gives a query with a different answer.
type UnsupportedError = sqlgen.UnsupportedError

// ParseSQLDialect reads a SQL dialect name: sqlite, postgres
// (postgresql) or duckdb.
func ParseSQLDialect(s string) (sqlgen.Dialect, error) { return sqlgen.ParseDialect(s) }

// Compile compiles the query q to the dialect. A Datalog query is checked
// against schema, the data's relations and their parameter types (as
// Data.Schema gives them, or the database's catalog). An invalid query is
// a Compiled whose Diagnostics hold its errors, as Evaluate gives them; a
// construct the dialect cannot answer is an *UnsupportedError (for
// Datalog, wrapped in a *CompileError that says where it is).
func (l *Language) Compile(q Query, d sqlgen.Dialect, schema map[string][]string) (*Compiled, error) {
	return l.CompileMapped(q, d, schema, nil)
}

// JQLMapping names, per JQL domain, the fields kept in flattened columns
// of the domain's table (docs/sql.md).
type JQLMapping = sqlgen.JQLMapping

// ParseJQLMapping reads a mapping file's text (YAML or JSON).
func ParseJQLMapping(src []byte) (JQLMapping, error) { return sqlgen.ParseJQLMapping(src) }

// JQLMappingSQL selects the mapping a database's JQL tables were loaded
// with: rows of domain, path and column; JQLMappingFromRows reads them.
func JQLMappingSQL() string { return sqlgen.JQLColumnsSQL() }

// JQLMappingFromRows rebuilds the mapping from JQLMappingSQL's rows.
func JQLMappingFromRows(rows [][3]string) (JQLMapping, error) { return sqlgen.JQLMappingFromRows(rows) }

// CompileMapped is Compile over JQL tables loaded with the mapping m
// (nil: none); m has no bearing on Datalog.
func (l *Language) CompileMapped(q Query, d sqlgen.Dialect, schema map[string][]string, m JQLMapping) (*Compiled, error) {
	c := &Compiled{Lang: l, File: syntax.NewFile(q.Name, q.Src), Dialect: d}
	switch l.ID {
	case Datalog:
		return c, c.datalog(q, schema)
	case JQL:
		if ds := l.CheckQuery(q.Name, q.Src, DialectUnset); syntax.HasErrors(ds) {
			c.Diagnostics = ds
			return c, nil
		}
		pq, ds := parseJQLQuery(q.Name, q.Src)
		out, err := sqlgen.CompileJQLMapped(pq, ds, d, m)
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

// CompileError is a construct refused at its place in the query.
type CompileError = sqlgen.DatalogError

// datalog compiles a rule (q.Program false: its head is the result) or a
// program (every derived relation).
func (c *Compiled) datalog(q Query, schema map[string][]string) error {
	var prog *datalog.Program
	var info *datalog.Info
	var ds []syntax.Diagnostic
	var outputs []string
	var rule *datalog.Rule
	if q.Program {
		prog = datalog.ParseProgram(q.Name, q.Src)
		c.File = prog.File
		info = datalog.Check(prog, schema)
		ds = append(slices.Clone(prog.Diagnostics), info.Diagnostics...)
		for _, st := range info.Strata {
			outputs = append(outputs, st...)
		}
		sort.Strings(outputs)
	} else {
		r, pds := datalog.ParseRule(q.Src)
		info = datalog.CheckRule(r, schema)
		ds = append(slices.Clone(pds), info.Diagnostics...)
		rule = r
	}
	syntax.SortDiagnostics(ds)
	c.Diagnostics = withOrigins(ds, datalog.CodeSyntax)
	if c.Invalid() {
		return nil
	}
	if rule != nil {
		rel, err := sqlgen.CompileDatalogRule(rule, info, c.Dialect)
		if err != nil {
			return err
		}
		c.Relations = []CompiledRelation{rel}
		return nil
	}
	c.program = true
	if sqlgen.NeedsScript(prog, info) {
		sc, rels, err := sqlgen.CompileDatalogScript(prog, info, schema, c.Dialect, outputs)
		if err != nil {
			return err
		}
		c.Script, c.Relations = sc, rels
		return nil
	}
	rels, err := sqlgen.CompileDatalog(prog, info, schema, c.Dialect, outputs)
	if err != nil {
		return err
	}
	c.Relations = rels
	return nil
}

// FinishDatalog turns the tuples the engine returned for each relation of
// Relations into the Result Evaluate gives over the same data.
func (c *Compiled) FinishDatalog(tuples map[string][][]string) *Result {
	src := c.File.Text()
	res := &Result{Lang: c.Lang, File: c.File, Span: syntax.Sp(0, len(src)), Diagnostics: c.Diagnostics}
	for _, ts := range tuples {
		sqlgen.SortTuples(ts)
	}
	if c.program {
		m := map[string][][]string{}
		for _, r := range c.Relations {
			m[r.Name] = nonNilTuples(tuples[r.Name])
			res.Count += len(m[r.Name])
		}
		res.Value = m
		return res
	}
	if len(c.Relations) == 1 {
		res.Key, res.Relation = c.Relations[0].Name, c.Relations[0].Name
		fillTuples(res, tuples[c.Relations[0].Name])
	}
	return res
}

// Text is the SQL as `ctxql compile` prints it: a JQL cursor's check as a
// comment, then the query, ending in a semicolon; for Datalog, each
// relation's statement after a comment naming it (after the script of a
// semi-naive evaluation, when there is one).
func (c *Compiled) Text() string {
	var b strings.Builder
	if c.Script != nil {
		b.WriteString("-- semi-naive evaluation, driven by ctxql on one connection\n")
		b.WriteString(c.Script.Text())
		b.WriteString("\n")
	}
	for i, r := range c.Relations {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "-- %s\n%s;\n", r.Name, r.SQL)
	}
	if c.Relations != nil {
		return b.String()
	}
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

// Tables are the tables of the SQL layout the data at path fills, read as
// Load reads it, and Rows derives their rows, handing each to emit with
// its table's name.
type Tables struct {
	// Tables are the tables.
	Tables []Table
	// Rows derives the rows.
	Rows func(ctx context.Context, emit func(table string, row []any) error) error
}

// LoadTables reads the data at path for the SQL layout through r (nil:
// the default reader).
func (l *Language) LoadTables(ctx context.Context, r *files.Reader, path string) (*Tables, error) {
	return l.LoadTablesMapped(ctx, r, path, nil)
}

// Maps reports whether the language's tables take a mapping of fields
// to flattened columns (JQL's documents do; LoadTablesMapped).
func (l *Language) Maps() bool { return l.ID == JQL }

// LoadTablesMapped is LoadTables with JQL's flattened columns of the
// mapping m (nil: none), which is recorded in the database.
func (l *Language) LoadTablesMapped(ctx context.Context, r *files.Reader, path string, m JQLMapping) (*Tables, error) {
	if r == nil {
		r = &files.Reader{}
	}
	switch l.ID {
	case JQL:
		d, err := l.Load(ctx, r, path)
		if err != nil {
			return nil, err
		}
		ts := []Table{sqlgen.JQLColumnsTableDef()}
		for _, dom := range sqlgen.JQLDomains() {
			ts = append(ts, sqlgen.JQLTablesMapped(dom, m[dom])...)
		}
		src := d.(jqlData).src
		return &Tables{Tables: ts, Rows: func(ctx context.Context, emit func(string, []any) error) error {
			if err := m.Rows(emit); err != nil {
				return err
			}
			for _, dom := range sqlgen.JQLDomains() {
				var ord int64
				err := src.Scan(ctx, dom, func(raw []byte) error {
					err := sqlgen.JQLRowsMapped(dom, ord, raw, m[dom], emit)
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
		}}, nil
	case Datalog:
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := evdl.ReadDataPathFrom(r, path)
		if err != nil {
			return nil, &DataError{Err: err}
		}
		schema := map[string][]string{}
		for name, rel := range data.Relations {
			schema[name] = rel.ParamTypes
		}
		return &Tables{Tables: sqlgen.DatalogTables(schema), Rows: func(ctx context.Context, emit func(string, []any) error) error {
			return sqlgen.DatalogRows(schema, func(rel string) [][]string { return data.Relations[rel].Tuples }, emit)
		}}, nil
	}
	return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
}

// SchemaSQL selects a database's catalog of Datalog relations: rows of
// name, position (from 1) and parameter type.
func SchemaSQL() string { return sqlgen.SchemaSQL() }

// Compiles reports whether the language's queries compile to SQL (JQL and
// Datalog; PACT's trees are not stored in a database).
func (l *Language) Compiles() bool { return l.ID == JQL || l.ID == Datalog }
