package jql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// YAML data is decoded in pieces so that a load looks at its context as
// it goes: the YAML library tokenizes, parses and decodes a text in one
// step, which for a large file takes seconds. When the text has a shape
// that allows it, each top-level block sequence (the root's list of
// documents, or a domain's list in a mapping of domains) is cut before
// its items, at the lines that start with "-" at the sequence's column,
// into pieces of about yamlPiece bytes, each decoded on its own, the
// context looked at before each; each other entry of a mapping of
// domains is decoded on its own. A piece must decode to one value per
// line it was cut at. Whatever does not fit (a piece or an entry that
// does not decode alone, which is also what anchors and aliases across
// pieces, directives and several documents give, or another shape) makes
// the whole text decode in one step, as the library decodes it, so that
// the value and any error are the library's.

// yamlPiece is the size a piece of a block sequence grows to before it is
// decoded.
const yamlPiece = 16 << 10

// errWhole reports that the text is to be decoded whole.
var errWhole = errors.New("decode the YAML text whole")

// decodeYAML decodes the first document of a YAML text as yaml.Unmarshal
// does into an any, looking at ctx as it goes.
func decodeYAML(ctx context.Context, src string) (any, error) {
	v, err := decodePieces(ctx, yamlLines(src))
	if err == errWhole {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var v any
		if err := yaml.Unmarshal([]byte(src), &v); err != nil {
			return nil, dataErr("yaml: %w", err)
		}
		return v, nil
	}
	return v, err
}

// yamlText is a YAML text and where each of its lines starts.
type yamlText struct {
	src    string
	starts []int
}

func yamlLines(src string) yamlText {
	t := yamlText{src: src}
	for start := 0; start < len(src); {
		t.starts = append(t.starts, start)
		nl := strings.IndexByte(src[start:], '\n')
		if nl < 0 {
			break
		}
		start += nl + 1
	}
	return t
}

// line returns line l (from 0) without its end of line.
func (t yamlText) line(l int) string {
	return strings.TrimRight(t.span(l, l+1), "\r\n")
}

// span returns lines [from, to).
func (t yamlText) span(from, to int) string {
	end := len(t.src)
	if to < len(t.starts) {
		end = t.starts[to]
	}
	return t.src[t.starts[from]:end]
}

// indent returns the number of spaces line l starts with, and -1 for a
// line that holds nothing but spaces or a comment.
func (t yamlText) indent(l int) int {
	s := t.line(l)
	n := len(s) - len(strings.TrimLeft(s, " "))
	if n == len(s) || s[n] == '#' {
		return -1
	}
	return n
}

// entryAt reports whether line l starts a block sequence's item at
// column col (from 0): "-" followed by a space or nothing.
func (t yamlText) entryAt(l, col int) bool {
	s := t.line(l)
	return t.indent(l) == col && strings.HasPrefix(s[col:], "-") && (len(s) == col+1 || s[col+1] == ' ')
}

// decodePieces decodes the text in pieces, or returns errWhole.
func decodePieces(ctx context.Context, t yamlText) (any, error) {
	first := 0
	for first < len(t.starts) && t.indent(first) < 0 {
		first++
	}
	if first == len(t.starts) || t.indent(first) != 0 {
		return nil, errWhole
	}
	if t.entryAt(first, 0) {
		return decodeSequence(ctx, t, first, len(t.starts), 0)
	}
	// A mapping: every line at column 0 starts an entry.
	var keys []int
	for l := first; l < len(t.starts); l++ {
		if t.indent(l) == 0 {
			keys = append(keys, l)
		}
	}
	out := map[string]any{}
	for i, l := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := len(t.starts)
		if i+1 < len(keys) {
			end = keys[i+1]
		}
		var head map[string]any
		if err := yaml.Unmarshal([]byte(t.span(l, l+1)), &head); err != nil || len(head) != 1 {
			return nil, errWhole
		}
		var key, value any
		for k, v := range head {
			key, value = k, v
		}
		body := l + 1
		for body < end && t.indent(body) < 0 {
			body++
		}
		switch {
		case value == nil && body < end && t.entryAt(body, t.indent(body)):
			// "key:" alone, then a block sequence.
			list, err := decodeSequence(ctx, t, body, end, t.indent(body))
			if err != nil {
				return nil, err
			}
			value = list
		case value == nil && body == end:
		default:
			var m map[string]any
			if err := yaml.Unmarshal([]byte(t.span(l, end)), &m); err != nil || len(m) != 1 {
				return nil, errWhole
			}
			for _, v := range m {
				value = v
			}
		}
		k := fmt.Sprint(key)
		if _, dup := out[k]; dup {
			return nil, errWhole
		}
		out[k] = value
	}
	return out, nil
}

// decodeSequence decodes the block sequence on lines [from, to) whose
// items start with "-" at column col, in pieces cut before items.
func decodeSequence(ctx context.Context, t yamlText, from, to, col int) ([]any, error) {
	// Every line at column col or left of it starts an item.
	var items []int
	for l := from; l < to; l++ {
		switch in := t.indent(l); {
		case in < 0, in > col:
		case t.entryAt(l, col):
			items = append(items, l)
		default:
			return nil, errWhole
		}
	}
	list := []any{}
	for i := 0; i < len(items); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := i + 1
		for j < len(items) && t.starts[items[j]]-t.starts[items[i]] < yamlPiece {
			j++
		}
		end := to
		if j < len(items) {
			end = items[j]
		}
		var piece []any
		if err := yaml.Unmarshal([]byte(t.span(items[i], end)), &piece); err != nil || len(piece) != j-i {
			return nil, errWhole
		}
		list = append(list, piece...)
		i = j
	}
	return list, nil
}
