package lsp

import (
	"context"
	"encoding/json"
)

// Folder lists the ranges of a document an editor can fold
// (textDocument/foldingRange), as byte-offset spans.
type Folder interface {
	Folds(ctx context.Context, s *Snapshot) []Fold
}

// Fold is a foldable range: its span starts on the range's first line and
// ends on its last.
type Fold struct {
	Start, End int
	Comment    bool
}

// Folds lists the ranges the table finds in the document's structure
// (lang.Parsed.Folds).
func (tableFeatures) Folds(_ context.Context, s *Snapshot) []Fold {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	var out []Fold
	for _, f := range p.Folds() {
		out = append(out, Fold{Start: f.Span.Start, End: f.Span.End, Comment: f.Comment})
	}
	return out
}

// wireFoldingRange is an LSP FoldingRange.
type wireFoldingRange struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Kind      string `json:"kind,omitempty"`
}

// foldingRange answers textDocument/foldingRange: the document's folds
// that span more than one line.
func (s *server) foldingRange(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	out := []wireFoldingRange{}
	f, ok := snap.Lang.(Folder)
	if !ok {
		return out, nil
	}
	for _, fd := range f.Folds(ctx, snap) {
		start, end := snap.File.LineOf(fd.Start), snap.File.LineOf(max(fd.Start, fd.End-1))
		if end <= start {
			continue
		}
		w := wireFoldingRange{StartLine: start, EndLine: end}
		if fd.Comment {
			w.Kind = "comment"
		}
		out = append(out, w)
	}
	return out, nil
}
