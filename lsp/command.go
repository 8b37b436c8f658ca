package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxql/ctxql/lang"
)

// CommandRun is the workspace/executeCommand command that evaluates a query
// against the document's sample data. Its arguments are [uri, range] (the
// range's start picks the query); the result is
// {uri, range, count, results, elapsed_ms, error?} with every result (at
// most N with a third argument {"limit": N}), and
// the same with the first results is pushed as a "ctxql/preview"
// notification.
const CommandRun = "ctxql.run"

// CommandChooseData is the command of the "choose sample data" lens shown
// above the queries of a document without sample data. The server does not
// execute it: the editor implements it (a file picker that has the server
// write the data line with ctxql.setData, or sets the data setting). Its arguments are [uri].
const CommandChooseData = "ctxql.chooseData"

func (s *server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Command == CommandWhy {
		return s.why(ctx, p.Arguments)
	}
	if p.Command == CommandTest {
		return s.runTests(ctx, p.Arguments), nil
	}
	if p.Command == CommandExplain {
		return s.explain(ctx, p.Arguments)
	}
	if p.Command == CommandSetData {
		return s.setData(ctx, p.Arguments)
	}
	if p.Command != CommandRun && p.Command != CommandChooseData {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	var uri string
	var rng Range
	if len(p.Arguments) < 1 || json.Unmarshal(p.Arguments[0], &uri) != nil {
		return s.runFailed(ctx, "", Range{}, fmt.Sprintf("%s needs the arguments [uri, range]", p.Command)), nil
	}
	if len(p.Arguments) > 1 && json.Unmarshal(p.Arguments[1], &rng) != nil {
		return s.runFailed(ctx, uri, Range{}, fmt.Sprintf("%s: the second argument must be a range", p.Command)), nil
	}
	opts, ok := runOptionsOf(p.Arguments)
	if !ok {
		return s.runFailed(ctx, uri, rng, fmt.Sprintf(`%s: the third argument must be {"limit": N}`, p.Command)), nil
	}
	snap := s.session.get(uri)
	name := filepath.Base(FilePath(uri))
	if name == "." || name == string(filepath.Separator) {
		name = uri
	}
	switch {
	case snap == nil:
		return s.runFailed(ctx, uri, rng, fmt.Sprintf("Cannot run a query of %s: the document is not open.", name)), nil
	case p.Command == CommandChooseData:
		return s.runFailed(ctx, uri, rng, noDataMessage(name)), nil
	}
	if _, msg, bad := snap.Degraded(); bad {
		return s.runFailed(ctx, uri, rng, fmt.Sprintf("Cannot run a query of %s: %s.", name, msg)), nil
	}
	if _, ok := snap.Lang.(Runner); !ok {
		return s.runFailed(ctx, uri, rng, fmt.Sprintf("Cannot run %s: only PACT, JQL and Datalog documents have queries to run.", name)), nil
	}
	if snap.Workspace == nil || snap.Workspace.DataPath(snap) == "" {
		return s.runFailed(ctx, uri, rng, noDataMessage(name)), nil
	}
	off := s.offset(snap.File, rng.Start)
	res, ok := run(ctx, snap, off)
	if !ok {
		return s.runFailed(ctx, uri, rng, fmt.Sprintf("No query at line %d of %s: put the cursor on a query (or a Datalog rule) to run it.", rng.Start.Line+1, name)), nil
	}
	note := s.previewOf(ctx, snap, res)
	if err := s.conn.Notify(ctx, MethodPreview, note); err != nil {
		s.log.printf("%s: %v", MethodPreview, err)
	}
	if res.Err != nil {
		s.showMessage(ctx, messageError, fmt.Sprintf("Running the query at line %d of %s: %v", rng.Start.Line+1, name, res.Err))
	}
	full := note
	if res.Err == nil {
		switch all := res.Result.(type) {
		case []any:
			full.Results = opts.cut(all)
		case lang.Items:
			n := all.Len()
			if opts.Limit > 0 {
				n = min(n, opts.Limit)
			}
			full.Results = lang.ItemList(all, 0, n)
		case nil:
			full.Results = []any{}
		default:
			full.Results = []any{res.Result}
		}
		full.Nodes = res.Nodes
	}
	return full, nil
}

// noDataMessage says what a document without sample data misses.
func noDataMessage(name string) string {
	return fmt.Sprintf("No sample data for %s: add a line \"// data: ./sample.json\" at the top of the file (\"# data: ...\" in YAML), "+
		"a \"data\" entry in .ctxql.yaml, or a \"ctxql.data\" setting naming the file to run the queries against.", name)
}

// The window/showMessage types.
const (
	messageError   = 1
	messageWarning = 2
	messageInfo    = 3
)

// showMessage shows a message in the editor.
func (s *server) showMessage(ctx context.Context, typ int, msg string) {
	if err := s.conn.Notify(ctx, "window/showMessage", map[string]any{"type": typ, "message": msg}); err != nil {
		s.log.printf("window/showMessage: %v", err)
	}
}

// runFailed shows why a run could not happen and answers the command with
// the same text as the result's error: a failed run is not a failed
// request.
func (s *server) runFailed(ctx context.Context, uri string, rng Range, msg string) previewParams {
	s.showMessage(ctx, messageWarning, msg)
	return previewParams{URI: uri, Range: rng, Results: []any{}, Error: msg}
}
