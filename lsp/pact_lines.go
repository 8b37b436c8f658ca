package lsp

import (
	"context"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// PACT parses every line on its own, so the findings of a line depend only
// on its text and the file's dialect. lineCache keeps them per (dialect,
// text), relative to the line's start: a new version of a document is
// diagnosed by looking its lines up, parsing and checking only the lines an
// edit changed, and shifting the findings to their lines' offsets.
type lineCache struct {
	mu    sync.Mutex
	lines map[lineKey]lineFindings
}

type lineKey struct {
	dialect lang.Dialect
	first   bool // the first line, where a comment may be the pragma
	text    string
}

// lineFindings are one line's findings and comment spans, relative to the
// line's start.
type lineFindings struct {
	diags    []syntax.Diagnostic
	comments []syntax.Span
}

// maxCachedLines bounds the cache; it is emptied when full.
const maxCachedLines = 200_000

func (c *lineCache) get(k lineKey) (lineFindings, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.lines[k]
	return v, ok
}

func (c *lineCache) put(k lineKey, v lineFindings) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lines == nil || len(c.lines) >= maxCachedLines {
		c.lines = map[lineKey]lineFindings{}
	}
	c.lines[k] = v
}

// analyzeLine parses and checks one line as a file of its own.
func analyzeLine(ctx context.Context, l *lint.Linter, k lineKey) lineFindings {
	p := lang.ByID(lang.PACT).Parse("line.pact", k.text, k.dialect)
	var lf lineFindings
	if l != nil {
		lf.diags = l.Findings(ctx, p.File, p.AST)
	} else {
		lf.diags = p.Diagnostics
	}
	lf.comments = p.Comments()
	return lf
}

// pactDiagnostics computes a document's PACT diagnostics line by line
// through the cache. The result equals Analyze on the whole file
// (TestLineDiagnosticsMatchFile).
func (c *lineCache) pactDiagnostics(ctx context.Context, l *lint.Linter, s *Snapshot, dialect lang.Dialect) []syntax.Diagnostic {
	text := s.File.Text()
	// The file's dialect: the pragma of its leading comment block, else
	// the default. A pragma after a query, or a second one, is an error
	// that depends on the lines around it: such a file is analysed whole.
	dialect, whole := headerDialect(text, dialect)
	if whole {
		p := lang.ByID(lang.PACT).Parse(s.File.Name(), text, dialect)
		if l == nil {
			return p.Diagnostics
		}
		return l.Analyze(ctx, s.File, p.AST)
	}
	seenQuery := false
	var diags []syntax.Diagnostic
	var comments []syntax.Span
	for start, line := 0, 0; start <= len(text); line++ {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		k := lineKey{dialect: dialect, first: line == 0, text: text[start:end]}
		trimmed := strings.TrimLeft(k.text, " \t")
		pragma := !seenQuery && pragmaLine(trimmed)
		seenQuery = seenQuery || trimmed != "" && !strings.HasPrefix(trimmed, "//")
		if line > 0 && strings.HasPrefix(trimmed, "//") && !pragma {
			// A comment line: nothing to find, and parsed alone it could be
			// taken for a pragma.
			comments = append(comments, syntax.Sp(start+len(k.text)-len(strings.TrimLeft(k.text, " \t")), end))
		} else if strings.TrimSpace(k.text) != "" {
			lf, ok := c.get(k)
			if !ok {
				lf = analyzeLine(ctx, l, k)
				if ctx.Err() != nil {
					return nil
				}
				c.put(k, lf)
			}
			for _, d := range lf.diags {
				diags = append(diags, d.Shifted(start))
			}
			for _, sp := range lf.comments {
				comments = append(comments, sp.Shift(start))
			}
		}
		start = end + 1
	}
	syntax.SortDiagnostics(diags)
	if l == nil {
		return diags
	}
	inComment := func(off int) bool {
		for _, sp := range comments {
			if sp.Start <= off && off < sp.End {
				return true
			}
		}
		return false
	}
	return l.Finish(s.File, diags, inComment)
}

// pragmaLine reports whether a line (without its leading blanks) is a
// comment that reads as the "// pact: vN" pragma.
func pragmaLine(trimmed string) bool {
	rest, ok := strings.CutPrefix(trimmed, "//")
	return ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), "pact:")
}

// headerDialect returns the dialect the pragma of the leading comment
// block sets (def when there is none or it is invalid), and whole when a
// pragma-like comment line stands after a query or after another pragma.
func headerDialect(text string, def lang.Dialect) (d lang.Dialect, whole bool) {
	d = def
	seenQuery, seenPragma := false, false
	for line := range strings.Lines(text) {
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case strings.TrimSpace(trimmed) == "":
		case pragmaLine(trimmed):
			if seenQuery || seenPragma {
				return d, true
			}
			seenPragma = true
			p := lang.ByID(lang.PACT).Parse("", strings.TrimRight(trimmed, "\r\n"), def)
			if pd, ok := p.PragmaDialect(); ok && !syntax.HasErrors(p.Diagnostics) {
				d = pd
			}
		case strings.HasPrefix(trimmed, "//"):
		default:
			seenQuery = true
		}
	}
	return d, false
}
