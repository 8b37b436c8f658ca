package lsp

import (
	"context"
	"encoding/json"

	"github.com/ctxql/ctxql/syntax"
)

// CompletionItem is one proposal. Edit, when set, replaces its span with its
// text; otherwise the client inserts Label at the cursor. Kind is an LSP
// CompletionItemKind number (0 omits it).
type CompletionItem struct {
	Label         string
	Kind          int
	Detail        string
	Documentation string // Markdown
	Edit          *syntax.TextEdit
	Snippet       bool // Edit's text is an LSP snippet ("${1:arg}" placeholders)
}

// Completer proposes completions at a byte offset (textDocument/completion).
type Completer interface {
	Complete(ctx context.Context, s *Snapshot, off int) []CompletionItem
}

type wireCompletionItem struct {
	Label         string         `json:"label"`
	Kind          int            `json:"kind,omitempty"`
	Detail        string         `json:"detail,omitempty"`
	Documentation *markupContent `json:"documentation,omitempty"`
	TextEdit      *wireTextEdit  `json:"textEdit,omitempty"`
	Format        int            `json:"insertTextFormat,omitempty"` // 2: snippet
}

func (s *server) completion(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	out := []wireCompletionItem{}
	if c, ok := snap.Lang.(Completer); ok {
		for _, it := range c.Complete(ctx, snap, off) {
			w := wireCompletionItem{Label: it.Label, Kind: it.Kind, Detail: it.Detail}
			if it.Documentation != "" {
				w.Documentation = &markupContent{Kind: "markdown", Value: it.Documentation}
			}
			if it.Edit != nil {
				e := s.textEdits(snap.File, []syntax.TextEdit{*it.Edit})[0]
				w.TextEdit = &e
			}
			if it.Snippet {
				w.Format = 2
			}
			out = append(out, w)
		}
	}
	return out, nil
}
