package lsp

import (
	"context"
	"encoding/json"

	"github.com/ctxql/ctxql/syntax"
)

// CodeAction is a titled set of edits to the document, such as a
// diagnostic's suggested fix or a migration. Kind is an LSP
// CodeActionKind ("quickfix", "refactor.rewrite", "source.fixAll").
type CodeAction struct {
	Title       string
	Kind        string
	Edits       []syntax.TextEdit
	Diagnostics []syntax.Diagnostic // the diagnostics it resolves, if any
	Preferred   bool
}

// CodeActioner proposes code actions for a byte span of a document
// (textDocument/codeAction).
type CodeActioner interface {
	CodeActions(ctx context.Context, s *Snapshot, span syntax.Span) []CodeAction
}

type wireCodeAction struct {
	Title       string           `json:"title"`
	Kind        string           `json:"kind,omitempty"`
	Diagnostics []wireDiagnostic `json:"diagnostics,omitempty"`
	IsPreferred bool             `json:"isPreferred,omitempty"`
	Edit        struct {
		Changes map[string][]wireTextEdit `json:"changes"`
	} `json:"edit"`
}

func (s *server) codeAction(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
		Range        Range                  `json:"range"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	out := []wireCodeAction{}
	ca, ok := snap.Lang.(CodeActioner)
	if !ok {
		return out, nil
	}
	for _, a := range ca.CodeActions(ctx, snap, s.spanOf(snap.File, p.Range)) {
		w := wireCodeAction{Title: a.Title, Kind: a.Kind, IsPreferred: a.Preferred}
		if len(a.Diagnostics) > 0 {
			w.Diagnostics = s.toWire(snap, a.Diagnostics)
		}
		w.Edit.Changes = map[string][]wireTextEdit{snap.URI: s.textEdits(snap.File, a.Edits)}
		out = append(out, w)
	}
	return out, nil
}
