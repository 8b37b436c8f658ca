package lsp

import (
	"context"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// A language that parses every line on its own (PACT; lang.Language.Lines)
// has findings per line that depend only on the line's text and the file's
// dialect. lineCache keeps them per (language, dialect, text), relative to
// the line's start: a new version of a document is
// diagnosed by looking its lines up, parsing and checking only the lines an
// edit changed, and shifting the findings to their lines' offsets.
type lineCache struct {
	mu    sync.Mutex
	lines map[lineKey]lineFindings
}

type lineKey struct {
	lang    *lang.Language
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
func analyzeLine(ctx context.Context, l *lint.Linter, name string, k lineKey) lineFindings {
	p := k.lang.Parse(name, k.text, k.dialect)
	var lf lineFindings
	if l != nil {
		lf.diags = l.Findings(ctx, p.File, p.AST)
	} else {
		lf.diags = p.Diagnostics
	}
	lf.comments = p.Comments()
	return lf
}

// lineDiagnostics computes a document's diagnostics line by line through
// the cache, for a language that parses every line on its own
// (lang.Language.Lines); ok is false for a document whose lines depend on
// each other. The result equals Analyze on the whole file
// (TestLineDiagnosticsMatchFile).
func (c *lineCache) lineDiagnostics(ctx context.Context, l *lint.Linter, s *Snapshot, def lang.Dialect) (ds []syntax.Diagnostic, ok bool) {
	tl := tableOf(s)
	if tl == nil {
		return nil, false
	}
	text := s.File.Text()
	lines, dialect, ok := tl.Lines(s.File.Name(), text, def)
	if !ok {
		return nil, false
	}
	var diags []syntax.Diagnostic
	var comments []syntax.Span
	for i, ln := range lines {
		if ln.Comment {
			comments = append(comments, ln.Span)
			continue
		}
		k := lineKey{lang: tl, dialect: dialect, first: i == 0, text: text[ln.Span.Start:ln.Span.End]}
		if strings.TrimSpace(k.text) == "" {
			continue
		}
		lf, found := c.get(k)
		if !found {
			lf = analyzeLine(ctx, l, s.File.Name(), k)
			if ctx.Err() != nil {
				return nil, true
			}
			c.put(k, lf)
		}
		for _, d := range lf.diags {
			diags = append(diags, d.Shifted(ln.Span.Start))
		}
		for _, sp := range lf.comments {
			comments = append(comments, sp.Shift(ln.Span.Start))
		}
	}
	syntax.SortDiagnostics(diags)
	if l == nil {
		return diags, true
	}
	inComment := func(off int) bool {
		for _, sp := range comments {
			if sp.Start <= off && off < sp.End {
				return true
			}
		}
		return false
	}
	return l.Finish(s.File, diags, inComment), true
}
