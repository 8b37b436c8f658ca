package lsp

import (
	"context"
	"encoding/json"
)

// documentSymbol answers textDocument/documentSymbol with hierarchical
// DocumentSymbols ([] for documents whose language has no outline).
func (s *server) documentSymbol(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	out := []wireSymbol{}
	if sy, ok := snap.Lang.(Symbolizer); ok {
		out = s.symbolsToWire(snap, sy.Symbols(ctx, snap))
	}
	return out, nil
}

func (s *server) symbolsToWire(snap *Snapshot, syms []Symbol) []wireSymbol {
	out := make([]wireSymbol, 0, len(syms))
	for _, y := range syms {
		sel := y.Selection
		if !y.Span.Covers(sel) {
			sel = y.Span
		}
		w := wireSymbol{
			Name:           y.Name,
			Detail:         y.Detail,
			Kind:           int(y.Kind),
			Range:          s.rangeOf(snap.File, y.Span),
			SelectionRange: s.rangeOf(snap.File, sel),
		}
		if w.Name == "" {
			w.Name = "?" // clients reject empty names
		}
		if len(y.Children) > 0 {
			w.Children = s.symbolsToWire(snap, y.Children)
		}
		out = append(out, w)
	}
	return out
}
