package lsp

import (
	"context"
	"encoding/json"

	"github.com/ctxql/ctxql/syntax"
)

// SelectionRanger lists the spans containing a byte offset, innermost
// first, each containing the one before (textDocument/selectionRange).
type SelectionRanger interface {
	Enclosing(ctx context.Context, s *Snapshot, off int) []syntax.Span
}

// Enclosing is the table's nesting of the document's constructs at off
// (lang.Parsed.Enclosing).
func (tableFeatures) Enclosing(_ context.Context, s *Snapshot, off int) []syntax.Span {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	return p.Enclosing(off)
}

// wireSelectionRange is an LSP SelectionRange.
type wireSelectionRange struct {
	Range  Range               `json:"range"`
	Parent *wireSelectionRange `json:"parent,omitempty"`
}

type selectionRangeParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Positions    []Position             `json:"positions"`
}

// selectionRange answers textDocument/selectionRange: for each position,
// the innermost span with its enclosing spans as parents (an empty range
// at the position when nothing encloses it).
func (s *server) selectionRange(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	var p selectionRangeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	sr, _ := snap.Lang.(SelectionRanger)
	out := make([]wireSelectionRange, 0, len(p.Positions))
	for _, pos := range p.Positions {
		off := s.offset(snap.File, pos)
		var spans []syntax.Span
		if sr != nil {
			spans = sr.Enclosing(ctx, snap, off)
		}
		var r *wireSelectionRange
		for i := len(spans) - 1; i >= 0; i-- {
			r = &wireSelectionRange{Range: s.rangeOf(snap.File, spans[i]), Parent: r}
		}
		if r == nil {
			r = &wireSelectionRange{Range: s.rangeOf(snap.File, syntax.Sp(off, off))}
		}
		out = append(out, *r)
	}
	return out, nil
}
