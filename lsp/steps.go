package lsp

import (
	"context"
	"fmt"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Where a query's results went: the candidate count after each step and
// filter of a PACT query, the documents left after each where condition of
// a JQL query. Both come from the evaluators' own explain runs over the
// sample data, once per query and snapshot, within the run timeout; they
// are shown as inlay hints (the "inlayHints.steps" setting turns them off)
// and name the step that emptied a query in its "matches nothing"
// diagnostic.

// step is the count after one step of a query.
type step struct {
	Span  syntax.Span // the step in the document
	Text  string      // the step on one line
	Count int         // candidates or documents left after it
	// At is where the step's hint goes (the end of the step).
	At int
}

// stepTrace is the explanation of one query over the sample data.
type stepTrace struct {
	Steps []step
	// Emptied indexes the step that left nothing, -1 when none did.
	Emptied int
	// Noun names what the steps count: "candidates" or "documents".
	Noun string
}

// emptiedBy returns the step that left nothing, if any.
func (t *stepTrace) emptiedBy() (step, bool) {
	if t == nil || t.Emptied < 0 || t.Emptied >= len(t.Steps) {
		return step{}, false
	}
	return t.Steps[t.Emptied], true
}

// stepHintsOn reports whether the inlayHints.steps setting allows step
// hints (they are on unless set to false).
func stepHintsOn(s *Snapshot) bool {
	return s.Workspace != nil && !s.Workspace.settings().NoStepHints
}

// traced returns the explanation of the query at q, computed by f under
// the run timeout and cached, as evaluations are, by the query's text,
// dialect and data version; an explanation cut short by cancellation is
// not kept. nil means the query has none (no data, a syntax error, a
// snapshot range, the timeout).
func traced(ctx context.Context, s *Snapshot, kind string, q syntax.Span, dialect int, f func(ctx context.Context, path string) *stepTrace) *stepTrace {
	if s.Workspace == nil {
		return nil
	}
	path := s.Workspace.DataPath(s)
	if path == "" {
		return nil
	}
	id, err := s.dataID(path)
	if err != nil {
		return nil
	}
	key := evalKey{kind: kind, data: id.String(), path: path, dialect: dialect, text: s.File.Slice(q)}
	v, err := s.Workspace.evals.traces.get(ctx, &s.Workspace.evals, key, func(ctx context.Context) (tracedAt, bool) {
		rctx, cancel := context.WithTimeout(ctx, s.runTimeout())
		defer cancel()
		return tracedAt{f(rctx, path), q.Start}, true
	})
	if err != nil {
		return nil
	}
	return v.at(q.Start)
}

// tracedAt is a cached explanation with the offset of the query it was
// computed for.
type tracedAt struct {
	t     *stepTrace
	start int
}

// at returns the explanation moved to a query starting at start.
func (t tracedAt) at(start int) *stepTrace {
	if t.t == nil || start == t.start {
		return t.t
	}
	d := start - t.start
	out := &stepTrace{Emptied: t.t.Emptied, Noun: t.t.Noun, Steps: make([]step, len(t.t.Steps))}
	for i, st := range t.t.Steps {
		st.Span, st.At = st.Span.Shift(d), st.At+d
		out.Steps[i] = st
	}
	return out
}

// Trace explains the PACT query starting at start (pactTrace).
func (pactLanguage) Trace(ctx context.Context, s *Snapshot, start int) *stepTrace {
	return pactTrace(ctx, s, start)
}

// Trace explains the JQL query starting at start (jqlTrace).
func (jqlLanguage) Trace(ctx context.Context, s *Snapshot, start int) *stepTrace {
	return jqlTrace(ctx, s, start)
}

// pactTrace explains the PACT query starting at start over its sample data.
func pactTrace(ctx context.Context, s *Snapshot, start int) *stepTrace {
	return tableTrace(ctx, s, start, "pact-trace", "candidates")
}

// jqlTrace explains the JQL query of the document starting at start. Its
// steps are the domain ("from"), each where condition and the startAfter
// cursor.
func jqlTrace(ctx context.Context, s *Snapshot, start int) *stepTrace {
	return tableTrace(ctx, s, start, "jql-trace"+jqlFormat(s), "documents")
}

// tableTrace explains the query of the document starting at start through
// the language table (lang.Language.Explain): each step of the
// explanation with a position, with its span in the document. noun names
// what the counts count.
func tableTrace(ctx context.Context, s *Snapshot, start int, kind, noun string) *stepTrace {
	p := parsedOf(s)
	if p == nil {
		return nil
	}
	var q *lang.QuerySpan
	for _, c := range p.Queries() {
		if c.Span.Start == start {
			q = &c
		}
	}
	if q == nil {
		return nil
	}
	return traced(ctx, s, kind, q.Span, int(p.Dialect), func(ctx context.Context, path string) *stepTrace {
		data, err := s.Workspace.loadData(ctx, p.Lang, path)
		if err != nil {
			return nil
		}
		e, err := p.Lang.Explain(ctx, data, lang.Query{Name: s.File.Name(), Src: q.Text, Dialect: p.Dialect}, lang.Explain{})
		if err != nil || e.Invalid() {
			return nil
		}
		t := &stepTrace{Emptied: -1, Noun: noun}
		for i, st := range e.Steps {
			if st.At < 0 || st.End < st.At {
				continue
			}
			if i == e.Emptied {
				t.Emptied = len(t.Steps)
			}
			sp := syntax.Sp(q.Span.Start+st.At, q.Span.Start+st.End)
			t.Steps = append(t.Steps, step{Span: sp, Text: st.Text, Count: st.Count, At: sp.End})
		}
		return t
	})
}

// stepHints labels the steps of the queries inside span with their counts
// ("1 →" after ^seq, "400 →" after .mt; "12 left" after a where
// condition). A step ending where its query ends gets no hint: the query's
// result count stands there.
func stepHints(ctx context.Context, s *Snapshot, spans []syntax.Span, span syntax.Span, trace func(context.Context, *Snapshot, int) *stepTrace) []InlayHint {
	if !stepHintsOn(s) || s.Workspace.DataPath(s) == "" {
		return nil
	}
	var out []InlayHint
	for _, sp := range spans {
		if sp.End < span.Start || sp.Start > span.End || ctx.Err() != nil {
			continue
		}
		t := trace(ctx, s, sp.Start)
		if t == nil {
			continue
		}
		for i, st := range t.Steps {
			if st.At >= sp.End || st.At < span.Start || st.At > span.End {
				continue
			}
			h := InlayHint{Offset: st.At, PaddingLeft: true,
				Tooltip: fmt.Sprintf("%d %s left after %s", st.Count, t.Noun, st.Text)}
			if t.Noun == "candidates" {
				h.Label, h.PaddingRight = fmt.Sprintf("%d →", st.Count), true
			} else {
				h.Label = fmt.Sprintf("%d left", st.Count)
			}
			if i == t.Emptied {
				h.Tooltip += " (this step emptied the query)"
			}
			out = append(out, h)
		}
	}
	return out
}

// emptiedRelated names the step that emptied a query in its "matches
// nothing" diagnostic: the message gains the step and the diagnostic a
// related-information link to it.
func emptiedRelated(d *syntax.Diagnostic, t *stepTrace) {
	st, ok := t.emptiedBy()
	if !ok {
		return
	}
	msg := fmt.Sprintf("%s left no %s", st.Text, t.Noun)
	if t.Emptied > 0 {
		msg += fmt.Sprintf(" (%d before it)", t.Steps[t.Emptied-1].Count)
	}
	d.Message += ": " + msg
	d.Related = append(d.Related, syntax.RelatedInfo{Span: st.Span, Message: msg})
}

// withStep appends to a hover the count after the step of a query under
// off ("**2** candidates left after `.mt`"), when the document has sample
// data and the step is explained.
func withStep(ctx context.Context, s *Snapshot, spans []syntax.Span, off int, trace func(context.Context, *Snapshot, int) *stepTrace, md string, sp syntax.Span, ok bool) (string, syntax.Span, bool) {
	if !ok || s.Workspace == nil || s.Workspace.DataPath(s) == "" {
		return md, sp, ok
	}
	for _, q := range spans {
		if !q.Touches(off) {
			continue
		}
		t := trace(ctx, s, q.Start)
		if t == nil {
			return md, sp, ok
		}
		for i, st := range t.Steps {
			if st.Span.Start <= off && off < st.Span.End {
				line := fmt.Sprintf("Sample data: **%d** %s left after `%s`", st.Count, t.Noun, st.Text)
				if i == t.Emptied {
					line += " — this step emptied the query"
				}
				return md + "\n\n---\n\n" + line, sp, ok
			}
		}
	}
	return md, sp, ok
}
