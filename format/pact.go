package format

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// PACT formats a .pact file: one canonical query per line, comments kept
// (a trailing comment one space after its query), runs of blank lines
// collapsed to one, no leading or trailing blank lines (except one before a
// comment that would otherwise become the first-line dialect pragma), one
// final newline. A file with syntax errors is not formatted: the error is a
// *SyntaxError holding the file's diagnostics.
//
// Every query gets canonical spacing: one space for the descendant
// combinator, " > ", ", " in unions, positions, coordinate sets and value
// lists, " ?? ", "{ a=1, b=2 }" and "[ ttl>=2 ]" for trailing property and
// behavior blocks, compact "[key=value]" filters and pseudo-class arguments
// inside a compound, ".." for ranges; the parts of a compound keep their
// source order. v2 queries are also normalized as the specification's
// canonical shape asks: an explicit "@t0" when the time prefix is omitted,
// ".Base:Type" sugar written as the type ".Type", grouped shorthand
// "(a=1 b=2)" written as bracket filters, and "+tag" chains sorted. Legacy
// forms the migrator rewrites ("cont[offset=N]" hops, "c@N", "*@+",
// ":depth()", ttl in "{...}") are never rewritten, only spaced canonically.
func PACT(src []byte) ([]byte, error) { return PACTDialect(src, pact.DialectUnset) }

// PACTDialect is PACT for a file whose queries, without a pragma, are in
// dialect def (DialectUnset means v2): a v1 file is printed as v1.
func PACTDialect(src []byte, def pact.Dialect) ([]byte, error) {
	f := pact.ParseFile("", string(src), def)
	if syntax.HasErrors(f.Diagnostics) {
		return nil, &SyntaxError{Diagnostics: f.Diagnostics}
	}
	text := f.Src.Text()
	queries := map[int]*pact.Query{} // by line
	for _, q := range f.Queries {
		queries[f.Src.LineOf(q.Sp.Start)] = q
	}
	comments := map[int]*pact.Comment{}
	for _, c := range f.Comments {
		comments[f.Src.LineOf(c.Sp.Start)] = c
	}
	var out strings.Builder
	blank := false
	for l := 0; l < f.Src.LineCount(); l++ {
		q, c := queries[l], comments[l]
		var line string
		switch {
		case q != nil:
			line = query(text, q)
			if c != nil {
				line += " " + strings.TrimRight(c.Text, " \t\r")
			}
		case c != nil:
			line = strings.TrimRight(c.Text, " \t\r")
		}
		if line == "" {
			blank = out.Len() > 0
			continue
		}
		if blank {
			out.WriteByte('\n')
			blank = false
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	res := out.String()
	// A comment that looks like the pragma but was not on the first line
	// must not move there, where it would set (or break) the dialect: one
	// blank line stays before it.
	if f.Pragma == nil && strings.HasPrefix(res, "//") &&
		strings.HasPrefix(strings.TrimLeft(res[2:], " \t"), "pact:") {
		res = "\n" + res
	}
	if res == text {
		return src, nil // already canonical: nothing to check
	}
	// Every printed query must parse again: a printer bug must never
	// reach a user's file.
	g := pact.ParseFile("", res, def)
	if syntax.HasErrors(g.Diagnostics) || len(g.Queries) != len(f.Queries) {
		return nil, fmt.Errorf("pact: internal error: the formatted text does not parse: %v", g.Diagnostics)
	}
	return []byte(res), nil
}

// printer prints one query.
type printer struct {
	src    string
	q      *pact.Query
	v2     bool
	legacy map[pact.Node]pact.LegacyKind
	b      strings.Builder
}

// query prints q canonically.
func query(src string, q *pact.Query) string {
	p := &printer{src: src, q: q, v2: q.Dialect != pact.V1, legacy: map[pact.Node]pact.LegacyKind{}}
	for _, l := range q.Legacy {
		p.legacy[l.Node] = l.Kind
	}
	switch {
	case q.Time != nil:
		p.time(q.Time)
		p.b.WriteByte(' ')
	case p.v2:
		p.b.WriteString("@t0 ")
	}
	p.expr(q.Expr)
	if q.Props != nil {
		p.b.WriteByte(' ')
		p.trailer(q.Props)
	}
	if q.Behavior != nil {
		p.b.WriteByte(' ')
		p.trailer(q.Behavior)
	}
	for _, c := range q.Controls {
		p.b.WriteString(" @" + c.Name)
		if c.HasValue {
			p.b.WriteString("=" + c.Value)
		}
	}
	return p.b.String()
}

func (p *printer) slice(sp syntax.Span) string { return p.src[sp.Start:sp.End] }

func (p *printer) time(t *pact.Time) {
	if t.History {
		p.b.WriteString("@history")
		return
	}
	p.b.WriteString(p.slice(t.From.Sp))
	if t.To != nil {
		p.b.WriteString("..")
		p.b.WriteString(p.slice(t.To.Sp))
	}
}

func (p *printer) expr(e pact.Expr) {
	switch x := e.(type) {
	case *pact.Union:
		for i, it := range x.Items {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.expr(it)
		}
	case *pact.Fallback:
		p.expr(x.Left)
		p.b.WriteString(" ?? ")
		p.expr(x.Right)
	case *pact.Chain:
		first := true
		if x.Scope != nil {
			p.depth(x.Scope)
			first = false
		}
		for _, st := range x.Steps {
			switch {
			case st.Comb == pact.CombChild && first:
				p.b.WriteString("> ")
			case st.Comb == pact.CombChild:
				p.b.WriteString(" > ")
			case !first:
				p.b.WriteByte(' ')
			}
			first = false
			p.step(st)
		}
	case *pact.Paren:
		p.b.WriteByte('(')
		p.expr(x.Inner)
		p.b.WriteByte(')')
	case *pact.Position:
		p.position(x)
	case *pact.CoordSet:
		p.b.WriteByte('(')
		for i, c := range x.Coords {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.position(c)
		}
		p.b.WriteByte(')')
	case *pact.PropSearch:
		p.trailer(x.Block)
	}
}

func (p *printer) step(st *pact.Step) {
	if st.Sel != nil {
		p.compound(st.Sel)
		return
	}
	p.expr(st.Group)
}

// position prints a position or coordinate with ", " between its hops.
// A compound hop is printed like any compound, without a "." before its
// first type when it was written bare ("seg", "cont[offset=0]"): the bare
// spelling is what marks "cont[offset=N]" as the legacy hop, so it is kept.
// An insertion sentinel is printed as "end", "+N", "-N", or nothing after
// the last ", " for the trailing comma.
func (p *printer) position(x *pact.Position) {
	p.b.WriteByte('(')
	for i, h := range x.Hops {
		if i > 0 {
			p.b.WriteString(", ")
		}
		if k, ok := p.legacy[h]; ok && k == pact.LegacyCycleAt {
			p.b.WriteString(p.slice(h.Sp)) // "c@N" is one token
			continue
		}
		switch h.Kind {
		case pact.HopDepth:
			p.depth(h.Depth)
		case pact.HopOffset:
			p.b.WriteString(p.slice(h.Sp))
		case pact.HopStep:
			var c printer
			c.src, c.q, c.v2, c.legacy = p.src, p.q, p.v2, p.legacy
			c.compound(h.Step)
			text := c.b.String()
			if p.src[h.Sp.Start] != '.' {
				text = strings.TrimPrefix(text, ".")
			}
			p.b.WriteString(text)
		case pact.HopInsert:
			switch h.Insert {
			case pact.InsertEnd:
				p.b.WriteString("end")
			case pact.InsertAfter:
				fmt.Fprintf(&p.b, "+%d", h.Offset)
			case pact.InsertBefore:
				fmt.Fprintf(&p.b, "-%d", h.Offset)
			}
		}
	}
	p.b.WriteByte(')')
	if x.Optional {
		p.b.WriteByte('?')
	}
}

func (p *printer) depth(d *pact.DepthRef) {
	if d.Keyword {
		fmt.Fprintf(&p.b, "depth(%d)", d.From)
		return
	}
	fmt.Fprintf(&p.b, "d%d", d.From)
	if d.Range {
		fmt.Fprintf(&p.b, "..d%d", d.To)
	}
}

// compound prints the parts of a compound selector in their source order
// (the parser accepts only some orders), each canonically; in v2 the tags
// are sorted among the places tags hold.
func (p *printer) compound(c *pact.Compound) {
	if _, ok := p.legacy[c]; ok {
		p.b.WriteString(p.slice(c.Sp)) // "*@+" keeps its spelling
		return
	}
	type part struct {
		start int
		text  string
		tag   bool
	}
	var parts []part
	add := func(sp syntax.Span, text string) { parts = append(parts, part{start: sp.Start, text: text}) }
	if c.Root != nil {
		add(c.Root.Sp, "^"+c.Root.Name)
	}
	if c.Universal {
		add(c.UnivSpan, "*")
	}
	if c.Depth != nil {
		var d printer
		d.src = p.src
		d.depth(c.Depth)
		add(c.Depth.Sp, d.b.String())
	}
	for _, t := range c.Types {
		if k, ok := p.legacy[t]; ok && k == pact.LegacyBaseTypeSugar && plainName(t.Sub) {
			add(t.Sp, "."+t.Sub)
			continue
		}
		// In a position hop "*:block" is the type block written with ":"; the
		// spelling of the specification's examples is kept.
		dot := "."
		if p.src[t.Sp.Start] == ':' {
			dot = ":"
		}
		add(t.Sp, dot+t.Name)
	}
	for _, h := range c.Hashes {
		add(h.Sp, p.slice(h.Sp))
	}
	for _, t := range c.Tags {
		parts = append(parts, part{start: t.Sp.Start, text: "+" + t.Name, tag: true})
	}
	for _, a := range c.Attrs {
		var q printer
		q.src = p.src
		q.b.WriteByte('[')
		q.attr(a)
		q.b.WriteByte(']')
		add(a.Sp, q.b.String())
	}
	for _, ps := range c.Pseudos {
		text := ":" + ps.Name
		if ps.HasParens {
			var args []string
			for _, a := range ps.Args {
				arg := a.Value.Raw
				if a.Hi != nil {
					arg += "-" + a.Hi.Raw
				}
				args = append(args, arg)
			}
			text += "(" + strings.Join(args, ",") + ")"
		}
		add(ps.Sp, text)
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].start < parts[j].start })
	if p.v2 {
		var slots []int
		var tags []string
		for i, pt := range parts {
			if pt.tag {
				slots = append(slots, i)
				tags = append(tags, pt.text)
			}
		}
		sort.Strings(tags)
		for k, i := range slots {
			parts[i].text = tags[k]
		}
	}
	for _, pt := range parts {
		p.b.WriteString(pt.text)
	}
}

// attr prints one filter, operators without spaces ("ttl>=2"), the word
// "in" with them ("role in ['a', 'b']").
func (p *printer) attr(a *pact.Attr) {
	p.b.WriteString(p.slice(a.KeySpan))
	switch a.Op {
	case pact.OpExists:
	case pact.OpIn:
		p.b.WriteString(" in [")
		for i, v := range a.Values {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.b.WriteString(v.Raw)
		}
		p.b.WriteByte(']')
	default:
		p.b.WriteString(a.Op.String())
		if a.Value != nil {
			p.b.WriteString(a.Value.Raw)
		}
	}
}

// trailer prints a trailing "{ ... }" or "[ ... ]" block.
func (p *printer) trailer(b *pact.Block) {
	open, close := "[ ", " ]"
	if b.Kind == pact.BlockBrace {
		open, close = "{ ", " }"
	}
	p.b.WriteString(open)
	for i, a := range b.Items {
		if i > 0 {
			p.b.WriteString(", ")
		}
		p.attr(a)
	}
	p.b.WriteString(close)
}

// plainName reports whether s can follow "." as a type name.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return c0ok(s[0])
}

func c0ok(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
