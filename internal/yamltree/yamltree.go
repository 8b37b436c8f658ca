// Package yamltree reads a YAML document into a small tree of nodes that
// know where their text is: each node has its kind, its scalar text, and
// byte positions in the file, so that a caller checking the document
// against its own schema can point at the offending bytes.
//
// It reads what configuration and test files need and refuses the rest: one
// document, no aliases, tags or merge keys, and nesting no deeper than the
// caller allows. It never panics on input: a failure inside the YAML parser
// is an error like any other.
package yamltree

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
	yamltoken "github.com/goccy/go-yaml/token"

	"github.com/ctxql/ctxql/syntax"
)

// Kind is the shape of a node.
type Kind uint8

// The kinds of node.
const (
	Null Kind = iota
	String
	Number
	Bool
	Mapping
	List
)

var kindNames = [...]string{"null", "a string", "a number", "a boolean", "a mapping", "a list"}

// String names the kind for messages: "null", "a string", "a number",
// "a boolean", "a mapping" or "a list".
func (k Kind) String() string {
	if int(k) >= len(kindNames) {
		return fmt.Sprintf("kind %d", k)
	}
	return kindNames[k]
}

// Node is a YAML value.
type Node struct {
	Kind Kind
	// Text is a scalar's text: a string's value, a number as Go formats it
	// ("12", "0.5", "+Inf", "NaN"), a boolean's "true" or "false".
	Text string
	// Pos is the byte offset of the token the YAML parser starts the node
	// with: a scalar's first byte, a mapping's first key (or its colon,
	// for a pair the parser leaves outside a mapping), the dash or bracket
	// that opens a list. A value missing after its key has the key's.
	Pos int
	// Span is the bytes of the node's text, from its first token to the end
	// of its last one. A null without text after its key has the empty
	// span at the key's end.
	Span syntax.Span
	// Keys and Vals are a mapping's entries in source order.
	Keys, Vals []*Node
	// Items are a list's items.
	Items []*Node

	nonFinite bool
}

// Get returns the value of key k of a mapping, or nil.
func (n *Node) Get(k string) *Node {
	for i, key := range n.Keys {
		if key.Text == k {
			return n.Vals[i]
		}
	}
	return nil
}

// Finite reports whether the node is anything but an infinite or NaN
// number (.inf, -.inf, .nan).
func (n *Node) Finite() bool { return !n.nonFinite }

// Error is an error at a position of the file. The errors Parse makes have
// the empty span at the offending offset.
type Error struct {
	Span syntax.Span
	Msg  string
}

// Error returns the message, without the position.
func (e *Error) Error() string { return e.Msg }

// Options are a caller's limits and checks.
type Options struct {
	// MaxDepth bounds the nesting: a node deeper than that is the error
	// "nesting too deep".
	MaxDepth int
	// Scalar, when set, is called on each scalar (a null, string, number
	// or boolean) as it is read; an error it returns ends the parse.
	Scalar func(n *Node) error
	// Key, when set, is called on each mapping key after it is read and
	// before its value is, with the mapping's entries before it; an error
	// it returns ends the parse.
	Key func(m, k *Node) error
}

// Parse reads the file's one YAML document. A file without a document
// (empty, or only comments) gives a nil node. Its own errors are *Error;
// an error from opts.Scalar or opts.Key is returned as it is.
func Parse(file *syntax.File, opts Options) (*Node, error) {
	r := &reader{file: file, opts: opts}
	f, err := safeParse([]byte(file.Text()))
	if err != nil {
		type tokErr interface {
			GetToken() *yamltoken.Token
			GetMessage() string
		}
		var te tokErr
		if errors.As(err, &te) {
			off := r.offset(te.GetToken())
			return nil, &Error{syntax.Sp(off, off), "invalid YAML: " + te.GetMessage()}
		}
		return nil, &Error{syntax.Span{}, "invalid YAML: " + err.Error()}
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
			return nil, r.errAt(d.Body, "more than one YAML document")
		}
		body = d.Body
	}
	if body == nil {
		return nil, nil
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

// reader turns goccy's AST into nodes with byte positions.
type reader struct {
	file *syntax.File
	opts Options
}

// offset maps goccy's 1-based line and rune column to a byte offset (its own
// Offset field drifts after comments).
func (r *reader) offset(tk *yamltoken.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return r.file.OffsetRunes(tk.Position.Line, tk.Position.Column)
}

func (r *reader) errAt(n ast.Node, msg string) error {
	off := r.offset(n.GetToken())
	return &Error{syntax.Sp(off, off), msg}
}

// scalar places v, the scalar read from n (nil for a value with no text),
// and passes it to the Scalar check.
func (r *reader) scalar(n ast.Node, v *Node) (*Node, error) {
	if n != nil {
		v.Pos, v.Span = r.offset(n.GetToken()), r.span(n)
	}
	if r.opts.Scalar != nil {
		if err := r.opts.Scalar(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// number is the Number node of a float.
func number(x float64) *Node {
	return &Node{Kind: Number, Text: strconv.FormatFloat(x, 'g', -1, 64), nonFinite: math.IsInf(x, 0) || math.IsNaN(x)}
}

func (r *reader) conv(n ast.Node, depth int) (*Node, error) {
	if n == nil {
		return r.scalar(nil, &Node{Kind: Null})
	}
	if depth > r.opts.MaxDepth {
		return nil, r.errAt(n, "nesting too deep")
	}
	switch n := n.(type) {
	case *ast.CommentNode, *ast.CommentGroupNode:
		return r.scalar(nil, &Node{Kind: Null})
	case *ast.AnchorNode:
		return r.conv(n.Value, depth+1)
	case *ast.AliasNode:
		return nil, r.errAt(n, "YAML aliases are not supported")
	case *ast.TagNode:
		return nil, r.errAt(n, "YAML tags are not supported")
	case *ast.SequenceEntryNode:
		return r.conv(n.Value, depth+1)
	case *ast.MappingValueNode:
		v := &Node{Kind: Mapping, Pos: r.offset(n.GetToken())}
		if err := r.pair(v, n, depth); err != nil {
			return nil, err
		}
		v.Span = v.Keys[0].Span.Union(v.Vals[0].Span)
		return v, nil
	case *ast.MappingNode:
		v := &Node{Kind: Mapping, Pos: r.offset(n.GetToken())}
		for _, mv := range n.Values {
			if err := r.pair(v, mv, depth); err != nil {
				return nil, err
			}
		}
		if len(v.Keys) > 0 {
			v.Pos = v.Keys[0].Pos
		}
		v.Span = r.span(n)
		return v, nil
	case *ast.SequenceNode:
		v := &Node{Kind: List, Pos: r.offset(n.GetToken()), Span: r.span(n)}
		for _, e := range n.Values {
			if e == nil {
				continue
			}
			ev, err := r.conv(e, depth+1)
			if err != nil {
				return nil, err
			}
			v.Items = append(v.Items, ev)
		}
		return v, nil
	case *ast.StringNode:
		return r.scalar(n, &Node{Kind: String, Text: n.Value})
	case *ast.LiteralNode:
		return r.scalar(n, &Node{Kind: String, Text: n.Value.Value})
	case *ast.NullNode:
		return r.scalar(n, &Node{Kind: Null})
	case *ast.BoolNode:
		return r.scalar(n, &Node{Kind: Bool, Text: strconv.FormatBool(n.Value)})
	case *ast.IntegerNode:
		return r.scalar(n, &Node{Kind: Number, Text: fmt.Sprint(n.Value)})
	case *ast.FloatNode:
		return r.scalar(n, number(n.Value))
	case *ast.InfinityNode:
		return r.scalar(n, number(n.Value))
	case *ast.NanNode:
		return r.scalar(n, number(math.NaN()))
	}
	return nil, r.errAt(n, "unsupported YAML node")
}

func (r *reader) pair(v *Node, mv *ast.MappingValueNode, depth int) error {
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
	if r.opts.Key != nil {
		if err := r.opts.Key(v, k); err != nil {
			return err
		}
	}
	val, err := r.conv(mv.Value, depth+1)
	if err != nil {
		return err
	}
	if mv.Value == nil {
		val.Pos = k.Pos
	}
	if val.Kind == Null && val.Span.IsZero() {
		val.Span = syntax.Sp(k.Span.End, k.Span.End)
	}
	v.Keys = append(v.Keys, k)
	v.Vals = append(v.Vals, val)
	return nil
}

// span returns the bytes of a node's text: from its first token to the end
// of its last one.
func (r *reader) span(n ast.Node) syntax.Span {
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
func (r *reader) tokenLen(off int, tk *yamltoken.Token) int {
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
	return len(strings.TrimRight(src[off:end], " \t"))
}

// visitor adapts a function to ast.Visitor.
type visitor func(ast.Node)

func (v visitor) Visit(n ast.Node) ast.Visitor {
	v(n)
	return v
}
