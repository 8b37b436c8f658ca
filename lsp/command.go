package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// CommandRun is the workspace/executeCommand command that evaluates the
// query at a position. Its one argument is
// {"uri": ..., "position": {...}, "data": "<path or inline data>"}; the
// result is sent to the client as a "ctxql/preview" notification and also
// returned.
const CommandRun = "ctxql.run"

// MethodPreview is the server-to-client notification carrying a query
// result: {"uri": ..., "range": {...}, "result": ...}.
const MethodPreview = "ctxql/preview"

// Runner evaluates the query at a byte offset over data (a file path or
// inline data, as the language defines) and returns a JSON-encodable result.
type Runner interface {
	Run(ctx context.Context, s *Snapshot, off int, data string) (result any, err error)
}

type runArgs struct {
	URI      string   `json:"uri"`
	Position Position `json:"position"`
	Data     string   `json:"data"`
}

func (s *server) executeCommand(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Command   string    `json:"command"`
		Arguments []runArgs `json:"arguments"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Command != CommandRun || len(p.Arguments) != 1 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command or arguments: %s", p.Command)
	}
	a := p.Arguments[0]
	snap := s.session.get(a.URI)
	if snap == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "document not open: %s", a.URI)
	}
	r, ok := snap.Lang.(Runner)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s documents cannot be run", snap.LanguageID)
	}
	off := s.offset(snap.File, a.Position)
	res, err := r.Run(ctx, snap, off, a.Data)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "run: %v", err)
	}
	pos := s.position(snap.File, off)
	note := map[string]any{"uri": a.URI, "range": Range{Start: pos, End: pos}, "result": res}
	if err := s.conn.Notify(ctx, MethodPreview, note); err != nil {
		s.log.printf("%s: %v", MethodPreview, err)
	}
	return res, nil
}
