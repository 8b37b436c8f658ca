package lang

import (
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// CheckQuery returns the validity diagnostics of one query given as text,
// as Evaluate would refuse it: a PACT selector read in dialect d, a JQL
// query, a Datalog query rule (checked without data). Every diagnostic
// has its origin; rules are not run.
func (l *Language) CheckQuery(name, src string, d Dialect) []syntax.Diagnostic {
	var ds []syntax.Diagnostic
	switch l.ID {
	case PACT:
		if d == DialectUnset {
			d = V2
		}
		q, pds := pact.ParseQuery(src, d)
		ds = syntax.WithOrigin(pds, syntax.OriginSyntax)
		if !syntax.HasErrors(ds) {
			if dg, ok := ValidatePACT(q, src); !ok {
				ds = append(ds, dg)
			}
		}
	case JQL:
		q, pds := parseJQLQuery(name, src)
		f := &jql.File{Name: name, Text: src, Diagnostics: pds}
		if q != nil {
			f.Queries = []*jql.Query{q}
		}
		ds = validateJQL(f)
	case Datalog:
		r, pds := datalog.ParseRule(src)
		ds = withOrigins(pds, datalog.CodeSyntax)
		if !syntax.HasErrors(ds) {
			for _, dg := range datalog.CheckRule(r, nil).Diagnostics {
				if dg.Code != datalog.CodeUnknownRelation {
					ds = append(ds, withOrigins([]syntax.Diagnostic{dg}, datalog.CodeSyntax)...)
				}
			}
		}
	}
	syntax.SortDiagnostics(ds)
	return ds
}

// JQLSchema returns the schema of JQL's domains: their fields, types and
// documentation ("ctxql schema jql", the MCP jql_schema tool, hovers).
func JQLSchema() *jql.Schema { return jql.NewSchema() }

// QuerySpan is one query of a parsed file: its span, its text and the key
// that matches it across versions of the file (its trimmed text).
type QuerySpan struct {
	Span syntax.Span
	Text string
	Key  string
	// Bad is set on a PACT query with syntax errors.
	Bad bool
}

// Queries lists the queries of a parsed file: PACT queries (one per line),
// JQL queries, Datalog rules, in source order.
func (p *Parsed) Queries() []QuerySpan {
	var spans []syntax.Span
	bad := map[int]bool{}
	switch a := p.AST.(type) {
	case *pact.File:
		for _, q := range a.Queries {
			spans = append(spans, q.Sp)
			bad[q.Sp.Start] = q.Bad
		}
	case *jql.File:
		for _, q := range a.Queries {
			if q != nil {
				spans = append(spans, q.Sp)
			}
		}
	case *datalog.Program:
		for _, r := range a.Rules {
			spans = append(spans, r.Sp)
		}
	}
	out := make([]QuerySpan, len(spans))
	for i, sp := range spans {
		text := p.File.Slice(sp)
		out[i] = QuerySpan{Span: sp, Text: text, Key: strings.TrimSpace(text), Bad: bad[sp.Start]}
	}
	return out
}

// QueryAt returns the query at the byte offset off: in PACT the query of
// off's line, elsewhere the last query whose span touches off.
func (p *Parsed) QueryAt(off int) (QuerySpan, bool) {
	var (
		out QuerySpan
		ok  bool
	)
	_, byLine := p.AST.(*pact.File)
	for _, q := range p.Queries() {
		if byLine && p.File.LineOf(q.Span.Start) == p.File.LineOf(off) {
			return q, true
		}
		if !byLine && q.Span.Touches(off) {
			out, ok = q, true
		}
	}
	return out, ok
}

// QueryFields are the field paths one query reads.
type QueryFields struct {
	Query  syntax.Span
	Domain string // the JQL domain the query reads
	Paths  []FieldPath
}

// FieldPath is one field path written in a query.
type FieldPath struct {
	Span  syntax.Span
	Text  string   // as written
	Names []string // its segments' names; none for an empty path
}

// Fields lists, per JQL query of the file, the field paths it selects and
// filters on, in that order; other files read no fields.
func (p *Parsed) Fields() []QueryFields {
	f, ok := p.AST.(*jql.File)
	if !ok {
		return nil
	}
	var out []QueryFields
	for _, q := range f.Queries {
		if q == nil {
			continue
		}
		qf := QueryFields{Query: q.Sp, Domain: q.Domain()}
		var paths []jql.Path
		for _, it := range q.Select {
			if !it.Star {
				paths = append(paths, it.Path)
			}
		}
		for _, c := range q.Where {
			paths = append(paths, c.Path)
		}
		for _, pa := range paths {
			fp := FieldPath{Span: pa.Sp, Text: pa.Text}
			if len(pa.Segments) > 0 {
				fp.Names = pa.Names()
			}
			qf.Paths = append(qf.Paths, fp)
		}
		out = append(out, qf)
	}
	return out
}
