package host

import (
	"fmt"

	"github.com/ctxql/ctxql/syntax"
)

// Rewrite applies edits, given in offsets of Value, to Value and returns a
// single host edit that replaces the whole literal with Quote of the result,
// so escapes are always re-encoded correctly.
func (l Literal) Rewrite(edits []syntax.TextEdit) (syntax.TextEdit, error) {
	v, err := syntax.ApplyEdits(l.Value, edits)
	if err != nil {
		return syntax.TextEdit{}, fmt.Errorf("rewrite embedded query: %w", err)
	}
	return syntax.TextEdit{Span: l.Span, NewText: l.Quote(v)}, nil
}

// MapDiagnostic maps a diagnostic computed on Value to the host file: its
// span and related spans through HostSpan, and each suggested fix to one
// edit replacing the literal (Rewrite). A fix whose edits do not apply to
// Value is dropped. The input is not modified.
func (l Literal) MapDiagnostic(d syntax.Diagnostic) syntax.Diagnostic {
	out := d
	out.Span = l.HostSpan(d.Span)
	out.Related = nil
	for _, r := range d.Related {
		r.Span = l.HostSpan(r.Span)
		out.Related = append(out.Related, r)
	}
	out.SuggestedFixes = nil
	for _, f := range d.SuggestedFixes {
		e, err := l.Rewrite(f.TextEdits)
		if err != nil {
			continue
		}
		f.TextEdits = []syntax.TextEdit{e}
		out.SuggestedFixes = append(out.SuggestedFixes, f)
	}
	return out
}
