package lsp

import (
	"context"
	"encoding/json"

	"github.com/ctxql/ctxql/syntax"
)

// InlayHint is a label shown inline at a byte offset, with padding
// before or after it and a tooltip.
type InlayHint struct {
	Offset                    int
	Label                     string
	PaddingLeft, PaddingRight bool
	Tooltip                   string
}

// InlayHinter lists the inlay hints inside a byte span
// (textDocument/inlayHint).
type InlayHinter interface {
	InlayHints(ctx context.Context, s *Snapshot, span syntax.Span) []InlayHint
}

func (s *server) inlayHint(ctx context.Context, params json.RawMessage) (any, error) {
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
	type wireHint struct {
		Position     Position `json:"position"`
		Label        string   `json:"label"`
		PaddingLeft  bool     `json:"paddingLeft,omitempty"`
		PaddingRight bool     `json:"paddingRight,omitempty"`
		Tooltip      string   `json:"tooltip,omitempty"`
	}
	out := []wireHint{}
	if ih, ok := snap.Lang.(InlayHinter); ok {
		for _, h := range ih.InlayHints(ctx, snap, s.spanOf(snap.File, p.Range)) {
			out = append(out, wireHint{Position: s.position(snap.File, h.Offset), Label: h.Label,
				PaddingLeft: h.PaddingLeft, PaddingRight: h.PaddingRight, Tooltip: h.Tooltip})
		}
	}
	return out, nil
}
