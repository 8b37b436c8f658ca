package lsp

import (
	"context"
	"encoding/json"

	"github.com/ctxql/ctxql/syntax"
)

// Hoverer explains the construct at a byte offset (textDocument/hover).
// It returns Markdown and the span it describes; ok is false when there is
// nothing to say.
type Hoverer interface {
	Hover(ctx context.Context, s *Snapshot, off int) (markdown string, span syntax.Span, ok bool)
}

func (s *server) hover(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	h, ok := snap.Lang.(Hoverer)
	if !ok {
		return nil, nil
	}
	md, sp, ok := h.Hover(ctx, snap, off)
	if !ok {
		return nil, nil
	}
	r := s.rangeOf(snap.File, sp)
	return struct {
		Contents markupContent `json:"contents"`
		Range    Range         `json:"range"`
	}{markupContent{Kind: "markdown", Value: md}, r}, nil
}
