package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Formatter formats a whole document (textDocument/formatting), returning
// byte-offset edits against the snapshot's text. An error (for example a
// document that does not parse) is reported to the client as a request
// failure.
type Formatter interface {
	Format(ctx context.Context, s *Snapshot) ([]syntax.TextEdit, error)
}

func (s *server) formatting(ctx context.Context, params json.RawMessage) (any, error) {
	snap, err := s.snapshotOf(params)
	if err != nil {
		return nil, err
	}
	f, ok := snap.Lang.(Formatter)
	if !ok {
		return []wireTextEdit{}, nil
	}
	edits, err := f.Format(ctx, snap)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "format: %v", err)
	}
	return s.textEdits(snap.File, edits), nil
}

// RangeFormatter formats the part of a document inside a byte span
// (textDocument/rangeFormatting).
type RangeFormatter interface {
	FormatRange(ctx context.Context, s *Snapshot, span syntax.Span) ([]syntax.TextEdit, error)
}

func (s *server) rangeFormatting(ctx context.Context, params json.RawMessage) (any, error) {
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
	f, ok := snap.Lang.(RangeFormatter)
	if !ok {
		return []wireTextEdit{}, nil
	}
	edits, err := f.FormatRange(ctx, snap, s.spanOf(snap.File, p.Range))
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "format: %v", err)
	}
	return s.textEdits(snap.File, edits), nil
}

// minimalEdit is one edit replacing the part between the common prefix
// and the common suffix of before and after (none when they are equal).
func minimalEdit(before, after string) []syntax.TextEdit {
	if before == after {
		return []syntax.TextEdit{}
	}
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	for p > 0 && !isRuneStart(before, p) {
		p--
	}
	q := 0
	for q < len(before)-p && q < len(after)-p && before[len(before)-1-q] == after[len(after)-1-q] {
		q++
	}
	for q > 0 && !isRuneStart(before, len(before)-q) {
		q--
	}
	// Neither end may fall between the "\r" and "\n" of a line break: an
	// LSP position cannot address that place, and clients clamp it to the
	// line's end.
	if p > 0 && before[p-1] == '\r' && p < len(before) && before[p] == '\n' {
		p--
	}
	if e := len(before) - q; q > 0 && e > 0 && before[e-1] == '\r' && before[e] == '\n' && q <= len(after)-p {
		q--
	}
	return []syntax.TextEdit{{Span: syntax.Sp(p, len(before)-q), NewText: after[p : len(after)-q]}}
}

func isRuneStart(s string, i int) bool { return i >= len(s) || s[i]&0xC0 != 0x80 }

// formatWith formats the document by its file name's language.
func formatWith(s *Snapshot) ([]syntax.TextEdit, error) {
	name := FilePath(s.URI)
	l := lang.ForName(name)
	if l == nil {
		return nil, lang.ErrUnsupported
	}
	out, err := l.Format(name, []byte(s.File.Text()), lang.DialectUnset)
	if err != nil {
		return nil, err
	}
	return minimalEdit(s.File.Text(), string(out)), nil
}
