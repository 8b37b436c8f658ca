package format

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// datalogWidth is the line width above which a rule is wrapped, one body
// item per line.
const datalogWidth = 100

// datalogIndent indents the body items of a wrapped rule.
const datalogIndent = "    "

// Datalog formats a Datalog program (a .dl file) in the canonical Ascent
// form: one rule, fact or declaration per line, each ending in ";", with
// "head(X, Y) <-- body(X, Z), other(Z, Y);" spacing. A rule longer than
// 100 bytes, or one with comments between its tokens, is wrapped with
// "<--" ending the head line and one body item per line, indented four
// spaces. Arrows of neighbouring rules are not aligned. String literals are
// re-quoted canonically and integers written without leading zeros, the
// forms the evaluator compares values by. "//" comments stay where they
// were (a comment after an item on its line stays on that line), runs of
// blank lines collapse to one, and the output has no leading or trailing
// blank lines and ends in exactly one newline.
func Datalog(src []byte) ([]byte, error) {
	text := string(src)
	ar := dlArenas.Get().(*datalog.Arena)
	defer func() {
		ar.Reset()
		dlArenas.Put(ar)
	}()
	prog, out, err := printDatalog(ar, text)
	if err != nil {
		return nil, err
	}
	if out == text {
		return src, nil // already canonical: nothing to check
	}
	// A printer bug must never reach a user's file: the output has to
	// parse to the same program.
	again := datalog.ParseProgram("", out)
	if syntax.HasErrors(again.Diagnostics) || datalogKey(again) != datalogKey(prog) {
		return nil, fmt.Errorf("datalog: internal error: the formatted program differs from the input")
	}
	return []byte(out), nil
}

// DatalogIsCanonical reports whether src is already in the form Datalog
// prints. It prints without the check of a changed output that Datalog
// makes before returning it (nothing is written). A program with syntax
// errors returns a *SyntaxError, as Datalog does.
func DatalogIsCanonical(src []byte) (bool, error) {
	if bytes.IndexByte(src, '\r') >= 0 {
		return canonicalCR(src, Datalog)
	}
	text := string(src)
	ar := dlArenas.Get().(*datalog.Arena)
	defer func() {
		ar.Reset()
		dlArenas.Put(ar)
	}()
	prog := datalog.ParseProgramIn(ar, "", text)
	if syntax.HasErrors(prog.Diagnostics) {
		return false, &SyntaxError{Diagnostics: prog.Diagnostics}
	}
	p := &dlPrinter{src: text, file: prog.File, prog: prog, check: true}
	return p.canonical(), nil
}

// dlArenas holds Datalog parse arenas for reuse (a cache: which one a
// call gets changes nothing it returns). A program parsed in one lives
// only until its text is printed and compared: nothing returned points
// into it (the diagnostics are values, the output a new string).
var dlArenas = sync.Pool{New: func() any { return new(datalog.Arena) }}

// printDatalog parses text in ar and prints it canonically.
func printDatalog(ar *datalog.Arena, text string) (*datalog.Program, string, error) {
	prog := datalog.ParseProgramIn(ar, "", text)
	if syntax.HasErrors(prog.Diagnostics) {
		return nil, "", &SyntaxError{Diagnostics: prog.Diagnostics}
	}
	p := &dlPrinter{src: text, file: prog.File, prog: prog}
	return prog, p.print(), nil
}

// dlItem is a top-level rule or declaration.
type dlItem struct {
	span   syntax.Span
	rule   *datalog.Rule
	decl   *datalog.Decl
	header *datalog.Header
	macro  *datalog.MacroDef
}

type dlPrinter struct {
	src  string
	file *syntax.File
	prog *datalog.Program
	// lines are the printed lines, without newlines.
	lines []string
	// commented is true when the last printed line ends in a comment.
	commented bool
	// lastLine is the source line of the last thing printed, -1 before
	// anything was printed.
	lastLine int
	// check is set when the printer only compares its output with src
	// (canonical): each line, once the next one starts (only the last
	// line can still change), is compared with src from off; differs
	// is set at the first difference, and printing stops there.
	check   bool
	off     int
	differs bool
}

// canonical reports whether the printed program is src, printing only up
// to the first line that differs.
func (p *dlPrinter) canonical() bool {
	p.items()
	if p.differs {
		return false
	}
	if len(p.lines) == 0 {
		return p.src == ""
	}
	p.compareLast()
	return !p.differs && p.off == len(p.src)
}

// compareLast compares the last printed line, and its newline, with the
// source at off.
func (p *dlPrinter) compareLast() {
	if p.differs || len(p.lines) == 0 {
		return
	}
	last := p.lines[len(p.lines)-1]
	if rest := p.src[p.off:]; len(rest) > len(last) && rest[len(last)] == '\n' && rest[:len(last)] == last {
		p.off += len(last) + 1
		return
	}
	p.differs = true
}

func (p *dlPrinter) print() string {
	p.items()
	if len(p.lines) == 0 {
		return ""
	}
	return strings.Join(p.lines, "\n") + "\n"
}

// items prints the program's items into lines (with check set, up to the
// first line that differs from the source).
func (p *dlPrinter) items() {
	var items []dlItem
	for _, r := range p.prog.Rules {
		if !r.Init { // printed with its declaration
			items = append(items, dlItem{span: r.Sp, rule: r})
		}
	}
	for _, d := range p.prog.Decls {
		items = append(items, dlItem{span: d.Sp, decl: d})
	}
	for _, h := range p.prog.Headers {
		items = append(items, dlItem{span: h.Sp, header: h})
	}
	for _, m := range p.prog.Macros {
		items = append(items, dlItem{span: m.Sp, macro: m})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].span.Start < items[j].span.Start })
	comments := p.prog.Comments
	ci := 0
	p.lastLine = -1
	for n, it := range items {
		if p.differs {
			return
		}
		next := len(p.src) + 1
		if n+1 < len(items) {
			next = items[n+1].span.Start
		}
		// Comments before the item, each on its own line.
		for ci < len(comments) && comments[ci].Start < it.span.Start {
			c := comments[ci]
			ci++
			if p.trailing(c) {
				continue
			}
			p.line(p.file.LineOf(c.Start), p.file.LineOf(c.Start), p.comment(c))
		}
		// Comments inside the item's span.
		var inner []syntax.Span
		for ci < len(comments) && comments[ci].Start < it.span.End {
			inner = append(inner, comments[ci])
			ci++
		}
		startLine, endLine := p.file.LineOf(it.span.Start), p.file.LineOf(it.span.End)
		if it.macro != nil {
			p.single(dlMacroDef(it.macro), inner, startLine, endLine)
		} else if it.header != nil {
			p.single(dlHeader(it.header), inner, startLine, endLine)
		} else if it.decl != nil {
			p.single(p.decl(it.decl), inner, startLine, endLine)
		} else {
			p.rule(it.rule, inner, startLine, endLine)
		}
		// A comment after the item on its last line trails it.
		if ci < len(comments) && comments[ci].Start < next && p.file.LineOf(comments[ci].Start) == endLine {
			p.appendTrailing(comments[ci], "")
			ci++
		}
	}
	for ; ci < len(comments); ci++ {
		c := comments[ci]
		p.line(p.file.LineOf(c.Start), p.file.LineOf(c.Start), p.comment(c))
	}
}

// emit prints one output line.
func (p *dlPrinter) emit(text string, commented bool) {
	if p.check {
		p.compareLast()
	}
	p.lines = append(p.lines, text)
	p.commented = commented
}

// trailing reports whether a comment ends the line that was printed last,
// and appends it there when so.
func (p *dlPrinter) trailing(c syntax.Span) bool {
	if p.lastLine >= 0 && p.file.LineOf(c.Start) == p.lastLine && len(p.lines) > 0 {
		p.appendTrailing(c, "")
		return true
	}
	return false
}

// appendTrailing ends the last printed line with a comment; when that line
// already ends in a comment, the new one goes on a line of its own with
// the given indentation, so the two stay two comments.
func (p *dlPrinter) appendTrailing(c syntax.Span, indent string) {
	n := len(p.lines)
	if n == 0 || p.commented {
		p.emit(indent+p.comment(c), true)
		return
	}
	last := p.lines[n-1]
	p.lines[n-1] = last + " " + p.comment(c)
	p.commented = true
}

func (p *dlPrinter) comment(c syntax.Span) string {
	return strings.TrimRight(p.src[c.Start:c.End], " \t\r")
}

// line prints text that spans source lines from..to, with one blank line
// before it when the source had blank lines since the last printed line.
func (p *dlPrinter) line(from, to int, text string) {
	p.blankBefore(from)
	p.emit(text, strings.HasPrefix(text, "//"))
	p.lastLine = to
}

func (p *dlPrinter) blankBefore(from int) {
	if p.lastLine < 0 || len(p.lines) == 0 {
		return
	}
	for l := p.lastLine + 1; l < from; l++ {
		if strings.TrimSpace(p.file.Line(l)) == "" {
			p.emit("", false)
			return
		}
	}
}

func (p *dlPrinter) decl(d *datalog.Decl) string {
	var b strings.Builder
	if d.DS != nil {
		// The attribute on a line of its own, as Ascent programs write it.
		b.WriteString("#[ds(" + d.DSPath + ")]\n")
	}
	if d.Lattice {
		b.WriteString("lattice ")
	} else {
		b.WriteString("relation ")
	}
	b.WriteString(d.Name.Name)
	b.WriteByte('(')
	for i, t := range d.Types {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Name)
	}
	b.WriteString(")")
	if len(d.Init) > 0 || !d.Eq.IsZero() {
		b.WriteString(" = vec![")
		for i, r := range d.Init {
			if i > 0 {
				b.WriteString(", ")
			}
			args := make([]string, len(r.Head.Args))
			for j, t := range r.Head.Args {
				args[j] = dlTerm(t)
			}
			b.WriteString("(" + strings.Join(args, ", "))
			if len(args) == 1 {
				b.WriteString(",") // a one-value tuple, as Rust writes it
			}
			b.WriteString(")")
		}
		b.WriteString("]")
	}
	b.WriteString(";")
	return b.String()
}

// dlMacroDef prints a macro definition on one line:
// "macro name($x: expr) { body tokens }".
func dlMacroDef(m *datalog.MacroDef) string {
	params := make([]string, len(m.Params))
	for i, p := range m.Params {
		params[i] = p.Name + ": " + m.Kinds[i]
	}
	body := dlTokens(m.Body)
	if body != "" {
		body = " " + body + " "
	}
	return "macro " + m.Name.Name + "(" + strings.Join(params, ", ") + ") {" + body + "}"
}

// dlTokens prints tokens one space apart, but none after "(", "[", "!"
// before "(", ".", "::" and "?", none before ")", "]", ",", ";", ":",
// "." and "::", and none between a name that is not a keyword and its
// "(": the tokens read back the same.
func dlTokens(toks []datalog.Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			prev := toks[i-1]
			tight := prev.Kind == datalog.TokLParen || prev.Kind == datalog.TokDot ||
				prev.Text == "[" || prev.Text == "::" || prev.Text == "?" ||
				prev.Kind == datalog.TokBang ||
				t.Kind == datalog.TokRParen || t.Kind == datalog.TokComma || t.Kind == datalog.TokSemi || t.Kind == datalog.TokDot ||
				t.Text == "]" || t.Text == ":" || t.Text == "::" ||
				t.Kind == datalog.TokLParen && prev.Kind == datalog.TokIdent && !datalog.IsKeyword(prev.Text) ||
				t.Kind == datalog.TokBang && prev.Kind == datalog.TokIdent && !datalog.IsKeyword(prev.Text)
			if !tight {
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// dlHeader prints a program header's tokens one space apart, with no
// space inside angle brackets' edges nor before ",", ":" and ";".
func dlHeader(h *datalog.Header) string {
	var b strings.Builder
	for i, t := range h.Tokens {
		if i > 0 {
			prev := h.Tokens[i-1].Text
			switch {
			case prev == "<", prev == "'", t.Text == ">", t.Text == ",", t.Text == ":", t.Text == ";", t.Text == "<" && i == 2:
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

func (p *dlPrinter) rule(r *datalog.Rule, inner []syntax.Span, startLine, endLine int) {
	head := dlHeads(r)
	if r.IsFact() {
		p.single(head+";", inner, startLine, endLine)
		return
	}
	items := make([]string, len(r.Body))
	for i, b := range r.Body {
		items[i] = dlBodyItem(b)
	}
	flat := head + " <-- " + strings.Join(items, ", ") + ";"
	if len(inner) == 0 && utf8.RuneCountInString(flat) <= datalogWidth {
		p.line(startLine, endLine, flat)
		return
	}
	// Wrapped: the head line, then one line per body item. Each piece
	// takes the comments that follow its start in the source.
	type piece struct {
		text  string
		start int
		line  int // source line of the piece's end
	}
	pieces := []piece{{text: head + " <--", start: r.Sp.Start, line: p.file.LineOf(r.Arrow.End)}}
	for i, b := range r.Body {
		sep := ","
		if i == len(r.Body)-1 {
			sep = ";"
		}
		sp := b.Span()
		pieces = append(pieces, piece{text: datalogIndent + items[i] + sep, start: sp.Start, line: p.file.LineOf(sp.End)})
	}
	ci := 0
	for i, pc := range pieces {
		if i == 0 {
			p.line(startLine, pc.line, pc.text)
		} else {
			p.blankBefore(p.file.LineOf(pc.start))
			p.emit(pc.text, false)
			p.lastLine = pc.line
		}
		next := r.Sp.End
		if i+1 < len(pieces) {
			next = pieces[i+1].start
		}
		first := true
		for ci < len(inner) && inner[ci].Start < next {
			c := inner[ci]
			ci++
			cl := p.file.LineOf(c.Start)
			if first && cl <= pc.line {
				p.appendTrailing(c, datalogIndent)
			} else {
				p.blankBefore(cl)
				p.emit(datalogIndent+p.comment(c), true)
				p.lastLine = cl
			}
			first = false
		}
	}
	p.lastLine = endLine
}

// single prints an item on one line; comments inside it follow it, the
// first one at the end of the line.
func (p *dlPrinter) single(text string, inner []syntax.Span, startLine, endLine int) {
	if len(inner) == 0 {
		p.line(startLine, endLine, text)
		return
	}
	p.line(startLine, startLine, text)
	for i, c := range inner {
		if i == 0 {
			p.appendTrailing(c, "")
			continue
		}
		p.line(p.file.LineOf(c.Start), p.file.LineOf(c.Start), p.comment(c))
	}
	p.lastLine = endLine
}

// dlHeads prints a rule's heads: a macro use once for the atoms it
// expands to.
func dlHeads(r *datalog.Rule) string {
	var hs []string
	var last *datalog.MacroUse
	for _, h := range r.AllHeads() {
		switch {
		case h.Macro == nil:
			hs = append(hs, dlAtom(h))
		case h.Macro != last:
			args := make([]string, len(h.Macro.Args))
			for i, a := range h.Macro.Args {
				args[i] = dlTokens(a)
			}
			hs = append(hs, h.Macro.Name.Name+"!("+strings.Join(args, ", ")+")")
		}
		last = h.Macro
	}
	return strings.Join(hs, ", ")
}

func dlAtom(a *datalog.Atom) string {
	var b strings.Builder
	if a.Negated {
		b.WriteByte('!')
	}
	b.WriteString(a.Name.Name)
	b.WriteByte('(')
	for i, t := range a.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(dlTerm(t))
	}
	b.WriteByte(')')
	return b.String()
}

func dlBodyItem(it datalog.BodyItem) string { return dlBodyItemIn(it, 0) }

// dlBodyItemIn prints a body item whose expressions bind at least as tightly
// as min: inside a disjunction, where "||" separates alternatives, a
// condition's "||" takes parentheses.
func dlBodyItemIn(it datalog.BodyItem, min int) string {
	switch {
	case it.Atom != nil:
		return dlAtom(it.Atom)
	case it.Cond != nil:
		c := it.Cond
		return "if " + dlTerm(c.Left) + " " + c.Op + " " + dlTerm(c.Right)
	case it.If != nil:
		return "if " + dlExpr(it.If.X, min)
	case it.Let != nil:
		return "let " + dlTerm(it.Let.Var) + " = " + dlExpr(it.Let.X, min)
	case it.For != nil:
		rg := ".."
		if it.For.Inclusive {
			rg = "..="
		}
		if it.For.List != nil {
			items := make([]string, len(it.For.List))
			for i, x := range it.For.List {
				items[i] = dlExpr(x, 0)
			}
			open := "["
			if it.For.Vec {
				open = "vec!["
			}
			return "for " + dlTerm(it.For.Var) + " in " + open + strings.Join(items, ", ") + "]"
		}
		return "for " + dlTerm(it.For.Var) + " in " + dlExpr(it.For.Lo, precAdd) + rg + dlExpr(it.For.Hi, precAdd)
	case it.Agg != nil:
		g := it.Agg
		v := "()"
		if g.Var != nil {
			v = dlTerm(g.Var)
		}
		args := make([]string, len(g.Args))
		for i, a := range g.Args {
			args[i] = dlTerm(a)
		}
		return "agg " + v + " = " + g.Func.Name + "(" + strings.Join(args, ", ") + ") in " + dlAtom(g.Atom)
	case it.Macro != nil:
		args := make([]string, len(it.Macro.Args))
		for i, a := range it.Macro.Args {
			args[i] = dlTokens(a)
		}
		return it.Macro.Name.Name + "!(" + strings.Join(args, ", ") + ")"
	case it.Disj != nil:
		alts := make([]string, len(it.Disj.Alts))
		for i, alt := range it.Disj.Alts {
			items := make([]string, len(alt))
			for j, x := range alt {
				items[j] = dlBodyItemIn(x, precAnd)
			}
			alts[i] = strings.Join(items, ", ")
		}
		return "(" + strings.Join(alts, " || ") + ")"
	}
	return ""
}

// Operator precedences, loosest first, as Rust has them.
const (
	precOr = iota + 1
	precAnd
	precCmp
	precAdd
	precMul
	precUnary
)

func dlPrec(op string) int {
	switch op {
	case "||":
		return precOr
	case "&&":
		return precAnd
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	}
	return precCmp
}

// dlExpr prints an expression with the parentheses its structure needs
// and no others, in a context that binds at least as tightly as min.
func dlExpr(x datalog.Expr, min int) string {
	var s string
	prec := precUnary + 1
	switch x := x.(type) {
	case *datalog.Term:
		return dlTerm(x)
	case *datalog.Unary:
		prec = precUnary
		s = x.Op + dlExpr(x.X, precUnary)
	case *datalog.Call:
		return dlCall(x)
	case *datalog.Binary:
		prec = dlPrec(x.Op)
		right := prec + 1
		left := prec
		if prec == precCmp {
			left = prec + 1
		}
		s = dlExpr(x.L, left) + " " + x.Op + " " + dlExpr(x.R, right)
	}
	if prec < min {
		return "(" + s + ")"
	}
	return s
}

// dlCall prints a call of a function: the receiver (parenthesized
// unless it is a term or a call), the method and its arguments, or
// format! and its arguments.
func dlCall(c *datalog.Call) string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = dlExpr(a, 0)
	}
	s := c.Name.Name
	if c.Type != nil {
		s += "::<" + c.Type.Name + ">"
	}
	s += "(" + strings.Join(args, ", ") + ")"
	if c.Recv == nil {
		return s
	}
	recv := dlExpr(c.Recv, precUnary+1)
	if strings.HasPrefix(recv, "-") {
		recv = "(" + recv + ")" // "-5.abs()" is -(5.abs())
	}
	return recv + "." + s
}

// dlTerm prints a term canonically: variables as written, strings quoted
// by datalog.Quote (the raw text when the value is not valid UTF-8, which
// Quote cannot round-trip), integers in canonical decimal form.
func dlTerm(t *datalog.Term) string {
	if !t.Dual.IsZero() || !t.Pattern.IsZero() {
		inner := *t
		inner.Dual, inner.Pattern = syntax.Span{}, syntax.Span{}
		s := dlTerm(&inner)
		if !t.Dual.IsZero() {
			s = "Dual(" + s + ")"
		}
		if !t.Pattern.IsZero() {
			s = "?" + s
		}
		return s
	}
	switch t.Kind {
	case datalog.Computed:
		return dlExpr(t.X, 0)
	case datalog.Tuple:
		elems := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			elems[i] = dlTerm(e)
		}
		if len(elems) == 1 {
			return "(" + elems[0] + ",)"
		}
		return "(" + strings.Join(elems, ", ") + ")"
	case datalog.Str:
		if v, ok := datalog.Unquote(t.Text); ok && utf8.ValidString(v) {
			return datalog.Quote(v)
		}
		return t.Text
	case datalog.Num:
		return t.Value
	}
	return t.Text
}

// datalogKey renders a program's rules, declarations and comments without
// spans or literal spelling: two programs with equal keys mean the same
// and carry the same comments.
func datalogKey(prog *datalog.Program) string {
	var b strings.Builder
	var items []dlItem
	for _, r := range prog.Rules {
		items = append(items, dlItem{span: r.Sp, rule: r})
	}
	for _, d := range prog.Decls {
		items = append(items, dlItem{span: d.Sp, decl: d})
	}
	for _, h := range prog.Headers {
		items = append(items, dlItem{span: h.Sp, header: h})
	}
	for _, m := range prog.Macros {
		items = append(items, dlItem{span: m.Sp, macro: m})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].span.Start < items[j].span.Start })
	var buf []byte // scratch for quoting
	quote := func(v string) {
		buf = strconv.AppendQuote(buf[:0], v)
		b.Write(buf)
	}
	term := func(t *datalog.Term) {
		if t == nil {
			b.WriteString("<nil>")
			return
		}
		b.WriteString(dlExprKey(t))
		if !t.Dual.IsZero() {
			b.WriteString("[dual]")
		}
		if !t.Pattern.IsZero() {
			b.WriteString("[?]")
		}
		b.WriteByte(' ')
	}
	atom := func(a *datalog.Atom) {
		if a == nil {
			b.WriteString("<nil>")
			return
		}
		b.WriteString("atom(")
		b.WriteString(strconv.FormatBool(a.Negated))
		b.WriteByte(' ')
		b.WriteString(a.Name.Name)
		b.WriteByte(' ')
		for _, t := range a.Args {
			term(t)
		}
		b.WriteString(") ")
	}
	for _, it := range items {
		if m := it.macro; m != nil {
			b.WriteString("macro " + dlMacroDef(m) + "\n")
			continue
		}
		if h := it.header; h != nil {
			b.WriteString("header")
			for _, t := range h.Tokens {
				b.WriteByte(' ')
				quote(t.Text)
			}
			b.WriteByte('\n')
			continue
		}
		if d := it.decl; d != nil {
			b.WriteString("decl ")
			if d.DS != nil {
				b.WriteString("#[ds(" + d.DSPath + ")] ")
			}
			b.WriteString(d.Name.Name)
			b.WriteString(" [")
			for _, n := range d.TypeNames() {
				quote(n)
				b.WriteByte(' ')
			}
			b.WriteString("]\n")
			continue
		}
		r := it.rule
		b.WriteString("rule ")
		if r.Init {
			b.WriteString("init ")
		}
		for _, h := range r.AllHeads() {
			atom(h)
		}
		b.WriteString("fact=")
		b.WriteString(strconv.FormatBool(r.IsFact()))
		b.WriteString(" <-- ")
		var items func([]datalog.BodyItem)
		items = func(body []datalog.BodyItem) {
			for _, x := range body {
				switch {
				case x.Atom != nil:
					atom(x.Atom)
				case x.Cond != nil:
					b.WriteString("if ")
					term(x.Cond.Left)
					b.WriteString(x.Cond.Op)
					b.WriteByte(' ')
					term(x.Cond.Right)
				case x.Agg != nil:
					b.WriteString("agg ")
					term(x.Agg.Var)
					b.WriteString(x.Agg.Func.Name)
					for _, a := range x.Agg.Args {
						term(a)
					}
					atom(x.Agg.Atom)
				case x.Macro != nil:
					b.WriteString("macro " + x.Macro.Name.Name + "(")
					items(x.Macro.Items)
					b.WriteString(") ")
				case x.Disj != nil:
					b.WriteString("disj(")
					for _, alt := range x.Disj.Alts {
						items(alt)
						b.WriteString("|| ")
					}
					b.WriteString(") ")
				default:
					b.WriteString(dlExprKey(x.Node()))
					b.WriteByte(' ')
				}
			}
		}
		items(r.Body)
		b.WriteString("\n")
	}
	for _, c := range prog.Comments {
		b.WriteString("comment ")
		quote(strings.TrimRight(prog.File.Slice(c), " \t\r"))
		b.WriteByte('\n')
	}
	return b.String()
}

// dlExprKey renders an expression or a let, if or for item by its
// structure, for datalogKey.
func dlExprKey(n datalog.Node) string {
	switch n := n.(type) {
	case *datalog.Term:
		s := n.Kind.String() + ":" + strconv.Quote(n.Value)
		if n.X != nil {
			s += dlExprKey(n.X)
		}
		for _, e := range n.Elems {
			s += "[" + dlExprKey(e) + "]"
		}
		return s
	case *datalog.Binary:
		return "(" + dlExprKey(n.L) + " " + n.Op + " " + dlExprKey(n.R) + ")"
	case *datalog.Unary:
		return "(" + n.Op + dlExprKey(n.X) + ")"
	case *datalog.Call:
		s := "call " + n.Name.Name
		if n.Type != nil {
			s += "::<" + n.Type.Name + ">"
		}
		if n.Recv != nil {
			s += " on " + dlExprKey(n.Recv)
		}
		for _, a := range n.Args {
			s += " " + dlExprKey(a)
		}
		return s
	case *datalog.If:
		return "if " + dlExprKey(n.X)
	case *datalog.Let:
		return "let " + dlExprKey(n.Var) + " = " + dlExprKey(n.X)
	case *datalog.For:
		s := "for " + dlExprKey(n.Var) + " in " + dlExprKey(n.Lo) + " " + strconv.FormatBool(n.Inclusive) + " " + dlExprKey(n.Hi)
		for _, x := range n.List {
			s += " [" + dlExprKey(x) + "]"
		}
		return s + " vec=" + strconv.FormatBool(n.Vec)
	}
	return "<nil>"
}
