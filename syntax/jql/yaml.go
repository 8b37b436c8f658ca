package jql

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	yamllexer "github.com/goccy/go-yaml/lexer"
	yamlparser "github.com/goccy/go-yaml/parser"
	yamltoken "github.com/goccy/go-yaml/token"

	"github.com/ctxql/ctxql/syntax"
)

// yamlConv converts a goccy/go-yaml AST into Values. goccy's Offset drifts
// after comments, so byte offsets are recomputed from line and column (which
// count runes) against the source text.
type yamlConv struct {
	src   string
	file  *syntax.File // positions
	diags []syntax.Diagnostic
	depth int
	// The last position converted, so that a long line is walked once
	// rather than from its start for every token on it.
	lastLine, lastCol, lastOff int
}

func newYAMLConv(src string) *yamlConv {
	return &yamlConv{src: src, file: syntax.NewFile("", src)}
}

// offset maps a 1-based line and rune column to a byte offset.
func (c *yamlConv) offset(tk *yamltoken.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	line, col := tk.Position.Line, tk.Position.Column
	if line != c.lastLine || col < c.lastCol || c.lastLine < 1 {
		c.lastLine, c.lastCol, c.lastOff = line, 1, c.file.OffsetRunes(line, 1)
	}
	off := c.lastOff
	for i := c.lastCol; i < col && off < len(c.src) && c.src[off] != '\n'; i++ {
		_, n := utf8.DecodeRuneInString(c.src[off:])
		off += n
	}
	c.lastCol, c.lastOff = col, off
	return off
}

// scalarSpan finds the source extent of a scalar token starting at off.
func (c *yamlConv) scalarSpan(off int, tk *yamltoken.Token) (syntax.Span, int, bool) {
	if off >= len(c.src) {
		return syntax.Sp(len(c.src), len(c.src)), len(c.src), false
	}
	q := c.src[off]
	if q == '"' || q == '\'' {
		i := off + 1
		for i < len(c.src) {
			if q == '"' && c.src[i] == '\\' {
				i += 2
				continue
			}
			if c.src[i] == q {
				if q == '\'' && i+1 < len(c.src) && c.src[i+1] == '\'' {
					i += 2
					continue
				}
				i++
				return syntax.Sp(off, min(i, len(c.src))), off + 1, c.src[off+1:i-1] == tk.Value
			}
			i++
		}
		return syntax.Sp(off, len(c.src)), off + 1, false
	}
	if strings.HasPrefix(c.src[off:], tk.Value) {
		return syntax.Sp(off, off+len(tk.Value)), off, true
	}
	end := off
	for end < len(c.src) && c.src[end] != '\n' {
		end++
	}
	return syntax.Sp(off, end), off, false
}

func (c *yamlConv) conv(n ast.Node) *Value {
	c.depth++
	defer func() { c.depth-- }()
	if n == nil {
		return &Value{Kind: KindNull}
	}
	if c.depth > maxDepth {
		off := c.offset(n.GetToken())
		c.diags = append(c.diags, diag(syntax.Sp(off, off), CodeSyntax, "nesting too deep"))
		return &Value{Kind: KindInvalid, Sp: syntax.Sp(off, off)}
	}
	switch n := n.(type) {
	case *ast.DocumentNode:
		return c.conv(n.Body)
	case *ast.TagNode:
		return c.conv(n.Value)
	case *ast.AnchorNode:
		return c.conv(n.Value)
	case *ast.CommentGroupNode:
		return &Value{Kind: KindNull}
	case *ast.MappingNode:
		v := &Value{Kind: KindObject}
		first := true
		for _, mv := range n.Values {
			m := c.member(mv)
			if m == nil {
				continue
			}
			v.Members = append(v.Members, m)
			if first {
				v.Sp = m.Key.Sp
				first = false
			}
			v.Sp = v.Sp.Union(m.Key.Sp)
			if m.Value != nil && m.Value.Kind != KindNull || m.Value.Sp.End > 0 {
				v.Sp = v.Sp.Union(m.Value.Sp)
			}
		}
		if n.IsFlowStyle && n.Start != nil {
			s := c.offset(n.Start)
			v.Sp = v.Sp.Union(syntax.Sp(s, s+1))
			if n.End != nil {
				e := c.offset(n.End)
				v.Sp = v.Sp.Union(syntax.Sp(e, e+1))
			}
		}
		return v
	case *ast.MappingValueNode:
		v := &Value{Kind: KindObject}
		if m := c.member(n); m != nil {
			v.Members = append(v.Members, m)
			v.Sp = m.Key.Sp.Union(m.Value.Sp)
		}
		return v
	case *ast.SequenceNode:
		v := &Value{Kind: KindArray}
		s := c.offset(n.GetToken())
		v.Sp = syntax.Sp(s, s+1)
		for _, e := range n.Values {
			ev := c.conv(e)
			v.Elems = append(v.Elems, ev)
			v.Sp = v.Sp.Union(ev.Sp)
		}
		if n.IsFlowStyle && n.End != nil {
			e := c.offset(n.End)
			v.Sp = v.Sp.Union(syntax.Sp(e, e+1))
		}
		return v
	case *ast.LiteralNode:
		off := c.offset(n.GetToken())
		v := newString(n.Value.Value, syntax.Sp(off, off), off, nil)
		end := off
		if n.Value != nil {
			e := c.offset(n.Value.GetToken())
			end = min(e+len(n.Value.GetToken().Origin), len(c.src))
		}
		v.Sp = syntax.Sp(off, max(end, off))
		v.offs = []int{} // no byte-exact mapping for block scalars
		return v
	}
	tk := n.GetToken()
	off := c.offset(tk)
	span, base, exact := c.scalarSpan(off, tk)
	switch n := n.(type) {
	case *ast.StringNode:
		v := newString(n.Value, span, base, nil)
		if !exact {
			v.offs = []int{}
		}
		return v
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		f, err := strconv.ParseFloat(strings.ReplaceAll(tk.Value, "_", ""), 64)
		if err != nil {
			return newString(tk.Value, span, base, []int{})
		}
		return &Value{Kind: KindNumber, Sp: span, Str: tk.Value, Num: f}
	case *ast.BoolNode:
		return &Value{Kind: KindBool, Sp: span, Bool: n.Value, Str: tk.Value}
	case *ast.NullNode:
		return &Value{Kind: KindNull, Sp: span, Str: tk.Value}
	}
	c.diags = append(c.diags, diag(span, CodeSyntax, "unsupported YAML construct"))
	return &Value{Kind: KindInvalid, Sp: span}
}

func (c *yamlConv) member(mv *ast.MappingValueNode) *Member {
	if mv == nil || mv.Key == nil {
		return nil
	}
	kv := c.conv(mv.Key)
	if kv.Kind != KindString {
		s := kv.Str
		kv = newString(s, kv.Sp, kv.Sp.Start, []int{})
		if len(s) == kv.Sp.Len() {
			kv.offs = nil
		}
	}
	m := &Member{Key: kv}
	m.Value = c.conv(mv.Value)
	if m.Value.Kind == KindNull && m.Value.Sp.IsZero() {
		m.Value.Sp = syntax.Sp(kv.Sp.End, kv.Sp.End)
	}
	return m
}

// parseYAMLDocs splits src into YAML documents at "---" lines and parses each
// on its own, so an error in one document does not hide the others.
func parseYAMLDocs(src string) []parsedDoc {
	var out []parsedDoc
	start := 0
	lineStart := 0
	flush := func(end int) {
		part := src[start:end]
		if strings.TrimSpace(stripYAMLComments(part)) != "" {
			out = append(out, parseYAMLDoc(src, start, end))
		}
	}
	for i := 0; i <= len(src); i++ {
		if i == len(src) || src[i] == '\n' {
			line := strings.TrimRight(src[lineStart:i], "\r \t")
			if line == "---" || line == "..." {
				flush(lineStart)
				start = min(i+1, len(src))
			}
			lineStart = i + 1
		}
	}
	flush(len(src))
	return out
}

func stripYAMLComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// parseYAMLDoc parses src[start:end] as one YAML document; spans are
// relative to the whole src. Lines before start are blanked so that line
// numbers stay valid.
func parseYAMLDoc(src string, start, end int) parsedDoc {
	var pad strings.Builder
	for i := 0; i < start; i++ {
		if src[i] == '\n' {
			pad.WriteByte('\n')
		} else {
			pad.WriteByte(' ')
		}
	}
	// Pad with spaces (not removed), so columns on the first line agree.
	text := pad.String() + src[start:end]
	c := newYAMLConv(src[:end])
	span := syntax.Sp(start, end)
	tokens := yamllexer.Tokenize(text)
	if tk := tooDeep(tokens); tk != nil {
		off := min(max(c.offset(tk), start), end)
		d := diag(syntax.Sp(off, min(off+1, end)), CodeSyntax, sprintf("nesting too deep (more than %d levels)", maxDepth))
		return parsedDoc{val: &Value{Kind: KindInvalid, Sp: span}, diags: []syntax.Diagnostic{d}, span: span}
	}
	f, err := yamlparser.Parse(tokens, 0)
	if err != nil {
		off := start
		msg := err.Error()
		type tokErr interface {
			GetToken() *yamltoken.Token
			GetMessage() string
		}
		if te, ok := err.(tokErr); ok {
			if tk := te.GetToken(); tk != nil {
				off = min(max(c.offset(tk), start), end)
			}
			msg = te.GetMessage()
		}
		d := diag(syntax.Sp(off, min(off+1, end)), CodeSyntax, "invalid YAML: "+msg)
		return parsedDoc{val: &Value{Kind: KindInvalid, Sp: span}, diags: []syntax.Diagnostic{d}, span: span}
	}
	var v *Value
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		v = c.conv(d.Body)
		break
	}
	if v == nil {
		v = &Value{Kind: KindNull, Sp: span}
	}
	clampSpans(v, start, end)
	return parsedDoc{val: v, diags: c.diags, span: span}
}

// tooDeep returns the first token at which the document may nest deeper
// than maxDepth, or nil. The YAML parser's cost grows with the square of the
// nesting, so the depth is bounded on the tokens, in one pass, before it
// runs. The estimate never undercounts: flow brackets open, every block
// sequence entry or explicit key on a line opens one more level (a compact
// "- - - x" nests without indentation), and a line's indentation bounds its
// block nesting.
func tooDeep(tokens yamltoken.Tokens) *yamltoken.Token {
	flow, line, entries, indent := 0, -1, 0, 0
	for _, tk := range tokens {
		if tk == nil || tk.Position == nil {
			continue
		}
		if tk.Position.Line != line {
			line, entries, indent = tk.Position.Line, 0, 0
			if flow == 0 {
				indent = max(tk.Position.Column-1, 0)
			}
		}
		switch tk.Type {
		case yamltoken.MappingStartType, yamltoken.SequenceStartType:
			flow++
		case yamltoken.MappingEndType, yamltoken.SequenceEndType:
			flow = max(flow-1, 0)
		case yamltoken.SequenceEntryType, yamltoken.MappingKeyType:
			if flow == 0 {
				entries++
			}
		}
		if flow+entries+indent > maxDepth {
			return tk
		}
	}
	return nil
}

// clampSpans keeps every span inside [lo, hi], whatever the YAML positions said.
func clampSpans(v *Value, lo, hi int) {
	if v == nil {
		return
	}
	cl := func(s syntax.Span) syntax.Span {
		s.Start = min(max(s.Start, lo), hi)
		s.End = min(max(s.End, s.Start), hi)
		return s
	}
	v.Sp = cl(v.Sp)
	if v.Kind == KindString && v.offs == nil {
		if v.base < lo || v.base+len(v.Str) > hi {
			v.offs = []int{}
		}
	}
	for _, m := range v.Members {
		clampSpans(m.Key, lo, hi)
		clampSpans(m.Value, lo, hi)
	}
	for _, e := range v.Elems {
		clampSpans(e, lo, hi)
	}
}
