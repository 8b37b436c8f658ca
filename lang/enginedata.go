package lang

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/sqlgen"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
)

// Engine is a database holding query data in the layout of docs/sql.md
// (filled by `ctxql load`). The front doors open one with the engine
// package and hand the language table an EngineOpener; the table itself
// links no database driver.
type Engine interface {
	// Dialect is the database's SQL dialect.
	Dialect() sqlgen.Dialect
	// Texts runs a query of one column, read as bytes.
	Texts(ctx context.Context, query string) ([][]byte, error)
	// Rows runs a query.
	Rows(ctx context.Context, query string) ([][]any, error)
	// RunScript runs a semi-naive evaluation, then queries, on one
	// connection.
	RunScript(ctx context.Context, sc *sqlgen.Script, queries []string) ([][][]any, error)
	// Close releases the database.
	Close() error
}

// EngineOpener opens the database an engine URL names.
type EngineOpener func(ctx context.Context, url string) (Engine, error)

// IsEngineURL reports whether a data path names a database rather than a
// file: sqlite:FILE, duckdb:FILE, postgres://… or postgresql://….
func IsEngineURL(path string) bool {
	for _, p := range []string{"sqlite:", "duckdb:", "postgres://", "postgresql://"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// engineData is query data held in a database: each evaluation opens it,
// compiles the query to its SQL, runs it there and closes it, so the Data
// holds no connection.
type engineData struct {
	id      ID
	url     string
	open    EngineOpener
	dialect sqlgen.Dialect
	schema  map[string][]string // Datalog: the catalog's relations
	mapping JQLMapping          // JQL: the flattened columns
}

// databaseData is what Evaluate and EvaluateFile call on data held in a
// database (*engineData). They call through this interface, not on the
// type, so that a program that never loads such data (the WebAssembly
// build) links none of the SQL compiler behind them.
type databaseData interface {
	evaluate(ctx context.Context, l *Language, q Query, b Budget) (*Result, error)
	evaluateFile(ctx context.Context, l *Language, p *Parsed, b Budget) ([]Result, error)
}

func (d *engineData) evaluate(ctx context.Context, l *Language, q Query, b Budget) (*Result, error) {
	return l.evaluateEngine(ctx, d, q, b)
}

func (d *engineData) evaluateFile(ctx context.Context, l *Language, p *Parsed, b Budget) ([]Result, error) {
	return l.evaluateFileEngine(ctx, d, p, b)
}

func (d *engineData) Language() ID                { return d.id }
func (d *engineData) Schema() map[string][]string { return d.schema }

// LoadEngine is Load for data held in the database url names (opened by
// open): it reads the database's catalog — Datalog's relations, JQL's
// flattened columns — and evaluations run there. Explanations, parts and
// profiles run in process only.
func (l *Language) LoadEngine(ctx context.Context, open EngineOpener, url string) (Data, error) {
	if !l.Compiles() {
		return nil, fmt.Errorf("%s queries do not run in a database: %w", l.Name, ErrUnsupported)
	}
	if open == nil {
		return nil, &DataError{Err: fmt.Errorf("%s: this tool does not open databases", url)}
	}
	db, err := open(ctx, url)
	if err != nil {
		return nil, &DataError{Err: err}
	}
	defer db.Close()
	d := &engineData{id: l.ID, url: url, open: open, dialect: db.Dialect()}
	switch l.ID {
	case Datalog:
		if d.schema, err = EngineSchema(ctx, db); err != nil {
			return nil, &DataError{Err: fmt.Errorf("%s: read the relations (load them with ctxql load --lang datalog): %w", url, err)}
		}
	case JQL:
		if d.mapping, err = EngineMapping(ctx, db); err != nil {
			return nil, &DataError{Err: err}
		}
	}
	return d, nil
}

// EngineSchema reads the catalog of the relations a database filled by
// ctxql load holds: each relation's column types, in order.
func EngineSchema(ctx context.Context, db Engine) (map[string][]string, error) {
	rows, err := db.Rows(ctx, SchemaSQL())
	if err != nil {
		return nil, err
	}
	schema := map[string][]string{}
	for _, r := range rows {
		name := EngineText(r[0])
		schema[name] = append(schema[name], EngineText(r[2]))
	}
	return schema, nil
}

// EngineMapping reads the JQL mapping a database was loaded with; a
// database filled before mappings were recorded has none (nil).
func EngineMapping(ctx context.Context, db Engine) (JQLMapping, error) {
	rows, err := db.Rows(ctx, JQLMappingSQL())
	if err != nil {
		// No such table: the database has no mapping.
		return nil, nil
	}
	rs := make([][3]string, len(rows))
	for i, r := range rows {
		rs[i] = [3]string{EngineText(r[0]), EngineText(r[1]), EngineText(r[2])}
	}
	return JQLMappingFromRows(rs)
}

// EngineText is a text column's value as a driver returns it.
func EngineText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// ErrInProcess refuses, over data held in a database, what runs in
// process only.
var ErrInProcess = errors.New("explanations, parts and profiles run over data in memory, not in a database")

// evaluateEngine is Evaluate over a database.
func (l *Language) evaluateEngine(ctx context.Context, d *engineData, q Query, b Budget) (*Result, error) {
	comp, err := l.CompileMapped(q, d.dialect, d.schema, d.mapping)
	if err != nil {
		return nil, err
	}
	if comp.Invalid() {
		src := comp.File.Text()
		return &Result{Lang: l, File: comp.File, Key: strings.TrimSpace(src), Span: syntax.Sp(0, len(src)), Diagnostics: comp.Diagnostics}, nil
	}
	db, err := d.open(ctx, d.url)
	if err != nil {
		return nil, &DataError{Err: err}
	}
	defer db.Close()
	if l.ID == Datalog {
		tuples, err := runRelations(ctx, db, comp.Script, comp.Relations)
		if err != nil {
			return nil, err
		}
		return comp.FinishDatalog(tuples), nil
	}
	cursor, rows, err := runJQL(ctx, db, comp.CursorSQL, comp.SQL)
	if err != nil {
		return nil, err
	}
	return comp.Finish(ctx, cursor, rows, b)
}

// runJQL runs a compiled JQL query: the cursor's count (when there is a
// cursor) and the documents.
func runJQL(ctx context.Context, db Engine, cursorSQL, query string) (int64, [][]byte, error) {
	var cursor int64
	if cursorSQL != "" {
		n, err := db.Texts(ctx, cursorSQL)
		if err != nil {
			return 0, nil, &DataError{Err: err}
		}
		if len(n) == 1 {
			cursor, _ = strconv.ParseInt(strings.TrimSpace(string(n[0])), 10, 64)
		}
	}
	rows, err := db.Texts(ctx, query)
	if err != nil {
		return 0, nil, &DataError{Err: err}
	}
	return cursor, rows, nil
}

// runRelations runs the statements of derived relations (after the
// script, when there is one) and returns their tuples by name.
func runRelations(ctx context.Context, db Engine, sc *sqlgen.Script, rels []sqlgen.DatalogRelation) (map[string][][]string, error) {
	var results [][][]any
	if sc != nil {
		qs := make([]string, len(rels))
		for i, r := range rels {
			qs[i] = r.SQL
		}
		var err error
		if results, err = db.RunScript(ctx, sc, qs); err != nil {
			return nil, engineError(err)
		}
	} else {
		for _, r := range rels {
			rows, err := db.Rows(ctx, r.SQL)
			if err != nil {
				return nil, engineError(fmt.Errorf("%s: %w", r.Name, err))
			}
			results = append(results, rows)
		}
	}
	out := map[string][][]string{}
	for i, r := range rels {
		ts := make([][]string, len(results[i]))
		for j, row := range results[i] {
			ts[j] = make([]string, len(row))
			for k, v := range row {
				ts[j][k] = EngineText(v)
			}
		}
		sqlgen.SortTuples(ts)
		out[r.Name] = ts
	}
	return out, nil
}

// engineError is the error of a compiled program's run: a construct the
// database refused on this data (an aggregate or a let it cannot compute
// as the evaluator does) is an *UnsupportedError as a refusal at compile
// time is; anything else a *DataError.
func engineError(err error) error {
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		return ue
	}
	return &DataError{Err: err}
}

// evaluateFileEngine is EvaluateFile over a database: each JQL query of
// the file, or the Datalog program once, compiled and run there, the
// results those of the in-process evaluation of the same data.
func (l *Language) evaluateFileEngine(ctx context.Context, d *engineData, p *Parsed, b Budget) ([]Result, error) {
	switch ast := p.AST.(type) {
	case *jql.File:
		return l.jqlFileEngine(ctx, d, p, ast, b)
	case *datalog.Program:
		return l.datalogFileEngine(ctx, d, p, ast)
	}
	return nil, fmt.Errorf("%s: %w", p.File.Name(), ErrUnsupported)
}

func (l *Language) jqlFileEngine(ctx context.Context, d *engineData, p *Parsed, jf *jql.File, b Budget) ([]Result, error) {
	src := p.File.Text()
	db, err := d.open(ctx, d.url)
	if err != nil {
		return nil, &DataError{Err: err}
	}
	defer db.Close()
	var out []Result
	for _, q := range jf.Queries {
		if q == nil {
			continue
		}
		r := Result{Lang: p.Lang, File: p.File, Span: q.Sp, Key: strings.TrimSpace(src[q.Sp.Start:q.Sp.End])}
		var diags []syntax.Diagnostic
		for _, dg := range jf.Diagnostics {
			if q.Sp.Covers(dg.Span) {
				diags = append(diags, dg)
			}
		}
		v, err := jqlEngineQuery(ctx, db, q, diags, d, b)
		var ue *UnsupportedError
		switch {
		case errors.As(err, &ue):
			return nil, err
		case err == nil:
			fillJQL(&r, v)
		default:
			var de *DataError
			if errors.As(err, &de) {
				return nil, err
			}
			if r.Err = jqlError(&r, err); r.Err == nil {
				r.Err = ErrInvalidQuery
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// jqlEngineQuery runs one parsed query of a file in the database.
func jqlEngineQuery(ctx context.Context, db Engine, q *jql.Query, diags []syntax.Diagnostic, d *engineData, b Budget) (*evjql.Result, error) {
	c, err := sqlgen.CompileJQLMapped(q, diags, d.dialect, d.mapping)
	if err != nil {
		return nil, err
	}
	cursor, rows, err := runJQL(ctx, db, c.CursorSQL, c.SQL)
	if err != nil {
		return nil, err
	}
	if c.CursorSQL != "" && cursor == 0 {
		return nil, evjql.CursorError(q)
	}
	return evjql.Finish(ctx, q, diags, rows, jqlEval{}.options(b))
}

func (l *Language) datalogFileEngine(ctx context.Context, d *engineData, p *Parsed, prog *datalog.Program) ([]Result, error) {
	info := datalog.Check(prog, d.schema)
	ds := withOrigins(append(slices.Clone(prog.Diagnostics), info.Diagnostics...), datalog.CodeSyntax)
	syntax.SortDiagnostics(ds)
	if syntax.HasErrors(ds) {
		return []Result{{Lang: p.Lang, File: p.File, Span: syntax.Sp(0, p.File.Len()), Diagnostics: ds}}, nil
	}
	var outputs []string
	for _, st := range info.Strata {
		outputs = append(outputs, st...)
	}
	var sc *sqlgen.Script
	var rels []sqlgen.DatalogRelation
	var err error
	if sqlgen.NeedsScript(prog, info) {
		sc, rels, err = sqlgen.CompileDatalogScript(prog, info, d.schema, d.dialect, outputs)
	} else {
		rels, err = sqlgen.CompileDatalog(prog, info, d.schema, d.dialect, outputs)
	}
	if err != nil {
		return nil, err
	}
	db, err := d.open(ctx, d.url)
	if err != nil {
		return nil, &DataError{Err: err}
	}
	defer db.Close()
	tuples, err := runRelations(ctx, db, sc, rels)
	if err != nil {
		return nil, err
	}
	return relationResults(p, prog, info, tuples), nil
}
