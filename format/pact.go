package format

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// PACT formats a .pact file: one canonical query per line, comments kept
// (a trailing comment one space after its query), runs of blank lines
// collapsed to one, no leading or trailing blank lines (except one before a
// comment that would otherwise become the first-line dialect pragma), one
// final newline. A file with syntax errors is not formatted: the error is a
// *SyntaxError holding the file's diagnostics. A query that parses but is
// invalid (pact.Validate rejects it) is left as it is, so formatting never
// turns an invalid query into a valid one or the reverse.
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
	out, _, err := printPACT(src, def, false)
	return out, err
}

// PACTIsCanonical reports whether src is already in the form PACT prints,
// without building the formatted text: it compares each printed line with
// the source as it goes and stops at the first difference. A file with
// syntax errors returns a *SyntaxError, as PACT does.
func PACTIsCanonical(src []byte) (bool, error) { return PACTIsCanonicalDialect(src, pact.DialectUnset) }

// PACTIsCanonicalDialect is PACTIsCanonical for a file read in dialect def.
func PACTIsCanonicalDialect(src []byte, def pact.Dialect) (bool, error) {
	if bytes.IndexByte(src, '\r') >= 0 {
		return canonicalCR(src, func(b []byte) ([]byte, error) { return PACTDialect(b, def) })
	}
	_, ok, err := printPACT(src, def, true)
	return ok, err
}

// printPACT prints src, read in dialect def, canonically into one buffer.
// With check set it stops at the first line that differs from the source
// and returns canonical=false and no text.
func printPACT(src []byte, def pact.Dialect, check bool) (out []byte, canonical bool, err error) {
	// The tree lives only until the text is printed: its memory goes back
	// to the pool for the next file. Nothing returned points into it (the
	// diagnostics are values, the output is src or a copy).
	m := scratch.Get().(*pactScratch)
	defer func() {
		m.ar.Reset()
		scratch.Put(m)
	}()
	f := pact.ParseFileTreeIn(&m.ar, "", string(src), def)
	if syntax.HasErrors(f.Diagnostics) {
		return nil, false, &SyntaxError{Diagnostics: f.Diagnostics}
	}
	text := f.Src.Text()
	if n := len(text) + len(text)/8 + 16; cap(m.out) < n {
		m.out = make([]byte, 0, n)
	}
	p := &printer{src: text, b: m.out[:0]}
	defer func() { m.out = p.b[:0] }()
	qi, ci := 0, 0
	blank, emitted := false, false
	for l := 0; l < f.Src.LineCount(); l++ {
		var q *pact.Query
		var c *pact.Comment
		if qi < len(f.Queries) && f.Src.LineOf(f.Queries[qi].Sp.Start) == l {
			q = f.Queries[qi]
			qi++
		}
		if ci < len(f.Comments) && f.Src.LineOf(f.Comments[ci].Sp.Start) == l {
			c = f.Comments[ci]
			ci++
		}
		if q == nil && c == nil {
			blank = emitted
			continue
		}
		mark := len(p.b)
		if blank {
			p.b = append(p.b, '\n')
			blank = false
		}
		if c != nil && q == nil && !emitted && f.Pragma == nil && pragmaLike(c.Text) {
			// A comment that looks like the pragma but was not on the
			// first line must not move there, where it would set (or
			// break) the dialect: one blank line stays before it.
			p.b = append(p.b, '\n')
		}
		emitted = true
		if q != nil {
			p.query(q)
			if c != nil {
				p.b = append(p.b, ' ')
				p.b = append(p.b, strings.TrimRight(c.Text, " \t\r")...)
			}
		} else {
			p.b = append(p.b, strings.TrimRight(c.Text, " \t\r")...)
		}
		p.b = append(p.b, '\n')
		if check && (len(p.b) > len(text) || string(p.b[mark:]) != text[mark:len(p.b)]) {
			return nil, false, nil
		}
	}
	if len(p.b) == len(text) && string(p.b) == text {
		return src, true, nil // already canonical: nothing to check
	}
	if check {
		return nil, false, nil
	}
	// Every printed query must parse again: a printer bug must never
	// reach a user's file.
	res := string(p.b)
	g := pact.ParseFileTree("", res, def)
	if syntax.HasErrors(g.Diagnostics) || len(g.Queries) != len(f.Queries) {
		return nil, false, fmt.Errorf("pact: internal error: the formatted text does not parse: %v", g.Diagnostics)
	}
	return []byte(res), false, nil
}

// pactScratch is the memory printPACT reuses from one file to the next:
// the parse arena and the output buffer. Nothing printPACT returns points
// into either (the output is src itself or a copy).
type pactScratch struct {
	ar  pact.Arena
	out []byte
}

// scratch holds pactScratch values for reuse (a cache: which one a call
// gets changes nothing it returns).
var scratch = sync.Pool{New: func() any { return new(pactScratch) }}

// pragmaLike reports whether a comment reads like the "// pact: vN" pragma.
func pragmaLike(c string) bool {
	return strings.HasPrefix(c, "//") && strings.HasPrefix(strings.TrimLeft(c[2:], " \t"), "pact:")
}

// printer prints queries into one buffer.
type printer struct {
	src   string
	q     *pact.Query
	v2    bool
	b     []byte
	tmp   []byte // a compound's parts before they are put in source order
	parts []part
}

// part is one printed part of a compound: tmp[lo:hi].
type part struct {
	start  int
	lo, hi int
	tag    bool
}

// legacyKind returns the legacy form recorded for n, if any.
func (p *printer) legacyKind(n pact.Node) (pact.LegacyKind, bool) {
	for _, l := range p.q.Legacy {
		if l.Node == n {
			return l.Kind, true
		}
	}
	return 0, false
}

// query prints q canonically into p.b; a query pact.Validate rejects is
// printed as it is, so that formatting never changes whether a query is
// valid (writing out the "@t0" an omitted time prefix means would make
// "@mode" valid, say).
func (p *printer) query(q *pact.Query) {
	if len(pact.Validate(q)) > 0 {
		p.str(p.slice(q.Sp))
		return
	}
	p.q, p.v2 = q, q.Dialect != pact.V1
	switch {
	case q.Time != nil:
		p.time(q.Time)
		p.b = append(p.b, ' ')
	case p.v2:
		p.b = append(p.b, "@t0 "...)
	}
	p.expr(q.Expr)
	if q.Props != nil {
		p.b = append(p.b, ' ')
		p.trailer(q.Props)
	}
	if q.Behavior != nil {
		p.b = append(p.b, ' ')
		p.trailer(q.Behavior)
	}
	for _, c := range q.Controls {
		p.b = append(p.b, " @"...)
		p.b = append(p.b, c.Name...)
		if c.HasValue {
			p.b = append(p.b, '=')
			p.b = append(p.b, c.Value...)
		}
	}
}

func (p *printer) slice(sp syntax.Span) string { return p.src[sp.Start:sp.End] }

func (p *printer) str(s string) { p.b = append(p.b, s...) }

func (p *printer) time(t *pact.Time) {
	if t.History {
		p.str("@history")
		return
	}
	p.str(p.slice(t.From.Sp))
	if t.To != nil {
		p.str("..")
		p.str(p.slice(t.To.Sp))
	}
}

func (p *printer) expr(e pact.Expr) {
	switch x := e.(type) {
	case *pact.Union:
		for i, it := range x.Items {
			if i > 0 {
				p.str(", ")
			}
			p.expr(it)
		}
	case *pact.Fallback:
		p.expr(x.Left)
		p.str(" ?? ")
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
				p.str("> ")
			case st.Comb == pact.CombChild:
				p.str(" > ")
			case !first:
				p.b = append(p.b, ' ')
			}
			first = false
			p.step(st)
		}
	case *pact.Paren:
		p.b = append(p.b, '(')
		p.expr(x.Inner)
		p.b = append(p.b, ')')
	case *pact.Position:
		p.position(x)
	case *pact.CoordSet:
		p.b = append(p.b, '(')
		for i, c := range x.Coords {
			if i > 0 {
				p.str(", ")
			}
			p.position(c)
		}
		p.b = append(p.b, ')')
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
	p.b = append(p.b, '(')
	for i, h := range x.Hops {
		if i > 0 {
			p.str(", ")
		}
		if k, ok := p.legacyKind(h); ok && k == pact.LegacyCycleAt {
			p.str(p.slice(h.Sp)) // "c@N" is one token
			continue
		}
		switch h.Kind {
		case pact.HopDepth:
			p.depth(h.Depth)
		case pact.HopOffset:
			p.str(p.slice(h.Sp))
		case pact.HopStep:
			at := len(p.b)
			p.compound(h.Step)
			if p.src[h.Sp.Start] != '.' && len(p.b) > at && p.b[at] == '.' {
				p.b = append(p.b[:at], p.b[at+1:]...)
			}
		case pact.HopInsert:
			switch h.Insert {
			case pact.InsertEnd:
				p.str("end")
			case pact.InsertAfter:
				p.b = append(p.b, '+')
				p.b = strconv.AppendInt(p.b, int64(h.Offset), 10)
			case pact.InsertBefore:
				p.b = append(p.b, '-')
				p.b = strconv.AppendInt(p.b, int64(h.Offset), 10)
			}
		}
	}
	p.b = append(p.b, ')')
	if x.Optional {
		p.b = append(p.b, '?')
	}
}

func (p *printer) depth(d *pact.DepthRef) { p.b = appendDepth(p.b, d) }

func appendDepth(b []byte, d *pact.DepthRef) []byte {
	if d.Keyword {
		b = append(b, "depth("...)
		b = strconv.AppendInt(b, int64(d.From), 10)
		return append(b, ')')
	}
	b = append(b, 'd')
	b = strconv.AppendInt(b, int64(d.From), 10)
	if d.Range {
		b = append(b, "..d"...)
		b = strconv.AppendInt(b, int64(d.To), 10)
	}
	return b
}

// compound prints the parts of a compound selector in their source order
// (the parser accepts only some orders), each canonically; in v2 the tags
// are sorted among the places tags hold.
func (p *printer) compound(c *pact.Compound) {
	star := "*"
	for _, l := range p.q.Legacy {
		if l.Node == c && l.Kind == pact.LegacyOffsetAt {
			star = "*@" + l.Value // "*@+" keeps its spelling
		}
	}
	p.tmp, p.parts = p.tmp[:0], p.parts[:0]
	add := func(sp syntax.Span, lo int, tag bool) {
		p.parts = append(p.parts, part{start: sp.Start, lo: lo, hi: len(p.tmp), tag: tag})
	}
	if c.Root != nil {
		lo := len(p.tmp)
		p.tmp = append(append(p.tmp, '^'), c.Root.Name...)
		add(c.Root.Sp, lo, false)
	}
	if c.Universal {
		lo := len(p.tmp)
		p.tmp = append(p.tmp, star...)
		add(c.UnivSpan, lo, false)
	}
	if c.Depth != nil {
		lo := len(p.tmp)
		p.tmp = appendDepth(p.tmp, c.Depth)
		add(c.Depth.Sp, lo, false)
	}
	for _, t := range c.Types {
		lo := len(p.tmp)
		if k, ok := p.legacyKind(t); ok && k == pact.LegacyBaseTypeSugar && plainName(t.Sub) {
			p.tmp = append(append(p.tmp, '.'), t.Sub...)
			add(t.Sp, lo, false)
			continue
		}
		// In a position hop "*:block" is the type block written with ":"; the
		// spelling of the specification's examples is kept.
		dot := byte('.')
		if p.src[t.Sp.Start] == ':' {
			dot = ':'
		}
		p.tmp = append(append(p.tmp, dot), t.Name...)
		add(t.Sp, lo, false)
	}
	for _, h := range c.Hashes {
		lo := len(p.tmp)
		p.tmp = append(p.tmp, p.slice(h.Sp)...)
		add(h.Sp, lo, false)
	}
	for _, t := range c.Tags {
		lo := len(p.tmp)
		p.tmp = append(append(p.tmp, '+'), t.Name...)
		add(t.Sp, lo, true)
	}
	for _, a := range c.Attrs {
		lo := len(p.tmp)
		p.tmp = append(p.tmp, '[')
		p.tmp = appendAttr(p.tmp, p.src, a)
		p.tmp = append(p.tmp, ']')
		add(a.Sp, lo, false)
	}
	for _, ps := range c.Pseudos {
		lo := len(p.tmp)
		p.tmp = append(append(p.tmp, ':'), ps.Name...)
		if ps.HasParens {
			p.tmp = append(p.tmp, '(')
			for i, a := range ps.Args {
				if i > 0 {
					p.tmp = append(p.tmp, ',')
				}
				p.tmp = append(p.tmp, a.Value.Raw...)
				if a.Hi != nil {
					p.tmp = append(append(p.tmp, '-'), a.Hi.Raw...)
				}
			}
			p.tmp = append(p.tmp, ')')
		}
		add(ps.Sp, lo, false)
	}
	parts := p.parts
	slices.SortStableFunc(parts, func(x, y part) int { return x.start - y.start })
	if p.v2 && len(c.Tags) > 1 {
		// Tags are sorted among the places tags hold.
		var tags []part
		for _, pt := range parts {
			if pt.tag {
				tags = append(tags, pt)
			}
		}
		slices.SortStableFunc(tags, func(x, y part) int { return strings.Compare(string(p.tmp[x.lo:x.hi]), string(p.tmp[y.lo:y.hi])) })
		k := 0
		for i := range parts {
			if parts[i].tag {
				parts[i] = tags[k]
				k++
			}
		}
	}
	for _, pt := range parts {
		p.b = append(p.b, p.tmp[pt.lo:pt.hi]...)
	}
}

// trailer prints a trailing "{ ... }" or "[ ... ]" block.
func (p *printer) trailer(b *pact.Block) {
	open, close := "[ ", " ]"
	if b.Kind == pact.BlockBrace {
		open, close = "{ ", " }"
	}
	p.str(open)
	for i, a := range b.Items {
		if i > 0 {
			p.str(", ")
		}
		p.b = appendAttr(p.b, p.src, a)
	}
	p.str(close)
}

// appendAttr appends one filter, operators without spaces ("ttl>=2"),
// the word "in" with them ("role in ['a', 'b']").
func appendAttr(b []byte, src string, a *pact.Attr) []byte {
	b = append(b, src[a.KeySpan.Start:a.KeySpan.End]...)
	switch a.Op {
	case pact.OpExists:
	case pact.OpIn:
		b = append(b, " in ["...)
		for i, v := range a.Values {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, v.Raw...)
		}
		b = append(b, ']')
	default:
		b = append(b, a.Op.String()...)
		if a.Value != nil {
			b = append(b, a.Value.Raw...)
		}
	}
	return b
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
