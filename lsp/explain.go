package lsp

import (
	"context"
	"encoding/json"
)

// CommandExplain is the workspace/executeCommand command that explains a
// query over the document's sample data step by step. Its arguments are
// [uri, range] (the range's start picks the query); the result is
// {uri, range, noun, steps: [{range, text, count}], emptied, error?}:
// each step of the query with what it left, and the index of the step
// that left nothing (-1 when none did).
const CommandExplain = "ctxql.explain"

// explainResult is the result of CommandExplain.
type explainResult struct {
	URI   string        `json:"uri"`
	Range Range         `json:"range"`
	Noun  string        `json:"noun,omitempty"` // what the counts count: "candidates" or "documents"
	Steps []explainStep `json:"steps"`
	// Emptied indexes the step that left nothing, -1 when none did.
	Emptied int    `json:"emptied"`
	Error   string `json:"error,omitempty"`
}

// explainStep is one step of an explained query.
type explainStep struct {
	Range Range  `json:"range"`
	Text  string `json:"text"`
	Count int    `json:"count"`
}

// explain answers CommandExplain.
func (s *server) explain(ctx context.Context, args []json.RawMessage) (any, error) {
	out := explainResult{Steps: []explainStep{}, Emptied: -1}
	var rng Range
	if len(args) < 2 || json.Unmarshal(args[0], &out.URI) != nil || json.Unmarshal(args[1], &rng) != nil {
		out.Error = CommandExplain + " needs the arguments [uri, range]"
		return out, nil
	}
	snap := s.session.get(out.URI)
	if snap == nil {
		out.Error = "the document is not open"
		return out, nil
	}
	if _, msg, bad := snap.Degraded(); bad {
		out.Error = msg
		return out, nil
	}
	tr, ok := snap.Lang.(Tracer)
	q, hasQueries := snap.Lang.(Querier)
	if !ok || !hasQueries {
		out.Error = "only PACT and JQL queries are explained step by step"
		return out, nil
	}
	if snap.Workspace == nil || snap.Workspace.DataPath(snap) == "" {
		out.Error = "the document has no sample data"
		return out, nil
	}
	off := s.offset(snap.File, rng.Start)
	for _, sp := range q.Queries(snap) {
		if !sp.Touches(off) {
			continue
		}
		out.Range = s.rangeOf(snap.File, sp)
		t := tr.Trace(ctx, snap, sp.Start)
		if t == nil {
			out.Error = "the query cannot be explained over the sample data (it has errors, or the data does not load)"
			return out, nil
		}
		out.Noun, out.Emptied = t.Noun, t.Emptied
		for _, st := range t.Steps {
			out.Steps = append(out.Steps, explainStep{Range: s.rangeOf(snap.File, st.Span), Text: st.Text, Count: st.Count})
		}
		return out, nil
	}
	out.Error = "no query at this position"
	return out, nil
}

// runOptions are the optional third argument of CommandRun:
// {"limit": N} returns at most N results (count still says how many there
// are).
type runOptions struct {
	Limit int `json:"limit"`
}

// runOptionsOf reads CommandRun's third argument, if any.
func runOptionsOf(args []json.RawMessage) (runOptions, bool) {
	var o runOptions
	if len(args) < 3 {
		return o, true
	}
	return o, json.Unmarshal(args[2], &o) == nil && o.Limit >= 0
}

// cut keeps the results the options ask for.
func (o runOptions) cut(results []any) []any {
	if o.Limit > 0 && len(results) > o.Limit {
		return results[:o.Limit]
	}
	return results
}
