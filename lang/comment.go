package lang

import (
	"github.com/ctxql/ctxql/syntax/jql"
	"regexp"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Comments returns the spans of the comments of a parsed file, in source
// order: the parser's where it records them (PACT, Datalog), else a scan of
// the text in the file's comment syntax that skips quoted strings (JQL,
// host source files) or finds the HTML comments (Markdown). Text inside a
// string literal is never a comment.
func (p *Parsed) Comments() []syntax.Span {
	var out []syntax.Span
	switch a := p.AST.(type) {
	case *pact.File:
		for _, c := range a.Comments {
			out = append(out, c.Sp)
		}
	case *datalog.Program:
		out = append(out, a.Comments...)
	default:
		if p.Lang.ID == Markdown {
			return scanMarkdownComments(p.File.Text())
		}
		out = scanComments(p.File.Text(), p.Lang.Comment(p.File.Name()), p.Lang.quotes)
	}
	return out
}

// scanMarkdownComments finds the HTML comments of a Markdown text outside
// code: fenced code blocks (``` or ~~~ fences) and code spans (a run of
// backticks up to the next run of as many) show a comment's text rather
// than hold a comment.
func scanMarkdownComments(src string) []syntax.Span {
	var out []syntax.Span
	fence := ""
	for i := 0; i < len(src); {
		// At the start of a line: fences open and close code blocks.
		if i == 0 || src[i-1] == '\n' {
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src)
			} else {
				end += i
			}
			line := strings.TrimLeft(src[i:end], " ")
			if len(src[i:end])-len(line) <= 3 {
				for _, f := range []string{"```", "~~~"} {
					if strings.HasPrefix(line, f) && (fence == "" || fence == f) {
						if fence == "" {
							fence = f
						} else {
							fence = ""
						}
						i = end
						break
					}
				}
			}
			if fence != "" {
				i = end + 1
				continue
			}
			if i >= len(src) || src[i] == '\n' {
				i++
				continue
			}
		}
		switch {
		case src[i] == '`':
			n := 1
			for i+n < len(src) && src[i+n] == '`' {
				n++
			}
			run := src[i : i+n]
			// The span ends at the next run of exactly n backticks.
			j := i + n
			for {
				k := strings.Index(src[j:], run)
				if k < 0 {
					j = -1
					break
				}
				k += j
				if (k+n >= len(src) || src[k+n] != '`') && src[k-1] != '`' {
					j = k + n
					break
				}
				j = k + n
				for j < len(src) && src[j] == '`' {
					j++
				}
			}
			if j < 0 {
				i += n // no closing run: the backticks are text
				continue
			}
			i = j
		case strings.HasPrefix(src[i:], "<!--"):
			end := strings.Index(src[i+4:], "-->")
			if end < 0 {
				end = len(src)
			} else {
				end += i + 4 + 3
			}
			out = append(out, syntax.Sp(i, end))
			i = end
		default:
			i++
		}
	}
	return out
}

// InComment reports whether the byte offset off lies in a comment.
func (p *Parsed) InComment(off int) bool {
	for _, c := range p.Comments() {
		if c.Start <= off && off < c.End {
			return true
		}
	}
	return false
}

// scanComments finds the comments of src in the syntax c: a line comment
// runs from its prefix (outside a string quoted with one of quotes) to the
// end of the line; a block comment from Open to Close. A "#" line comment
// starts a line or follows a blank, as in YAML and Python.
func scanComments(src string, c Comment, quotes string) []syntax.Span {
	var out []syntax.Span
	var quote byte
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case quote != 0:
			switch {
			case ch == '\\' && quote != '`':
				i++
			case ch == quote || ch == '\n' && quote != '`':
				quote = 0
			}
		case c.Open != "" && strings.HasPrefix(src[i:], c.Open):
			end := strings.Index(src[i+len(c.Open):], c.Close)
			if end < 0 {
				end = len(src)
			} else {
				end += i + len(c.Open) + len(c.Close)
			}
			out = append(out, syntax.Sp(i, end))
			i = end - 1
		case c.Line != "" && strings.HasPrefix(src[i:], c.Line) &&
			(c.Line != "#" || i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n'):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src)
			} else {
				end += i
			}
			end = i + len(strings.TrimRight(src[i:end], "\r"))
			out = append(out, syntax.Sp(i, end))
			i = end - 1
		case strings.IndexByte(quotes, ch) >= 0:
			quote = ch
		}
	}
	return out
}

// Directive is a suppression directive in a comment:
// "ctxql:ignore CODE[, CODE] -- reason" silences the codes on its line (on
// the next line when the comment stands alone on its line);
// "ctxql:disable CODE" silences them up to a matching "ctxql:enable CODE".
type Directive struct {
	Kind  string   // "ignore", "disable" or "enable"
	Codes []string // upper case
	Span  syntax.Span
	// Line is the 0-based line an ignore applies to.
	Line int
}

// directiveRE matches the text of a directive inside a comment; compiled
// the first time a comment is read, not when the program starts.
var directiveRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`ctxql:(ignore|disable|enable)\s+([A-Za-z]+[0-9]{3}(?:\s*,\s*[A-Za-z]+[0-9]{3})*)`)
})

// Directives returns the suppression directives of the file: only those
// inside its comments (Comments), never text in a string literal.
func (p *Parsed) Directives() []Directive {
	f := p.File
	if !strings.Contains(f.Text(), "ctxql:") {
		return nil
	}
	var out []Directive
	for _, c := range p.Comments() {
		text := f.Text()[c.Start:c.End]
		m := directiveRE().FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		line := f.LineOf(c.Start)
		d := Directive{Kind: text[m[2]:m[3]], Span: syntax.Sp(c.Start, c.Start+m[1]), Line: line}
		for _, code := range strings.Split(text[m[4]:m[5]], ",") {
			d.Codes = append(d.Codes, strings.ToUpper(strings.TrimSpace(code)))
		}
		if d.Kind == "ignore" && strings.TrimSpace(f.Text()[f.LineStart(line):c.Start]) == "" && line+1 < f.LineCount() {
			d.Line = line + 1 // a directive alone on its line applies to the next line
		}
		out = append(out, d)
	}
	return out
}

// Commentable reports whether comments can be written in the file: not
// in a JQL file holding a query written as plain JSON, which has no
// comment syntax.
func (p *Parsed) Commentable() bool {
	f, ok := p.AST.(*jql.File)
	if !ok {
		return true
	}
	if len(f.Queries) == 0 {
		return false
	}
	for _, q := range f.Queries {
		if q == nil || q.Form == jql.FormJSON {
			return false
		}
	}
	return true
}

// Suppressible reports whether a directive or the configuration may
// silence d: every finding except the errors that make a query invalid
// (origin syntax or check), which every tool refuses the query for. Quick
// fixes that add a "ctxql:ignore" are offered only for these.
func Suppressible(d syntax.Diagnostic) bool { return d.Code != "" && !d.Invalid() }

// SuppressEdit returns the edit that silences d: a "ctxql:ignore" comment
// at the end of the line where d starts, in the comment syntax of the file
// name ("//", "#" in YAML and Python, an HTML comment in Markdown). ok is
// false when d cannot be suppressed (Suppressible).
func SuppressEdit(name string, f *syntax.File, d syntax.Diagnostic) (e syntax.TextEdit, ok bool) {
	if !Suppressible(d) {
		return e, false
	}
	line := f.LineOf(d.Span.Start)
	end := f.LineEnd(line)
	c := slash
	if lg := ForName(name); lg != nil {
		c = lg.Comment(name)
	}
	return syntax.TextEdit{Span: syntax.Sp(end, end), NewText: " " + c.Wrap("ctxql:ignore "+d.Code+" -- reason")}, true
}

// Pragma is a "data:" pragma: a comment of the leading comment block
// naming the file's sample data.
type Pragma struct {
	// Path is the data path as written, relative to the file's directory;
	// "" for an empty "// data:", which says the file has no sample data
	// (the configuration's does not apply either).
	Path string
	Span syntax.Span // the whole comment
}

// LeadingComments returns the comments of the file's leading comment
// block: the comments on the lines before its first line with anything
// else (blank lines do not end the block). The PACT dialect pragma and the
// data pragma stand there, in any order.
func (p *Parsed) LeadingComments() []syntax.Span {
	f := p.File
	text := f.Text()
	var out []syntax.Span
	cs := p.Comments()
	ci := 0
	for l := 0; l < f.LineCount(); l++ {
		start, end := f.LineStart(l), f.LineEnd(l)
		rest := start
		for ci < len(cs) && cs[ci].Start < end {
			c := cs[ci]
			if strings.TrimSpace(text[rest:c.Start]) != "" {
				return out
			}
			out = append(out, c)
			rest = max(rest, c.End)
			ci++
		}
		if rest < end && strings.TrimSpace(text[rest:end]) != "" {
			return out
		}
	}
	return out
}

// DataPragma returns the file's "data:" pragma: the first comment of the
// leading comment block whose text, after the comment marker, starts with
// "data:". It is the one parser of the pragma for every tool.
func (p *Parsed) DataPragma() (Pragma, bool) {
	text := p.File.Text()
	c := p.Lang.Comment(p.File.Name())
	for _, sp := range p.LeadingComments() {
		body := text[sp.Start:sp.End]
		switch {
		case c.Line != "" && strings.HasPrefix(body, c.Line):
			body = body[len(c.Line):]
		case c.Open != "" && strings.HasPrefix(body, c.Open):
			body = strings.TrimSuffix(body[len(c.Open):], c.Close)
		default:
			continue
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(body), "data:"); ok {
			return Pragma{Path: strings.TrimSpace(rest), Span: sp}, true
		}
	}
	return Pragma{}, false
}
