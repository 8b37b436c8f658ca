package lang

import (
	"slices"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// Fold is a range of lines an editor can fold away.
type Fold struct {
	// Span starts on the first line of the range and ends on its last.
	Span syntax.Span
	// Comment marks a run of comments (the leading comment block, a
	// multi-line comment).
	Comment bool
}

// Folds lists the ranges of a parsed file an editor can fold, from the
// file's structure, in source order: every construct of its outline that
// spans more than one line (a JSON or YAML JQL query, a Datalog rule or
// declaration, a Markdown section from its heading to the next heading of
// the same or a higher level), a Markdown code block, and every run of
// comments on consecutive lines that spans more than one line.
func (p *Parsed) Folds() []Fold {
	f := p.File
	var out []Fold
	multi := func(sp syntax.Span) bool {
		return sp.End > sp.Start && f.LineOf(sp.Start) < f.LineOf(max(sp.Start, sp.End-1))
	}
	for _, o := range p.Outline() {
		if multi(o.Span) {
			out = append(out, Fold{Span: trimEnd(f, o.Span)})
		}
	}
	for _, sp := range markdownFences(p) {
		if multi(sp) {
			out = append(out, Fold{Span: sp})
		}
	}
	// Comments on consecutive lines make one run.
	var run syntax.Span
	flush := func() {
		if multi(run) {
			out = append(out, Fold{Span: run, Comment: true})
		}
	}
	for i, c := range p.Comments() {
		if i > 0 && f.LineOf(c.Start) <= f.LineOf(max(run.Start, run.End-1))+1 {
			run.End = max(run.End, c.End)
			continue
		}
		if i > 0 {
			flush()
		}
		run = c
	}
	if run.End > run.Start {
		flush()
	}
	slices.SortStableFunc(out, func(a, b Fold) int { return a.Span.Start - b.Span.Start })
	return slices.CompactFunc(out, func(a, b Fold) bool { return a.Span == b.Span })
}

// trimEnd moves the end of a span back over trailing blank lines, so that a
// fold ends on its construct's last line of text.
func trimEnd(f *syntax.File, sp syntax.Span) syntax.Span {
	text := f.Text()
	for sp.End > sp.Start && strings.ContainsRune(" \t\r\n", rune(text[sp.End-1])) {
		sp.End--
	}
	return sp
}

// heading is one ATX heading of a Markdown file.
type heading struct {
	level int
	line  syntax.Span // the heading's line
	title syntax.Span // its text
}

// markdownLines calls fn with the span of every line of a Markdown file
// and whether it stands in a fenced code block (fence lines included).
func markdownLines(p *Parsed, fn func(line syntax.Span, code, fenceLine bool)) {
	if p.Lang == nil || p.Lang.ID != Markdown {
		return
	}
	f := p.File
	fence := ""
	for l := 0; l < f.LineCount(); l++ {
		sp := syntax.Sp(f.LineStart(l), f.LineEnd(l))
		line := f.Slice(sp)
		trimmed := strings.TrimLeft(line, " ")
		isFence := false
		if len(line)-len(trimmed) <= 3 {
			for _, m := range []string{"```", "~~~"} {
				if strings.HasPrefix(trimmed, m) && (fence == "" || fence == m) {
					isFence = true
					if fence == "" {
						fence = m
					} else {
						fence = ""
					}
					break
				}
			}
		}
		fn(sp, fence != "" || isFence, isFence)
	}
}

// markdownHeadings lists the ATX headings ("## Title") of a Markdown file
// outside its code blocks.
func markdownHeadings(p *Parsed) []heading {
	var out []heading
	markdownLines(p, func(sp syntax.Span, code, _ bool) {
		line := p.File.Slice(sp)
		trimmed := strings.TrimLeft(line, " ")
		if code || len(line)-len(trimmed) > 3 {
			return
		}
		n := 0
		for n < len(trimmed) && trimmed[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || n < len(trimmed) && trimmed[n] != ' ' && trimmed[n] != '\t' {
			return
		}
		title := strings.TrimSpace(trimmed[n:])
		title = strings.TrimSpace(strings.TrimRight(title, "#"))
		at := sp.Start + strings.Index(line, title)
		if title == "" {
			at = sp.End
		}
		out = append(out, heading{level: n, line: sp, title: syntax.Sp(at, at+len(title))})
	})
	return out
}

// markdownSections returns the outline of a Markdown file: one entry per
// heading, spanning its section up to the next heading of the same or a
// higher level.
func markdownSections(p *Parsed) []Outline {
	hs := markdownHeadings(p)
	out := make([]Outline, len(hs))
	for i, h := range hs {
		end := p.File.Len()
		for _, n := range hs[i+1:] {
			if n.level <= h.level {
				end = n.line.Start
				break
			}
		}
		out[i] = Outline{Name: p.File.Slice(h.title), Detail: strings.Repeat("#", h.level), Kind: OutlineHeading,
			Span: syntax.Sp(h.line.Start, end), Selection: h.title}
	}
	return out
}

// markdownFences returns the fenced code blocks of a Markdown file, from
// the opening fence's line to the closing one's.
func markdownFences(p *Parsed) []syntax.Span {
	var out []syntax.Span
	open := -1
	markdownLines(p, func(sp syntax.Span, _, fenceLine bool) {
		switch {
		case fenceLine && open < 0:
			open = sp.Start
		case fenceLine:
			out = append(out, syntax.Sp(open, sp.End))
			open = -1
		}
	})
	return out
}

// Enclosing returns the spans of a parsed file that contain the byte offset
// off, innermost first, each containing the one before: the token at off,
// a Datalog atom and body item, the query, rule or section, and the whole
// file. An editor widens a selection along them.
func (p *Parsed) Enclosing(off int) []syntax.Span {
	var cands []syntax.Span
	for _, t := range p.Tokens() {
		cands = append(cands, t.Span)
	}
	for _, r := range p.Rules() {
		cands = append(cands, r.Span)
		for _, h := range r.Heads {
			cands = append(cands, h.Span, h.NameSpan)
		}
		for _, b := range r.Body {
			cands = append(cands, b.Span)
			if b.Atom != nil {
				cands = append(cands, b.Atom.Span, b.Atom.NameSpan)
			}
		}
	}
	for _, q := range p.Queries() {
		cands = append(cands, q.Span)
	}
	for _, o := range p.Outline() {
		cands = append(cands, o.Span, o.Selection)
	}
	cands = append(cands, p.Comments()...)
	cands = append(cands, syntax.Sp(0, p.File.Len()))
	var in []syntax.Span
	for _, sp := range cands {
		if sp.Start <= off && off <= sp.End && sp.End > sp.Start {
			in = append(in, sp)
		}
	}
	slices.SortFunc(in, func(a, b syntax.Span) int {
		if d := (a.End - a.Start) - (b.End - b.Start); d != 0 {
			return d
		}
		return b.Start - a.Start
	})
	var out []syntax.Span
	for _, sp := range in {
		if len(out) == 0 || sp != out[len(out)-1] && sp.Covers(out[len(out)-1]) {
			out = append(out, sp)
		}
	}
	return out
}
