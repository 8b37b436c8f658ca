package resultdiff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// programKey is the key of a Datalog program's own failure.
const programKey = "\x00program"

// evalFile evaluates every query of a parsed file over its sample data
// through the language table: PACT and JQL queries one by one, a Datalog
// program once with each relation a rule derives as one query.
func (t *tree) evalFile(ctx context.Context, rel string, p *lang.Parsed, data string) []query {
	d, lerr := t.load(p.Lang, data)
	if lerr != nil && p.Lang.Program() {
		return []query{{key: programKey, text: rel, err: lerr.Error()}}
	}
	if lerr != nil {
		// Each query reports the data's failure.
		var out []query
		for _, q := range p.Queries() {
			out = append(out, query{key: q.Key, text: q.Text, span: q.Span, err: lerr.Error()})
		}
		return out
	}
	rs, err := p.Lang.EvaluateFile(ctx, d, p, lang.Budget{})
	if err != nil {
		return []query{{key: programKey, text: rel, err: t.clean(err)}}
	}
	var out []query
	for _, r := range rs {
		if p.Lang.Program() && r.Invalid() {
			return []query{{key: programKey, text: rel, err: "the program has errors: " + firstError(r)}}
		}
		q := query{key: r.Key, text: p.File.Slice(r.Span), span: r.Span}
		if r.Relation != "" {
			q.text = r.Relation
		}
		switch {
		case errors.Is(r.Err, lang.ErrInvalidQuery):
			q.err = r.Err.Error()
			if len(r.Diagnostics) > 0 {
				q.err += ": " + r.Diagnostics[0].Message
			}
		case errors.As(r.Err, new(*lang.DataError)):
			q.err = "sample data " + t.clean(r.Err)
		case r.Err != nil:
			q.err = r.Err.Error()
		default:
			q.items, q.err = itemTexts(lang.ItemList(r.Items, 0, r.Count))
		}
		out = append(out, q)
	}
	return out
}

// itemTexts renders results as text: ids as they are, documents and
// tuples as compact JSON.
func itemTexts(items []any) ([]string, string) {
	var out []string
	for _, it := range items {
		switch v := it.(type) {
		case string:
			out = append(out, v)
		case json.RawMessage:
			out = append(out, string(v))
		default:
			b, err := jsonenc.Marshal(v)
			if err != nil {
				return nil, err.Error()
			}
			out = append(out, string(b))
		}
	}
	return out, ""
}

// firstError renders the first error of a result as "line:col: message".
func firstError(r lang.Result) string {
	for _, d := range r.Diagnostics {
		if d.Severity == syntax.SeverityError {
			return fmt.Sprintf("%s: %s", r.File.Position(d.Span.Start), d.Message)
		}
	}
	return ""
}
