package qtest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
	yamltoken "github.com/goccy/go-yaml/token"

	"github.com/ctxql/ctxql/syntax"
)

// nodeKind is the shape of a YAML node.
type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindString
	kindNumber
	kindBool
	kindMap
	kindList
)

func (k nodeKind) String() string {
	return [...]string{"null", "a string", "a number", "a boolean", "a mapping", "a list"}[k]
}

// node is a YAML value with the byte span of its text in the test file.
type node struct {
	kind  nodeKind
	sp    syntax.Span
	str   string // the scalar's value (strings, numbers as written, booleans)
	keys  []*node
	vals  []*node
	items []*node
}

// get returns the value of key k of a mapping, or nil.
func (n *node) get(k string) *node {
	for i, key := range n.keys {
		if key.str == k {
			return n.vals[i]
		}
	}
	return nil
}

// json returns the node as a JSON value (mappings keep their key order).
func (n *node) json() json.RawMessage {
	var b strings.Builder
	n.writeJSON(&b)
	return json.RawMessage(b.String())
}

func (n *node) writeJSON(b *strings.Builder) {
	switch n.kind {
	case kindNull:
		b.WriteString("null")
	case kindString:
		s, _ := json.Marshal(n.str)
		b.Write(s)
	case kindNumber, kindBool:
		b.WriteString(n.str)
	case kindMap:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			s, _ := json.Marshal(k.str)
			b.Write(s)
			b.WriteByte(':')
			n.vals[i].writeJSON(b)
		}
		b.WriteByte('}')
	case kindList:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.writeJSON(b)
		}
		b.WriteByte(']')
	}
}

// yamlReader turns goccy's AST into nodes with byte spans.
type yamlReader struct {
	file *syntax.File
}

// maxDepth bounds the nesting of a test file.
const maxDepth = 64

// offset maps goccy's 1-based line and rune column to a byte offset (its own
// Offset field drifts after comments).
func (r *yamlReader) offset(tk *yamltoken.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return r.file.OffsetRunes(tk.Position.Line, tk.Position.Column)
}

// parseYAML parses a test file into one node; a file without a document is
// an empty mapping.
func parseYAML(file *syntax.File) (root *node, err error) {
	r := &yamlReader{file: file}
	f, err := safeParse([]byte(file.Text()))
	if err != nil {
		type tokErr interface {
			GetToken() *yamltoken.Token
			GetMessage() string
		}
		if te, ok := err.(tokErr); ok {
			off := r.offset(te.GetToken())
			return nil, &posError{syntax.Sp(off, off), "invalid YAML: " + te.GetMessage()}
		}
		return nil, &posError{syntax.Span{}, "invalid YAML: " + err.Error()}
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		if body != nil {
			off := r.offset(d.Body.GetToken())
			return nil, &posError{syntax.Sp(off, off), "more than one YAML document"}
		}
		body = d.Body
	}
	if body == nil {
		return &node{kind: kindMap}, nil
	}
	return r.conv(body, 0)
}

// safeParse runs the YAML parser, turning a panic inside it into an error
// so that no input crashes the caller.
func safeParse(data []byte) (f *ast.File, err error) {
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, fmt.Errorf("yaml parser failure: %v", v)
		}
	}()
	return yamlparser.ParseBytes(data, 0)
}

// posError is an error at a span of the test file.
type posError struct {
	sp  syntax.Span
	msg string
}

func (e *posError) Error() string { return e.msg }

func (r *yamlReader) errAt(n ast.Node, format string, args ...any) error {
	off := r.offset(n.GetToken())
	return &posError{syntax.Sp(off, off), fmt.Sprintf(format, args...)}
}

func (r *yamlReader) conv(n ast.Node, depth int) (*node, error) {
	if n == nil {
		return &node{kind: kindNull}, nil
	}
	if depth > maxDepth {
		return nil, r.errAt(n, "nesting too deep")
	}
	switch n := n.(type) {
	case *ast.CommentNode, *ast.CommentGroupNode:
		return &node{kind: kindNull}, nil
	case *ast.AnchorNode:
		return r.conv(n.Value, depth+1)
	case *ast.AliasNode:
		return nil, r.errAt(n, "YAML aliases are not supported")
	case *ast.TagNode:
		return nil, r.errAt(n, "YAML tags are not supported")
	case *ast.SequenceEntryNode:
		return r.conv(n.Value, depth+1)
	case *ast.MappingValueNode:
		v := &node{kind: kindMap}
		if err := r.pair(v, n, depth); err != nil {
			return nil, err
		}
		v.sp = v.keys[0].sp.Union(v.vals[0].sp)
		return v, nil
	case *ast.MappingNode:
		v := &node{kind: kindMap}
		for _, mv := range n.Values {
			if err := r.pair(v, mv, depth); err != nil {
				return nil, err
			}
		}
		v.sp = r.span(n)
		return v, nil
	case *ast.SequenceNode:
		v := &node{kind: kindList, sp: r.span(n)}
		for _, e := range n.Values {
			if e == nil {
				continue
			}
			ev, err := r.conv(e, depth+1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, ev)
		}
		return v, nil
	case *ast.StringNode:
		return &node{kind: kindString, str: n.Value, sp: r.span(n)}, nil
	case *ast.LiteralNode:
		return &node{kind: kindString, str: n.Value.Value, sp: r.span(n)}, nil
	case *ast.NullNode:
		return &node{kind: kindNull, sp: r.span(n)}, nil
	case *ast.BoolNode:
		return &node{kind: kindBool, str: strconv.FormatBool(n.Value), sp: r.span(n)}, nil
	case *ast.IntegerNode:
		return &node{kind: kindNumber, str: fmt.Sprint(n.Value), sp: r.span(n)}, nil
	case *ast.FloatNode:
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			return nil, r.errAt(n, "a number must be finite")
		}
		return &node{kind: kindNumber, str: strconv.FormatFloat(n.Value, 'g', -1, 64), sp: r.span(n)}, nil
	case *ast.InfinityNode, *ast.NanNode:
		return nil, r.errAt(n, "a number must be finite")
	}
	return nil, r.errAt(n, "unsupported YAML node")
}

func (r *yamlReader) pair(v *node, mv *ast.MappingValueNode, depth int) error {
	if mv.Key == nil {
		return r.errAt(mv, "mapping entry without a key")
	}
	if mv.Key.IsMergeKey() {
		return r.errAt(mv.Key, "YAML merge keys are not supported")
	}
	k, err := r.conv(mv.Key, depth+1)
	if err != nil {
		return err
	}
	if k.kind != kindString {
		return &posError{k.sp, fmt.Sprintf("keys must be strings, got %s", k.kind)}
	}
	for _, old := range v.keys {
		if old.str == k.str {
			return &posError{k.sp, fmt.Sprintf("duplicate key %q", k.str)}
		}
	}
	val, err := r.conv(mv.Value, depth+1)
	if err != nil {
		return err
	}
	if val.kind == kindNull && val.sp.IsZero() {
		val.sp = syntax.Sp(k.sp.End, k.sp.End)
	}
	v.keys = append(v.keys, k)
	v.vals = append(v.vals, val)
	return nil
}

// span returns the bytes of a node's text: from its first token to the end
// of its last one.
func (r *yamlReader) span(n ast.Node) syntax.Span {
	first, last := -1, -1
	var lastTok *yamltoken.Token
	see := func(tk *yamltoken.Token) {
		if tk == nil || tk.Position == nil {
			return
		}
		off := r.offset(tk)
		if first < 0 || off < first {
			first = off
		}
		if off >= last {
			last, lastTok = off, tk
		}
	}
	ast.Walk(visitor(func(c ast.Node) {
		switch c := c.(type) {
		case *ast.CommentNode, *ast.CommentGroupNode:
			return
		case *ast.MappingNode:
			if c.IsFlowStyle {
				see(c.End)
			}
		case *ast.SequenceNode:
			if c.IsFlowStyle {
				see(c.End)
			}
		}
		see(c.GetToken())
	}), n)
	if first < 0 {
		return syntax.Span{}
	}
	return syntax.Sp(first, last+r.tokenLen(last, lastTok))
}

// tokenLen returns the length in bytes of the token starting at off: a
// quoted scalar to its closing quote, a plain scalar to the end of its line
// or a comment.
func (r *yamlReader) tokenLen(off int, tk *yamltoken.Token) int {
	src := r.file.Text()
	if off >= len(src) {
		return 0
	}
	switch c := src[off]; c {
	case '"':
		for i := off + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return i + 1 - off
			}
		}
		return len(src) - off
	case '\'':
		for i := off + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return i + 1 - off
			}
		}
		return len(src) - off
	case '[', ']', '{', '}', '-', ':', ',':
		if tk != nil && len(tk.Value) > 1 {
			break
		}
		return 1
	case '|', '>':
		// A block scalar runs to the end of its last indented line.
		end := off
		for line := r.file.LineOf(off) + 1; line < r.file.LineCount(); line++ {
			text := r.file.Line(line)
			if strings.TrimSpace(text) != "" && !strings.HasPrefix(text, " ") {
				break
			}
			if strings.TrimSpace(text) != "" {
				end = r.file.LineEnd(line)
			}
		}
		if end == off {
			end = r.file.LineEnd(r.file.LineOf(off))
		}
		return end - off
	}
	end := off
	flow := tk != nil && tk.Value != "" && strings.HasPrefix(src[off:], tk.Value)
	if flow {
		return len(tk.Value)
	}
	for end < len(src) && src[end] != '\n' && src[end] != '\r' {
		if src[end] == '#' && end > off && (src[end-1] == ' ' || src[end-1] == '\t') {
			break
		}
		end++
	}
	return len(strings.TrimRight(src[off:end], " \t")) - 0
}

// visitor adapts a function to ast.Visitor.
type visitor func(ast.Node)

func (v visitor) Visit(n ast.Node) ast.Visitor {
	v(n)
	return v
}
