package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// CommandWhy is the workspace/executeCommand command that explains one
// tuple of a Datalog document's results over its sample data. Its
// arguments are [uri, tuple] with the tuple written as a ground atom
// (`path("a", "c")`), or [uri, relation, values] as a preview row gives
// them (`"path", ["a", "c"]`). The result:
//
//	{"relation": "path", "tuple": ["a", "c"], "derived": true,
//	 "text": "path(\"a\", \"c\")  by rule q.dl:3:1  path(x, z) <-- ...\n  ..."}
//
// "text" is the proof tree of a derived tuple (as `ctxql eval datalog
// --why` prints it) or, for a tuple the program does not derive, the
// first failing body item of each rule of its relation (as --why-not
// prints it); "error" replaces it when the tuple cannot be explained. The
// text (or the error) is also shown with window/showMessage.
const CommandWhy = "ctxql.why"

// whyResult is the result of CommandWhy.
type whyResult struct {
	Relation string   `json:"relation,omitempty"`
	Tuple    []string `json:"tuple,omitempty"`
	Derived  bool     `json:"derived"`
	Text     string   `json:"text,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// parseTuple reads a ground atom written as rel("a", "b") (numbers may go
// unquoted).
func parseTuple(src string) (string, []string, error) {
	return lang.ParseTuple(src)
}

// whyArgs reads the tuple of CommandWhy's arguments after the uri.
func whyArgs(args []json.RawMessage) (string, []string, error) {
	const usage = "ctxql.why needs the arguments [uri, \"rel(\\\"a\\\", \\\"b\\\")\"] or [uri, \"rel\", [\"a\", \"b\"]]"
	var first string
	if len(args) < 2 || json.Unmarshal(args[1], &first) != nil {
		return "", nil, errors.New(usage)
	}
	if len(args) == 2 {
		return parseTuple(first)
	}
	var raw []any
	if json.Unmarshal(args[2], &raw) != nil {
		return "", nil, errors.New(usage)
	}
	vals := make([]string, len(raw))
	for i, v := range raw {
		switch x := v.(type) {
		case string:
			vals[i] = x
		case float64:
			vals[i] = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			return "", nil, errors.New(usage)
		}
	}
	return first, vals, nil
}

// TupleExplainer explains one result tuple of a document over its sample
// data (CommandWhy).
type TupleExplainer interface {
	ExplainTuple(ctx context.Context, s *Snapshot, rel string, vals []string) whyResult
}

// ExplainTuple explains rel(vals...) over the document's sample data
// through the language table: its proof tree when the program derives it,
// else why not. Explanations are cached, as evaluations are, by the
// program, the tuple and the data version.
func (l datalogLanguage) ExplainTuple(ctx context.Context, s *Snapshot, rel string, vals []string) whyResult {
	out := whyResult{Relation: rel, Tuple: vals}
	run, ok := l.evaluate(ctx, s)
	switch {
	case !ok:
		out.Error = "the document has no sample data"
		return out
	case run.err != nil:
		out.Error = run.err.Error()
		return out
	case run.invalid:
		out.Error = "the program has errors"
		return out
	}
	atom := lang.FormatTuple(rel, vals)
	path := s.Workspace.DataPath(s)
	id, err := s.dataID(path)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	// Rules are named by path, as the command line names them.
	name := FilePath(s.URI)
	if name == "" {
		name = s.File.Name()
	}
	key := evalKey{kind: "datalog-why", data: id.String(), path: path, text: name + "\x00" + s.File.Text() + "\x00" + atom}
	v, err := s.Workspace.evals.whys.get(ctx, &s.Workspace.evals, key, func(ctx context.Context) (whyResult, bool) {
		ctx, cancel := context.WithTimeout(ctx, s.runTimeout())
		defer cancel()
		dl, prog := tableOf(s), lang.Query{Name: name, Src: s.File.Text(), Program: true}
		res := out
		x, err := dl.Explain(ctx, run.data, prog, lang.Explain{Why: atom})
		if err == nil && x.NotDerived {
			x, err = dl.Explain(ctx, run.data, prog, lang.Explain{WhyNot: atom})
		} else if err == nil {
			res.Derived = true
		}
		switch {
		case err != nil:
			res.Derived, res.Error = false, s.timeoutMessage(err).Error()
		case x.Invalid():
			res.Derived, res.Error = false, "the program has errors"
		default:
			res.Text = x.Text
		}
		return res, true
	})
	if err != nil {
		out.Error = err.Error()
		return out
	}
	return v
}

// why answers CommandWhy.
func (s *server) why(ctx context.Context, args []json.RawMessage) (any, error) {
	var uri string
	if len(args) < 1 || json.Unmarshal(args[0], &uri) != nil {
		return whyResult{Error: "ctxql.why needs the arguments [uri, tuple]"}, nil
	}
	rel, vals, err := whyArgs(args)
	if err != nil {
		return whyResult{Error: err.Error()}, nil
	}
	snap := s.session.get(uri)
	switch {
	case snap == nil:
		return whyResult{Relation: rel, Tuple: vals, Error: "the document is not open"}, nil
	}
	x, ok := snap.Lang.(TupleExplainer)
	if !ok {
		return whyResult{Relation: rel, Tuple: vals, Error: "only Datalog results can be explained"}, nil
	}
	if _, msg, bad := snap.Degraded(); bad {
		return whyResult{Relation: rel, Tuple: vals, Error: msg}, nil
	}
	res := x.ExplainTuple(ctx, snap, rel, vals)
	// Shown as ctxql.run shows its preview, so that a client that only
	// runs the code action's command sees the explanation too.
	if res.Error != "" {
		s.showMessage(ctx, messageWarning, "Cannot explain "+res.Relation+": "+res.Error)
	} else {
		s.showMessage(ctx, messageInfo, res.Text)
	}
	return res, nil
}

// explainActions offers, on a rule whose relation holds tuples over the
// sample data, "Explain REL(...)" for the relation's first tuple: the
// CommandWhy command with that tuple.
func explainActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction {
	if !wanted(ctx, kindExplain) || s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	for _, r := range p.Rules() {
		if r.Fact || r.Span.End < span.Start || r.Span.Start > span.End {
			continue
		}
		run, ok := datalogLanguage{}.evaluate(ctx, s)
		if !ok || run.err != nil || run.invalid {
			return nil
		}
		for _, h := range r.Heads {
			rows := run.rels[h.Relation]
			if len(rows) == 0 {
				continue
			}
			atom := lang.FormatTuple(h.Relation, rows[0])
			return []CodeAction{{Title: fmt.Sprintf("Explain this result: %s", atom), Kind: kindExplain,
				Command: CommandWhy, Arguments: []any{s.URI, atom}}}
		}
	}
	return nil
}

// kindExplain is the code action kind of the explanations.
const kindExplain = "source.explain"
