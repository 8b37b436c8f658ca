package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf16"
)

// SignatureHelper gives the signature of what is being called at a byte
// offset (textDocument/signatureHelp).
type SignatureHelper interface {
	Signature(ctx context.Context, s *Snapshot, off int) (Signature, bool)
}

// Signature is a signature with the parameter being written.
type Signature struct {
	Label  string
	Doc    string
	Params []string // each a substring of Label, in order
	Active int
}

// Signature is the table's signature at off (lang.Parsed.SignatureAt: a
// Datalog relation's parameter types while its arguments are written).
func (tableFeatures) Signature(_ context.Context, s *Snapshot, off int) (Signature, bool) {
	p := parsedOf(s)
	if p == nil {
		return Signature{}, false
	}
	sig, ok := p.SignatureAt(off)
	if !ok {
		return Signature{}, false
	}
	return Signature{Label: sig.Label, Doc: sig.Doc, Params: sig.Params, Active: sig.Active}, true
}

type wireParameter struct {
	Label [2]int `json:"label"` // UTF-16 offsets into the signature's label
}

type wireSignature struct {
	Label         string          `json:"label"`
	Documentation string          `json:"documentation,omitempty"`
	Parameters    []wireParameter `json:"parameters"`
}

type wireSignatureHelp struct {
	Signatures      []wireSignature `json:"signatures"`
	ActiveSignature int             `json:"activeSignature"`
	ActiveParameter int             `json:"activeParameter"`
}

// signatureHelp answers textDocument/signatureHelp: null where nothing is
// being called. Parameters are given by their offsets in the label, so
// that two parameters of the same type stay apart.
func (s *server) signatureHelp(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	h, ok := snap.Lang.(SignatureHelper)
	if !ok {
		return nil, nil
	}
	sig, ok := h.Signature(ctx, snap, off)
	if !ok {
		return nil, nil
	}
	w := wireSignature{Label: sig.Label, Documentation: sig.Doc, Parameters: []wireParameter{}}
	from := strings.IndexByte(sig.Label, '(') + 1
	for _, p := range sig.Params {
		i := strings.Index(sig.Label[from:], p)
		if i < 0 {
			break
		}
		start := from + i
		w.Parameters = append(w.Parameters, wireParameter{Label: [2]int{utf16Len(sig.Label[:start]), utf16Len(sig.Label[:start+len(p)])}})
		from = start + len(p)
	}
	return wireSignatureHelp{Signatures: []wireSignature{w}, ActiveParameter: sig.Active}, nil
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }
