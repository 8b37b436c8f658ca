package format

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

// jqlKeyOrder is the canonical order of a query's keys: the order of the
// query structure in the specification.
var jqlKeyOrder = [...]string{"from", "select", "where", "order", "limit", "startAfter"}

func jqlKeyRank(k string) int {
	for i, s := range jqlKeyOrder {
		if s == k {
			return i
		}
	}
	return len(jqlKeyOrder)
}

// JQL formats a JQL query file; name decides between the JSON family
// (.jql, .jql.json) and YAML (.jql.yaml, .jql.yml), exactly as the parser
// does. Each query keeps its text form: a strict JSON query stays strict
// JSON, an object-literal query stays an object literal, YAML stays YAML.
//
// A query is printed with its keys in the order of the specification's
// query structure (from, select, where, order, limit, startAfter), one key
// per line with two-space indentation; the where clause has one condition
// per line (in the order written, since conditions are ANDed); select
// lists, operator objects and "in" arrays are printed inline. Strings are
// double-quoted (JSON escapes); object-literal keys are bare when they are
// identifiers, YAML keys and strings are plain when they are identifiers
// (dots and dashes allowed) that YAML reads as strings. Numbers keep their
// spelling. Comments stay with the key they precede or end the line of;
// a comment inside a value printed inline moves before its key. A blank
// line before a key or a query is kept (runs collapse to one), and the
// output ends in exactly one newline.
func JQL(name string, src []byte) ([]byte, error) {
	text := string(src)
	f := jql.ParseFile(name, text)
	if syntax.HasErrors(f.Diagnostics) {
		return nil, &SyntaxError{Diagnostics: f.Diagnostics}
	}
	yaml := jql.IsYAMLName(name) || len(f.Queries) > 0 && f.Queries[0].Form == jql.FormYAML
	p := &jqlPrinter{src: text, file: syntax.NewFile(name, text), yaml: yaml}
	if yaml {
		p.comments = yamlComments(text, f)
	} else {
		p.comments = objectComments(text)
	}
	out := p.print(f)
	if out == text {
		return src, nil // already canonical: nothing to check
	}
	// A printer bug must never reach a user's file: the output has to
	// parse to the same queries with the same comments.
	g := jql.ParseFile(name, out)
	if syntax.HasErrors(g.Diagnostics) || jqlKey(g, out, yaml) != jqlKey(f, text, yaml) {
		return nil, fmt.Errorf("jql: internal error: the formatted queries differ from the input")
	}
	return []byte(out), nil
}

type jqlPrinter struct {
	src      string
	file     *syntax.File
	yaml     bool
	comments []syntax.Span
	lines    []string
}

// container is an object whose members are printed one per line.
type container struct {
	head     []syntax.Span // comments before the first member
	end      []syntax.Span // comments after the last member
	leading  map[*jql.Member][]syntax.Span
	trailing map[*jql.Member][]syntax.Span
}

func (p *jqlPrinter) emit(s string) { p.lines = append(p.lines, s) }

func (p *jqlPrinter) comment(c syntax.Span) string {
	return strings.TrimRight(p.src[c.Start:c.End], " \t\r\n")
}

// blankAbove reports whether off is the first non-blank byte of its source
// line and the line above it is blank.
func (p *jqlPrinter) blankAbove(off int) bool {
	l := p.file.LineOf(off)
	if strings.TrimSpace(p.src[p.file.LineStart(l):off]) != "" {
		return false
	}
	return l > 0 && strings.TrimSpace(p.file.Line(l-1)) == ""
}

func (p *jqlPrinter) blank(off int) {
	if len(p.lines) > 0 && p.lines[len(p.lines)-1] != "" && p.blankAbove(off) {
		p.emit("")
	}
}

func (p *jqlPrinter) print(f *jql.File) string {
	ci := 0
	for qi, q := range f.Queries {
		var inner []syntax.Span
		for ci < len(p.comments) && p.comments[ci].Start < q.Sp.Start {
			c := p.comments[ci]
			ci++
			p.blank(c.Start)
			p.emit(p.comment(c))
		}
		for ci < len(p.comments) && p.comments[ci].Start < q.Sp.End {
			inner = append(inner, p.comments[ci])
			ci++
		}
		if p.yaml && qi > 0 {
			p.emit("---")
		} else {
			p.blank(q.Sp.Start)
		}
		endLine := len(p.lines)
		p.query(q, inner)
		// A comment on the line that closes the query ends that line.
		var tail []string
		for !p.yaml && ci < len(p.comments) && p.file.LineOf(p.comments[ci].Start) == p.file.LineOf(q.Sp.End-1) {
			tail = append(tail, p.comment(p.comments[ci]))
			ci++
		}
		if len(tail) > 0 && len(p.lines) > endLine {
			p.lines[len(p.lines)-1] += " " + strings.Join(tail, " ")
		}
	}
	for ; ci < len(p.comments); ci++ {
		c := p.comments[ci]
		p.blank(c.Start)
		p.emit(p.comment(c))
	}
	for len(p.lines) > 0 && p.lines[len(p.lines)-1] == "" {
		p.lines = p.lines[:len(p.lines)-1]
	}
	if len(p.lines) == 0 {
		return ""
	}
	return strings.Join(p.lines, "\n") + "\n"
}

// memberEnd is the end of a member's text.
func memberEnd(m *jql.Member) int {
	if m.Value != nil && m.Value.Sp.End > m.Key.Sp.End {
		return m.Value.Sp.End
	}
	return m.Key.Sp.End
}

// assign distributes comments over the members of an object. skip, when
// set, is a member whose value is printed as a container of its own: the
// comments inside it are returned separately.
func (p *jqlPrinter) assign(members []*jql.Member, comments []syntax.Span, skip *jql.Member) (*container, []syntax.Span) {
	c := &container{leading: map[*jql.Member][]syntax.Span{}, trailing: map[*jql.Member][]syntax.Span{}}
	var nested []syntax.Span
	ms := append([]*jql.Member(nil), members...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Key.Sp.Start < ms[j].Key.Sp.Start })
outer:
	for _, cm := range comments {
		if len(ms) == 0 || cm.Start < ms[0].Key.Sp.Start {
			c.head = append(c.head, cm)
			continue
		}
		for i, m := range ms {
			sameLine := cm.Start >= memberEnd(m) && p.file.LineOf(cm.Start) == p.file.LineOf(memberEnd(m)-1)
			if m == skip && sameLine && p.yaml {
				nested = append(nested, cm)
				continue outer
			}
			if cm.Start >= m.Key.Sp.Start && cm.Start < memberEnd(m) {
				if m == skip && m.Value != nil && cm.Start > m.Key.Sp.End {
					nested = append(nested, cm)
				} else {
					c.leading[m] = append(c.leading[m], cm)
				}
				continue outer
			}
			if sameLine && (i+1 == len(ms) || cm.Start < ms[i+1].Key.Sp.Start) {
				c.trailing[m] = append(c.trailing[m], cm)
				continue outer
			}
			if i+1 < len(ms) && cm.Start < ms[i+1].Key.Sp.Start {
				c.leading[ms[i+1]] = append(c.leading[ms[i+1]], cm)
				continue outer
			}
		}
		c.end = append(c.end, cm)
	}
	return c, nested
}

func (p *jqlPrinter) query(q *jql.Query, comments []syntax.Span) {
	members := append([]*jql.Member(nil), q.Root.Members...)
	sort.SliceStable(members, func(i, j int) bool { return jqlKeyRank(members[i].Key.Str) < jqlKeyRank(members[j].Key.Str) })
	var where *jql.Member
	for _, m := range members {
		if m.Key.Str == "where" && m.Value != nil && m.Value.Kind == jql.KindObject && len(m.Value.Members) > 0 {
			where = m
		}
	}
	form := q.Form
	c, nested := p.assign(members, comments, where)
	indent := "  "
	if p.yaml {
		indent = ""
	}
	open := "{"
	var head []syntax.Span
	for _, cm := range c.head {
		if !p.yaml && p.file.LineOf(cm.Start) == p.file.LineOf(q.Sp.Start) {
			open += " " + p.comment(cm)
		} else {
			head = append(head, cm)
		}
	}
	if !p.yaml {
		p.emit(open)
	}
	for _, cm := range head {
		p.emit(indent + p.comment(cm))
	}
	for i, m := range members {
		first := i == 0 && len(head) == 0
		sep := ","
		if p.yaml || i == len(members)-1 {
			sep = ""
		}
		p.member(m, form, indent, sep, first, c, m == where, nested)
	}
	for _, cm := range c.end {
		p.emit(indent + p.comment(cm))
	}
	if !p.yaml {
		p.emit("}")
	}
}

// member prints one member: its leading comments, the key and value
// (expanded when the value is a where clause), and its trailing comments.
func (p *jqlPrinter) member(m *jql.Member, form jql.Form, indent, sep string, first bool, c *container, expand bool, nested []syntax.Span) {
	lead := c.leading[m]
	start := m.Key.Sp.Start
	if len(lead) > 0 {
		start = lead[0].Start
	}
	if !first {
		p.blank(start)
	}
	keyLine := p.file.LineOf(m.Key.Sp.Start)
	var onKey string // comments that end the key line of an expanded value
	for _, cm := range lead {
		if expand && cm.Start > m.Key.Sp.Start && p.file.LineOf(cm.Start) == keyLine {
			onKey += " " + p.comment(cm)
			continue
		}
		p.emit(indent + p.comment(cm))
	}
	key := p.key(m.Key.Str, form)
	var trail string
	for _, cm := range c.trailing[m] {
		trail += " " + p.comment(cm)
	}
	if !expand {
		p.emit(indent + key + ": " + p.value(m.Value, form) + sep + trail)
		return
	}
	inner := indent + "  "
	wc, _ := p.assign(m.Value.Members, nested, nil)
	var head []syntax.Span
	for _, cm := range wc.head {
		if p.file.LineOf(cm.Start) == keyLine {
			onKey += " " + p.comment(cm)
		} else {
			head = append(head, cm)
		}
	}
	if p.yaml {
		p.emit(indent + key + ":" + onKey)
	} else {
		p.emit(indent + key + ": {" + onKey)
	}
	for _, cm := range head {
		p.emit(inner + p.comment(cm))
	}
	for i, wm := range m.Value.Members {
		wsep := ","
		if p.yaml || i == len(m.Value.Members)-1 {
			wsep = ""
		}
		p.member(wm, form, inner, wsep, i == 0 && len(head) == 0, wc, false, nil)
	}
	for _, cm := range wc.end {
		p.emit(inner + p.comment(cm))
	}
	if !p.yaml {
		p.emit(indent + "}" + sep + trail)
	} else if trail != "" {
		// A YAML mapping key line takes the comment that followed the
		// block.
		p.emit(indent + strings.TrimSpace(trail))
	}
}

func (p *jqlPrinter) key(k string, form jql.Form) string {
	switch form {
	case jql.FormObjectLiteral:
		if isJSIdent(k) {
			return k
		}
	case jql.FormYAML:
		if yamlPlain(k) {
			return k
		}
	}
	return jsonQuote(k)
}

// value prints a value inline.
func (p *jqlPrinter) value(v *jql.Value, form jql.Form) string {
	if v == nil {
		return "null"
	}
	switch v.Kind {
	case jql.KindString:
		if form == jql.FormYAML && yamlPlain(v.Str) {
			return v.Str
		}
		return jsonQuote(v.Str)
	case jql.KindNumber:
		return v.Str
	case jql.KindBool:
		return strconv.FormatBool(v.Bool)
	case jql.KindNull:
		return "null"
	case jql.KindArray:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = p.value(e, form)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case jql.KindObject:
		if len(v.Members) == 0 {
			return "{}"
		}
		parts := make([]string, len(v.Members))
		for i, m := range v.Members {
			parts[i] = p.key(m.Key.Str, form) + ": " + p.value(m.Value, form)
		}
		if form == jql.FormJSON {
			return "{" + strings.Join(parts, ", ") + "}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return "null"
}

// isJSIdent reports whether s can be an unquoted object-literal key.
func isJSIdent(s string) bool {
	if s == "" || s == "true" || s == "false" || s == "null" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// yamlPlain reports whether s can be written as a plain YAML scalar that
// reads back as the same string: an identifier, dots and dashes allowed
// after the first character, that is not a YAML boolean or null word.
func yamlPlain(s string) bool {
	if s == "" {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'))
		if !ok {
			return false
		}
	}
	return true
}

// jsonQuote quotes s as a JSON string, which is also a YAML double-quoted
// scalar and an object-literal string: quotes, backslashes, control
// characters and the characters YAML does not allow raw are escaped.
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteByte(s[i])
			i++
			continue
		}
		i += n
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// objectComments finds the "//" and "/* */" comments of JSON or
// object-literal text, skipping strings.
func objectComments(src string) []syntax.Span {
	var out []syntax.Span
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = min(j+1, len(src))
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			out = append(out, syntax.Sp(i, i+j))
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			end := len(src)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			out = append(out, syntax.Sp(i, end))
			i = end
		default:
			i++
		}
	}
	return out
}

// yamlComments finds the "#" comments of YAML text: a '#' at the start of
// a line or after a space, outside every scalar of the parsed queries.
func yamlComments(src string, f *jql.File) []syntax.Span {
	var scalars []syntax.Span
	var walk func(v *jql.Value)
	walk = func(v *jql.Value) {
		if v == nil {
			return
		}
		switch v.Kind {
		case jql.KindObject:
			for _, m := range v.Members {
				scalars = append(scalars, m.Key.Sp)
				walk(m.Value)
			}
		case jql.KindArray:
			for _, e := range v.Elems {
				walk(e)
			}
		default:
			scalars = append(scalars, v.Sp)
		}
	}
	for _, q := range f.Queries {
		walk(q.Root)
	}
	inScalar := func(off int) bool {
		for _, s := range scalars {
			if off >= s.Start && off < s.End {
				return true
			}
		}
		return false
	}
	var out []syntax.Span
	for i := 0; i < len(src); i++ {
		if src[i] != '#' || (i > 0 && src[i-1] != ' ' && src[i-1] != '\t' && src[i-1] != '\n') || inScalar(i) {
			continue
		}
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			j = len(src) - i
		}
		out = append(out, syntax.Sp(i, i+j))
		i += j
	}
	return out
}

// jqlKey renders a file's queries without spans, the top-level keys in
// canonical order, and its comments sorted: two files with equal keys
// hold the same queries in the same forms with the same comments.
func jqlKey(f *jql.File, src string, yaml bool) string {
	var b strings.Builder
	var val func(v *jql.Value, top bool)
	val = func(v *jql.Value, top bool) {
		if v == nil {
			b.WriteString("nil ")
			return
		}
		switch v.Kind {
		case jql.KindString:
			fmt.Fprintf(&b, "s%q ", v.Str)
		case jql.KindNumber:
			if math.IsNaN(v.Num) {
				b.WriteString("NaN ")
			} else {
				fmt.Fprintf(&b, "n%v ", v.Num)
			}
		case jql.KindBool:
			fmt.Fprintf(&b, "b%v ", v.Bool)
		case jql.KindNull:
			b.WriteString("null ")
		case jql.KindArray:
			b.WriteString("[ ")
			for _, e := range v.Elems {
				val(e, false)
			}
			b.WriteString("] ")
		case jql.KindObject:
			ms := append([]*jql.Member(nil), v.Members...)
			if top {
				sort.SliceStable(ms, func(i, j int) bool { return jqlKeyRank(ms[i].Key.Str) < jqlKeyRank(ms[j].Key.Str) })
			}
			b.WriteString("{ ")
			for _, m := range ms {
				fmt.Fprintf(&b, "%q: ", m.Key.Str)
				val(m.Value, false)
			}
			b.WriteString("} ")
		default:
			b.WriteString("invalid ")
		}
	}
	for _, q := range f.Queries {
		fmt.Fprintf(&b, "query %s ", q.Form)
		val(q.Root, true)
		b.WriteString("\n")
	}
	var cs []syntax.Span
	if yaml {
		cs = yamlComments(src, f)
	} else {
		cs = objectComments(src)
	}
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = strings.TrimRight(src[c.Start:c.End], " \t\r\n")
	}
	sort.Strings(texts)
	for _, t := range texts {
		fmt.Fprintf(&b, "comment %q\n", t)
	}
	return b.String()
}
