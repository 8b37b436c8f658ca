package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	evaldl "github.com/ctxql/ctxql/eval/datalog"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
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

// whyArgs reads the tuple of CommandWhy's arguments after the uri.
func whyArgs(args []json.RawMessage) (string, []string, error) {
	const usage = "ctxql.why needs the arguments [uri, \"rel(\\\"a\\\", \\\"b\\\")\"] or [uri, \"rel\", [\"a\", \"b\"]]"
	var first string
	if len(args) < 2 || json.Unmarshal(args[1], &first) != nil {
		return "", nil, errors.New(usage)
	}
	if len(args) == 2 {
		return evaldl.ParseTuple(first)
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

// explainerKey keys a snapshot's Datalog explainer in its memo.
type explainerKey struct{}

// memoExplainer is a document version's explainer. It owns a database
// of its own, taken from the data's pool: its questions intern their
// values into it, one at a time (mu).
type memoExplainer struct {
	mu   *sync.Mutex
	x    *evaldl.Explainer
	prog *datalog.Program
	err  error
}

// datalogExplainer evaluates the document's program over its sample data
// for explanations, once per snapshot, within the run timeout.
func datalogExplainer(ctx context.Context, s *Snapshot) (memoExplainer, error) {
	if v, ok := s.memo.Load(explainerKey{}); ok {
		m := v.(memoExplainer)
		return m, m.err
	}
	run, ok := datalogLanguage{}.evaluate(ctx, s)
	if !ok {
		return memoExplainer{}, errors.New("the document has no sample data")
	}
	switch {
	case run.err != nil:
		return memoExplainer{}, run.err
	case run.res == nil || run.pool == nil || syntax.HasErrors(run.res.Diagnostics):
		return memoExplainer{}, errors.New("the program has errors")
	}
	db, err := run.pool.take()
	if err != nil {
		return memoExplainer{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	x, err := evaldl.NewExplainer(rctx, db, run.res.Program, run.res.Info, evaldl.ExplainOptions{})
	m := memoExplainer{mu: &sync.Mutex{}, x: x, prog: run.res.Program, err: timeoutMessage(err, s.runTimeout())}
	if ctx.Err() == nil {
		v, _ := s.memo.LoadOrStore(explainerKey{}, m)
		m = v.(memoExplainer)
	}
	return m, m.err
}

// TupleExplainer explains one result tuple of a document over its sample
// data (CommandWhy).
type TupleExplainer interface {
	ExplainTuple(ctx context.Context, s *Snapshot, rel string, vals []string) whyResult
}

// ExplainTuple explains rel(vals...) over the document's sample data: its
// proof tree when the program derives it, else why not.
func (datalogLanguage) ExplainTuple(ctx context.Context, s *Snapshot, rel string, vals []string) whyResult {
	out := whyResult{Relation: rel, Tuple: vals}
	m, err := datalogExplainer(ctx, s)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	rctx, cancel := context.WithTimeout(ctx, s.runTimeout())
	defer cancel()
	var b strings.Builder
	f := m.prog.File
	if path := FilePath(s.URI); path != "" {
		f = syntax.NewFile(path, f.Text()) // rules are named by path, as the command line names them
	}
	m.mu.Lock() // the explainer interns the values into its database
	p, err := m.x.Why(rctx, rel, vals)
	var w *evaldl.WhyNot
	if errors.Is(err, evaldl.ErrNotDerived) {
		w, err = m.x.WhyNot(rctx, rel, vals)
	}
	m.mu.Unlock()
	switch {
	case err == nil && w == nil:
		out.Derived = true
		err = p.Format(&b, f)
	case err == nil:
		err = w.Format(&b, f)
	}
	if err != nil {
		out.Error = timeoutMessage(err, s.runTimeout()).Error()
		return out
	}
	out.Text = b.String()
	return out
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
	p := datalogProgram(s)
	if p == nil {
		return nil
	}
	for _, r := range p.Rules {
		if r.Head == nil || r.IsFact() || r.Sp.End < span.Start || r.Sp.Start > span.End {
			continue
		}
		run, ok := datalogLanguage{}.evaluate(ctx, s)
		if !ok || run.err != nil || run.res == nil {
			return nil
		}
		rows := run.res.Relations[r.Head.Name.Name]
		if len(rows) == 0 {
			continue
		}
		q := make([]string, len(rows[0]))
		for i, v := range rows[0] {
			q[i] = strconv.Quote(v)
		}
		atom := r.Head.Name.Name + "(" + strings.Join(q, ", ") + ")"
		return []CodeAction{{Title: fmt.Sprintf("Explain this result: %s", atom), Kind: kindExplain,
			Command: CommandWhy, Arguments: []any{s.URI, atom}}}
	}
	return nil
}

// kindExplain is the code action kind of the explanations.
const kindExplain = "source.explain"
