package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// CommandRun is the workspace/executeCommand command that evaluates a query
// against the document's sample data. Its arguments are [uri, range] (the
// range's start picks the query); the result is
// {uri, range, count, results, elapsed_ms, error?} with every result, and
// the same with the first results is pushed as a "ctxql/preview"
// notification.
const CommandRun = "ctxql.run"

// CommandChooseData is the command of the "choose sample data" lens shown
// above the queries of a document without sample data. The server does not
// execute it: the editor implements it (a file picker that writes a
// "// data:" line or the data setting). Its arguments are [uri].
const CommandChooseData = "ctxql.chooseData"

func (s *server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Command != CommandRun {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	var uri string
	var rng Range
	if len(p.Arguments) < 1 || json.Unmarshal(p.Arguments[0], &uri) != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s needs the arguments [uri, range]", CommandRun)
	}
	if len(p.Arguments) > 1 && json.Unmarshal(p.Arguments[1], &rng) != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: the second argument must be a range", CommandRun)
	}
	snap := s.session.get(uri)
	if snap == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "document not open: %s", uri)
	}
	if _, ok := snap.Lang.(Runner); !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s documents cannot be run", snap.LanguageID)
	}
	off := s.offset(snap.File, rng.Start)
	res, ok := run(ctx, snap, off)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no query at %d:%d or no sample data for %s (add a \"// data: ./file.json\" line or a data setting)",
			rng.Start.Line, rng.Start.Character, uri)
	}
	note := s.previewOf(snap, res)
	if err := s.conn.Notify(ctx, MethodPreview, note); err != nil {
		s.log.printf("%s: %v", MethodPreview, err)
	}
	full := note
	if res.Err == nil {
		full.Results = nil
		if all, ok := res.Result.([]any); ok {
			full.Results = all
		} else if res.Result != nil {
			full.Results = []any{res.Result}
		}
	}
	return full, nil
}
