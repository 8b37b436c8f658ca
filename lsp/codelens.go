package lsp

import (
	"context"
	"encoding/json"

	"github.com/ctxql/ctxql/syntax"
)

// CodeLens is a clickable label above a span, running a server command
// (usually CommandRun) with arguments; a spanArg argument is sent as
// an LSP range in the negotiated encoding.
type CodeLens struct {
	Span      syntax.Span
	Title     string
	Command   string
	Arguments []any
}

// CodeLenser lists the code lenses of a document (textDocument/codeLens).
type CodeLenser interface {
	CodeLenses(ctx context.Context, s *Snapshot) []CodeLens
}

type wireCommand struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

type wireCodeLens struct {
	Range   Range       `json:"range"`
	Command wireCommand `json:"command"`
}

func (s *server) codeLens(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	out := []wireCodeLens{}
	if cl, ok := snap.Lang.(CodeLenser); ok {
		for _, l := range cl.CodeLenses(ctx, snap) {
			args := make([]any, len(l.Arguments))
			for i, a := range l.Arguments {
				if sa, ok := a.(spanArg); ok {
					a = s.rangeOf(snap.File, sa.Span)
				}
				args[i] = a
			}
			out = append(out, wireCodeLens{
				Range:   s.rangeOf(snap.File, l.Span),
				Command: wireCommand{Title: l.Title, Command: l.Command, Arguments: args},
			})
		}
	}
	return out, nil
}
