package qtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/internal/yamltree"
	"github.com/ctxql/ctxql/syntax"
)

// nodeKind is the shape of a YAML value in a test file.
type nodeKind = yamltree.Kind

// maxDepth bounds the nesting of a test file.
const maxDepth = 64

// parseYAML parses a test file into one node; a file without a document
// is an empty mapping. Every error is a *yamltree.Error: besides what
// yamltree refuses, keys that are not strings, a key twice in a mapping,
// and numbers that are not finite.
func parseYAML(file *syntax.File) (*yamltree.Node, error) {
	root, err := yamltree.Parse(file, yamltree.Options{
		MaxDepth: maxDepth,
		Scalar: func(n *yamltree.Node) error {
			if !n.Finite() {
				return &yamltree.Error{Span: syntax.Sp(n.Pos, n.Pos), Msg: "a number must be finite"}
			}
			return nil
		},
		Key: func(m, k *yamltree.Node) error {
			if k.Kind != yamltree.String {
				return &yamltree.Error{Span: k.Span, Msg: fmt.Sprintf("keys must be strings, got %s", k.Kind)}
			}
			if m.Get(k.Text) != nil {
				return &yamltree.Error{Span: k.Span, Msg: fmt.Sprintf("duplicate key %q", k.Text)}
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if root == nil {
		return &yamltree.Node{Kind: yamltree.Mapping}, nil
	}
	return root, nil
}

// jsonValue returns a node as a JSON value (mappings keep their key order).
func jsonValue(n *yamltree.Node) json.RawMessage {
	var b strings.Builder
	writeJSONValue(&b, n)
	return json.RawMessage(b.String())
}

func writeJSONValue(b *strings.Builder, n *yamltree.Node) {
	switch n.Kind {
	case yamltree.Null:
		b.WriteString("null")
	case yamltree.String:
		s, _ := json.Marshal(n.Text)
		b.Write(s)
	case yamltree.Number, yamltree.Bool:
		b.WriteString(n.Text)
	case yamltree.Mapping:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			s, _ := json.Marshal(k.Text)
			b.Write(s)
			b.WriteByte(':')
			writeJSONValue(b, n.Vals[i])
		}
		b.WriteByte('}')
	case yamltree.List:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONValue(b, it)
		}
		b.WriteByte(']')
	}
}
