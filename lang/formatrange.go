package lang

import (
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// FormatRange formats the PACT queries on the lines span touches, each as
// the whole-file formatter would (under the file's pragma), leaving the
// other lines alone. A file with syntax errors is not formatted: the
// error is a *SyntaxError. Other languages return ErrUnsupported.
func (p *Parsed) FormatRange(span syntax.Span) ([]syntax.TextEdit, error) {
	pf, ok := p.AST.(*pact.File)
	if !ok {
		return nil, ErrUnsupported
	}
	if syntax.HasErrors(pf.Diagnostics) {
		return nil, &SyntaxError{Diagnostics: pf.Diagnostics}
	}
	header := "// pact: " + pf.Dialect.String() + "\n"
	edits := []syntax.TextEdit{}
	first, last := p.File.LineOf(span.Start), p.File.LineOf(max(span.End-1, span.Start))
	for line := first; line <= last; line++ {
		start, end := p.File.LineStart(line), p.File.LineEnd(line)
		text := p.File.Text()[start:end]
		if strings.TrimSpace(text) == "" || (line == 0 && pf.Pragma != nil) {
			continue
		}
		out, err := ByID(PACT).Format(p.File.Name(), []byte(header+text), pf.Dialect)
		if err != nil {
			return nil, err
		}
		got := strings.TrimSuffix(strings.TrimPrefix(string(out), header), "\n")
		if got != text {
			edits = append(edits, syntax.TextEdit{Span: syntax.Sp(start, end), NewText: got})
		}
	}
	return edits, nil
}
