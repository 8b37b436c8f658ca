package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ctxql/ctxql/syntax"
)

// semanticTokensFull answers textDocument/semanticTokens/full: the
// language's tokens, split at line ends, delta-encoded in the negotiated
// position encoding.
func (s *server) semanticTokensFull(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	h, ok := snap.Lang.(Highlighter)
	if !ok {
		return semanticTokens{Data: []uint32{}}, nil
	}
	return semanticTokens{Data: s.encodeTokens(snap.File, h.SemanticTokens(ctx, snap))}, nil
}

// encodeTokens produces the LSP relative encoding: for each token
// deltaLine, deltaStart, length, type index, modifier bits. Tokens of
// unknown type, empty tokens and tokens overlapping an earlier one are
// dropped.
func (s *server) encodeTokens(f *syntax.File, toks []SemanticToken) []uint32 {
	data := make([]uint32, 0, 5*len(toks))
	prevLine, prevChar := 0, 0
	last := 0
	for _, t := range toks {
		typ := slices.Index(tokenTypes[:], t.Type)
		if typ < 0 {
			continue
		}
		var mods uint32
		for _, m := range t.Modifiers {
			if i := slices.Index(tokenModifiers[:], m); i >= 0 {
				mods |= 1 << i
			}
		}
		sp := f.Clamp(t.Span)
		if sp.Start < last {
			continue
		}
		last = sp.End
		for line := f.LineOf(sp.Start); sp.Start < sp.End; line++ {
			end := min(sp.End, f.LineEnd(line))
			if end > sp.Start {
				a, b := s.position(f, sp.Start), s.position(f, end)
				dl := a.Line - prevLine
				dc := a.Character
				if dl == 0 {
					dc -= prevChar
				}
				data = append(data, uint32(dl), uint32(dc), uint32(b.Character-a.Character), uint32(typ), mods)
				prevLine, prevChar = a.Line, a.Character
			}
			if line+1 >= f.LineCount() {
				break
			}
			sp.Start = max(sp.Start, f.LineStart(line+1))
		}
	}
	return data
}
