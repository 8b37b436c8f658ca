package lsp

import (
	"context"
	"encoding/json"
	"fmt"

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

// countHints evaluates the queries inside span and labels each with its
// result count at its end.
func countHints(ctx context.Context, s *Snapshot, spans []syntax.Span, span syntax.Span) []InlayHint {
	if s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return nil
	}
	var out []InlayHint
	for _, sp := range spans {
		if sp.End < span.Start || sp.Start > span.End {
			continue
		}
		r, ok := run(ctx, s, sp.Start)
		if !ok || ctx.Err() != nil {
			continue
		}
		label := fmt.Sprintf(" → %d", r.Count)
		if r.Err != nil {
			label = " → error"
		}
		out = append(out, InlayHint{Offset: sp.End, Label: label})
	}
	return out
}
