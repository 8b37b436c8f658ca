package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxql/ctxql/syntax"
)

// Navigator finds the definitions and references of the symbol at a byte
// offset (textDocument/definition, textDocument/references) and renames it
// (textDocument/rename), within one document.
type Navigator interface {
	// Definitions returns the spans defining the symbol at off.
	Definitions(ctx context.Context, s *Snapshot, off int) []syntax.Span
	// References returns every span where the symbol at off is written;
	// withDecl includes its definitions.
	References(ctx context.Context, s *Snapshot, off int, withDecl bool) []syntax.Span
	// Rename returns the edits renaming the symbol at off, or an error
	// saying why the name cannot be used.
	Rename(ctx context.Context, s *Snapshot, off int, name string) ([]syntax.TextEdit, error)
}

func (s *server) locations(snap *Snapshot, spans []syntax.Span) []Location {
	out := []Location{}
	for _, sp := range spans {
		out = append(out, Location{URI: snap.URI, Range: s.rangeOf(snap.File, sp)})
	}
	return out
}

func (s *server) definition(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	n, ok := snap.Lang.(Navigator)
	if !ok {
		return []Location{}, nil
	}
	return s.locations(snap, n.Definitions(ctx, snap, off)), nil
}

func (s *server) references(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	var p struct {
		Context struct {
			IncludeDeclaration bool `json:"includeDeclaration"`
		} `json:"context"`
	}
	_ = json.Unmarshal(params, &p)
	n, ok := snap.Lang.(Navigator)
	if !ok {
		return []Location{}, nil
	}
	return s.locations(snap, n.References(ctx, snap, off, p.Context.IncludeDeclaration)), nil
}

func (s *server) rename(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	var p struct {
		NewName string `json:"newName"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	n, ok := snap.Lang.(Navigator)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s documents cannot be renamed in", snap.LanguageID)
	}
	edits, err := n.Rename(ctx, snap, off, p.NewName)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "rename: %v", err)
	}
	return map[string]any{"changes": map[string][]wireTextEdit{snap.URI: s.textEdits(snap.File, edits)}}, nil
}
