package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxql/ctxql/syntax"
)

// Formatter formats a whole document (textDocument/formatting), returning
// byte-offset edits against the snapshot's text. An error (for example a
// document that does not parse) is reported to the client as a request
// failure.
type Formatter interface {
	Format(ctx context.Context, s *Snapshot) ([]syntax.TextEdit, error)
}

func (s *server) formatting(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	f, ok := snap.Lang.(Formatter)
	if !ok {
		return []wireTextEdit{}, nil
	}
	edits, err := f.Format(ctx, snap)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "format: %v", err)
	}
	return s.textEdits(snap.File, edits), nil
}

// RangeFormatter formats the part of a document inside a byte span
// (textDocument/rangeFormatting).
type RangeFormatter interface {
	FormatRange(ctx context.Context, s *Snapshot, span syntax.Span) ([]syntax.TextEdit, error)
}

func (s *server) rangeFormatting(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Range Range `json:"range"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	f, ok := snap.Lang.(RangeFormatter)
	if !ok {
		return []wireTextEdit{}, nil
	}
	edits, err := f.FormatRange(ctx, snap, s.spanOf(snap.File, p.Range))
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "format: %v", err)
	}
	return s.textEdits(snap.File, edits), nil
}
