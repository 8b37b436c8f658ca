package resultdiff

import (
	"context"
	"errors"
	"fmt"
	"strings"

	evaldl "github.com/ctxql/ctxql/eval/datalog"
	evaljql "github.com/ctxql/ctxql/eval/jql"
	evalpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// evalPACT evaluates every query of a .pact file: the results are node ids
// (a snapshot range is one JSON result).
func (t *tree) evalPACT(ctx context.Context, abs, src, data string) []query {
	dialect := lang.Settings{Config: t.config(abs)}.Dialect(abs, pact.DialectUnset)
	pf := pact.ParseFile(abs, src, dialect)
	v, lerr := t.load("pact", data, func(p string) (any, error) { return evalpact.LoadFileFrom(t.files, p) })
	var out []query
	for _, q := range pf.Queries {
		text := pf.Src.Slice(q.Sp)
		r := query{key: strings.TrimSpace(text), text: text, span: q.Sp}
		switch {
		case lerr != nil:
			r.err = lerr.Error()
		case q.Bad:
			r.err = "the query has syntax errors"
		default:
			r.items, r.err = runPACT(ctx, q, text, v.(*evalpact.Data))
		}
		out = append(out, r)
	}
	return out
}

func runPACT(ctx context.Context, q *pact.Query, text string, d *evalpact.Data) ([]string, string) {
	plan, err := evalpact.Compile(q, text)
	if err != nil {
		return nil, err.Error()
	}
	res, err := plan.Eval(ctx, d, evalpact.Options{})
	if err != nil {
		return nil, err.Error()
	}
	if res.Range != nil {
		b, err := jsonenc.Marshal(res.Range)
		if err != nil {
			return nil, err.Error()
		}
		return []string{string(b)}, ""
	}
	return res.IDs, ""
}

// evalJQL evaluates every query of a JQL file: the results are the
// documents as compact JSON.
func (t *tree) evalJQL(ctx context.Context, rel, src, data string) []query {
	jf := jql.ParseFile(rel, src)
	var out []query
	for _, q := range jf.Queries {
		if q == nil {
			continue
		}
		text := src[q.Sp.Start:q.Sp.End]
		r := query{key: strings.TrimSpace(text), text: text, span: q.Sp}
		var diags []syntax.Diagnostic
		for _, d := range jf.Diagnostics {
			if q.Sp.Covers(d.Span) {
				diags = append(diags, d)
			}
		}
		res, err := evaljql.EvalQuery(ctx, q, diags, evaljql.File{Path: data, Files: t.files})
		var qe *evaljql.QueryError
		switch {
		case errors.As(err, &qe):
			r.err = "the query has errors"
			if len(qe.Diagnostics) > 0 {
				r.err += ": " + qe.Diagnostics[0].Message
			}
		case err != nil:
			r.err = "sample data " + t.clean(err)
		default:
			for _, d := range res.Docs {
				r.items = append(r.items, string(d))
			}
		}
		out = append(out, r)
	}
	return out
}

// evalDatalog evaluates a Datalog program: each relation a rule derives is
// one query, its tuples the results (JSON arrays).
func (t *tree) evalDatalog(ctx context.Context, rel, src, data string) []query {
	v, err := t.load("datalog", data, func(p string) (any, error) { return evaldl.ReadDataPathFrom(t.files, p) })
	if err != nil {
		return []query{{key: "\x00program", text: rel, err: err.Error()}}
	}
	// Evaluation interns constants into the database: load a fresh one
	// per program from the decoded data.
	db, err := evaldl.Load(v.(*evaldl.Data))
	if err != nil {
		return []query{{key: "\x00program", text: rel, err: "sample data: " + err.Error()}}
	}
	res, err := evaldl.EvalProgram(ctx, db, rel, src)
	if err != nil {
		return []query{{key: "\x00program", text: rel, err: err.Error()}}
	}
	if syntax.HasErrors(res.Diagnostics) {
		msg := "the program has errors"
		for _, d := range res.Diagnostics {
			if d.Severity == syntax.SeverityError {
				msg += fmt.Sprintf(": %s: %s", res.Program.File.Position(d.Span.Start), d.Message)
				break
			}
		}
		return []query{{key: "\x00program", text: rel, err: msg}}
	}
	var out []query
	seen := map[string]bool{}
	for _, r := range res.Program.Rules {
		if r.Head == nil || r.IsFact() || seen[r.Head.Name.Name] {
			continue
		}
		name := r.Head.Name.Name
		seen[name] = true
		q := query{key: name, text: name, span: r.Sp}
		for _, tup := range res.Relations[name] {
			b, _ := jsonenc.Marshal(tup)
			q.items = append(q.items, string(b))
		}
		out = append(out, q)
	}
	return out
}
