package pact

import (
	"slices"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// ParseFile parses a .pact file: one query per line, "//" comments (whole
// line or after a query; a "//" inside a quoted string is not a comment) and
// an optional pragma "// pact: v1" or "// pact: v2" that sets the dialect.
// The pragma stands in the leading comment block (the comment and blank
// lines before the first query, in any order); a second pragma there, or a
// "pact:" comment anywhere else, is an error, never an ordinary comment.
// Without a pragma the dialect is def (DialectUnset means V2).
//
// Every line is parsed on its own, so a file with several bad lines reports
// errors for each of them. Spans are byte offsets into the whole file.
func ParseFile(name, src string, def Dialect) *File { return parseFile(name, src, def, true, &Arena{}) }

// ParseFileTree is ParseFile without File.Tokens (left nil), for callers
// that read only the tree and the diagnostics, such as the formatter: the
// token list is as large as the tree.
func ParseFileTree(name, src string, def Dialect) *File {
	return parseFile(name, src, def, false, &Arena{})
}

// ParseFileTreeIn is ParseFileTree with the tree's memory taken from ar:
// the file is valid until ar.Reset.
func ParseFileTreeIn(ar *Arena, name, src string, def Dialect) *File {
	return parseFile(name, src, def, false, ar)
}

func parseFile(name, src string, def Dialect, tokens bool, ar *Arena) *File {
	if def == DialectUnset {
		def = V2
	}
	f := &File{Src: syntax.NewFile(name, src), Dialect: def}
	// Each line is lexed into one reused buffer; its tokens other than
	// whitespace are kept in f.Tokens once the parser has given them their
	// semantic kinds.
	if tokens {
		f.Tokens = make([]Token, 0, len(src)/3+4)
	}
	f.Queries = make([]*Query, 0, f.Src.LineCount())
	var (
		diags []syntax.Diagnostic
		p     parser
	)
	a, buf := &ar.a, ar.toks
	for i, line := 0, 0; ; line++ {
		var next int
		buf, next = lexLine(buf[:0], src, i, true)
		buf = slices.Grow(buf, 1) // room for the parser's end token
		diags = f.parseLine(&p, src, buf, line, diags, a)
		if tokens {
			for _, t := range buf {
				if t.kind != lSpace {
					f.Tokens = append(f.Tokens, Token{Kind: t.sem, Sp: t.span()})
				}
			}
		}
		if next == len(src) && (next == i || src[next-1] != '\n') {
			break
		}
		i = next
	}
	ar.toks = buf[:0]
	if len(f.Queries) == 0 {
		f.Queries = nil
	}
	f.Diagnostics = diags
	return f
}

// parseLine handles the tokens of one line (without its newline).
func (f *File) parseLine(p *parser, src string, toks []tok, line int, diags []syntax.Diagnostic, a *arena) []syntax.Diagnostic {
	q := toks
	// A comment runs to the end of the line: it can only be the last token.
	if k := len(toks) - 1; k >= 0 && toks[k].kind == lComment {
		t := toks[k]
		q = toks[:k]
		c := alloc(&a.comment, Comment{Sp: t.span(), Text: src[t.start:t.end]})
		f.Comments = append(f.Comments, c)
		blank := onlySpace(q)
		if pr, d, ok := parsePragma(c); ok {
			toks[k].sem = TokenPragma
			switch {
			case !blank || len(f.Queries) > 0:
				diags = append(diags, misplacedPragma(pr, "the pact pragma must stand in the comment block before the first query; here it would be an ordinary comment"))
			case f.Pragma != nil:
				diags = append(diags, misplacedPragma(pr, "a second pact pragma; the file's dialect is set once"))
			default:
				f.Pragma = pr
				if d != nil {
					diags = append(diags, *d)
				} else {
					f.Dialect = pr.Dialect
				}
			}
		}
	}
	if onlySpace(q) {
		return diags
	}
	end := q[len(q)-1].end
	// The parser's end token goes just after the query's tokens, where the
	// comment token, if any, is put back afterwards (toks has the room).
	n := len(q)
	all := toks[:n+1]
	saved := all[n]
	all[n] = tok{kind: lEOF, start: end, end: end}
	*p = parser{src: src, toks: all[:n], all: all, d: f.Dialect, end: end, diags: diags, diag0: len(diags), a: a}
	f.Queries = append(f.Queries, p.parseQuery())
	all[n] = saved
	return p.diags
}

func onlySpace(toks []tok) bool {
	for _, t := range toks {
		if t.kind != lSpace {
			return false
		}
	}
	return true
}

// parsePragma recognises "// pact: vN". ok is false for ordinary comments;
// an unknown version yields a diagnostic.
func parsePragma(c *Comment) (*Pragma, *syntax.Diagnostic, bool) {
	body := strings.TrimPrefix(c.Text, "//")
	trimmed := strings.TrimLeft(body, " \t")
	if !strings.HasPrefix(trimmed, "pact:") {
		return nil, nil, false
	}
	rest := trimmed[len("pact:"):]
	val := strings.TrimSpace(rest)
	valStart := c.Sp.End - len(strings.TrimLeft(rest, " \t\r"))
	pr := &Pragma{Sp: c.Sp, ValueSpan: syntax.Sp(valStart, valStart+len(val))}
	if d, ok := ParseDialect(val); ok {
		pr.Dialect = d
	} else {
		d := syntax.Errorf(pr.ValueSpan, "expected a dialect \"v1\" or \"v2\" in the pact pragma, found %q", val)
		d.Code = CodeSyntax
		return pr, &d, true
	}
	return pr, nil, true
}

// misplacedPragma is the error of a pragma that cannot set the dialect.
func misplacedPragma(pr *Pragma, msg string) syntax.Diagnostic {
	d := syntax.Errorf(pr.Sp, "%s", msg)
	d.Code = CodeSyntax
	return d
}
