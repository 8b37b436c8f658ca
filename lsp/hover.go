package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxql/ctxql/lint"
	"github.com/ctxql/ctxql/syntax"
)

// Hoverer explains the construct at a byte offset (textDocument/hover).
// It returns Markdown and the span it describes; ok is false when there is
// nothing to say.
type Hoverer interface {
	Hover(ctx context.Context, s *Snapshot, off int) (markdown string, span syntax.Span, ok bool)
}

func (s *server) hover(ctx context.Context, params json.RawMessage) (any, error) {
	snap, off, err := s.positionParams(params)
	if err != nil {
		return nil, err
	}
	h, ok := snap.Lang.(Hoverer)
	if !ok {
		return nil, nil
	}
	md, sp, ok := h.Hover(ctx, snap, off)
	if !ok {
		return nil, nil
	}
	r := s.rangeOf(snap.File, sp)
	return struct {
		Contents markupContent `json:"contents"`
		Range    Range         `json:"range"`
	}{markupContent{Kind: "markdown", Value: md}, r}, nil
}

// withCount appends to a hover the result count of the query at off over
// the sample data, when the document has data.
func withCount(ctx context.Context, s *Snapshot, off int, md string, sp syntax.Span, ok bool) (string, syntax.Span, bool) {
	r, found := run(ctx, s, off)
	if !found {
		if hint, none := noDataHint(s); none && ok {
			md += "\n\n---\n\n" + hint
		}
		return md, sp, ok
	}
	line := fmt.Sprintf("Sample data: **%d** result(s) in %.1f ms", r.Count, float64(r.Elapsed.Microseconds())/1000)
	if r.Err != nil {
		line = fmt.Sprintf("Sample data: %v", r.Err)
	}
	if !ok {
		return line, r.Span, true
	}
	return md + "\n\n---\n\n" + line, sp, true
}

// noDataHint is the hover line of a document without sample data, saying
// how to name some; none is false when the document has data.
func noDataHint(s *Snapshot) (hint string, none bool) {
	if s.Workspace == nil || s.Workspace.DataPath(s) != "" {
		return "", false
	}
	return "*No sample data: add a `// data: ./sample.json` line (or a `data` setting) to see result counts.*", true
}

// withRuleDocs appends to a hover the documentation of the rules whose
// findings cover off.
func withRuleDocs(l *lint.Linter, diags []syntax.Diagnostic, off int, md string, sp syntax.Span, ok bool) (string, syntax.Span, bool) {
	if l == nil {
		return md, sp, ok
	}
	for _, d := range diags {
		if d.Code == "" || lint.IsParseError(d) || !(d.Span.Contains(off) || d.Span.End == off) {
			continue
		}
		a, found := l.Registry().Lookup(d.Code)
		if !found {
			continue
		}
		doc := fmt.Sprintf("**%s** %s: %s\n\n[rule documentation](%s)", a.Code, a.Name, a.Doc.Summary, lint.RuleURL(a.Code))
		if ok {
			md += "\n\n---\n\n" + doc
		} else {
			md, sp, ok = doc, d.Span, true
		}
	}
	return md, sp, ok
}
