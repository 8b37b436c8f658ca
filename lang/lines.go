package lang

import (
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Line is one line of a file whose language parses every line on its own.
type Line struct {
	// Span is the line without its line break.
	Span syntax.Span
	// Comment marks a line after the first that holds only a comment and
	// is no pragma: it has nothing to find, and parsed alone it could be
	// read as a pragma.
	Comment bool
}

// Lines splits src, the text of a file of this language named name, into
// the lines the language parses each on its own, with the dialect the
// file's lines are read in: the pragma of its leading comment block, else
// def. The findings of such a line depend only on its text, whether it is
// the first line and the dialect, so a tool may find them line by line
// (parsing each line alone with Parse) and shift them into place.
//
// ok is false when the findings of a line depend on the lines around it:
// for every language but PACT, and for a PACT file with a pragma-like
// comment after a query or after another pragma (an error whose message
// depends on what stands before it). Such a file is analysed whole.
func (l *Language) Lines(name, src string, def Dialect) (lines []Line, d Dialect, ok bool) {
	if !l.lineLocal {
		return nil, def, false
	}
	marker := l.Comment(name).Line
	comment := func(trimmed string) bool { return marker != "" && strings.HasPrefix(trimmed, marker) }
	d = def
	seenQuery, seenPragma := false, false
	for start, n := 0, 0; start <= len(src); n++ {
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		text := src[start:end]
		trimmed := strings.TrimLeft(text, " \t")
		ln := Line{Span: syntax.Sp(start, end)}
		switch {
		case strings.TrimSpace(trimmed) == "":
		case comment(trimmed):
			// A comment line: the parser's own pragma recognition says
			// whether it reads as the dialect pragma.
			p := l.Parse(name, strings.TrimRight(trimmed, "\r"), def)
			if _, pragma := p.pragma(); pragma {
				if seenQuery || seenPragma {
					return nil, def, false
				}
				seenPragma = true
				if pd, valid := p.PragmaDialect(); valid && !syntax.HasErrors(p.Diagnostics) {
					d = pd
				}
			} else if n > 0 {
				ln.Comment = true
				ln.Span = syntax.Sp(end-len(trimmed), end)
			}
		default:
			seenQuery = true
		}
		lines = append(lines, ln)
		start = end + 1
	}
	return lines, d, true
}

// pragma reports whether a parsed PACT file has a dialect pragma, valid
// or not, in the place where it sets the dialect.
func (p *Parsed) pragma() (*pact.Pragma, bool) {
	f, ok := p.AST.(*pact.File)
	if !ok || f.Pragma == nil {
		return nil, false
	}
	return f.Pragma, true
}
