package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// CodeUnusedSuppression is the code of the warning for a suppression
// directive that suppresses nothing.
const CodeUnusedSuppression = "LINT001"

// directive is one suppression directive and whether it suppressed
// something.
type directive struct {
	lang.Directive
	used bool
}

// suppress removes the diagnostics that the file's directives suppress and
// adds a warning for every ignore or disable directive that suppresses
// nothing. Directives are those of the language table: only text inside a
// real comment of the file's language (and, when inComment is not nil,
// where it holds). Errors that make a query invalid (origin syntax or
// check) are never suppressed.
func suppress(p *lang.Parsed, diags []syntax.Diagnostic, inComment func(int) bool) []syntax.Diagnostic {
	var dirs []*directive
	for _, d := range p.Directives() {
		if inComment == nil || inComment(d.Span.Start) {
			dirs = append(dirs, &directive{Directive: d})
		}
	}
	if len(dirs) == 0 {
		return diags
	}
	f := p.File
	out := diags[:0:0]
	for _, d := range diags {
		if !lang.Suppressible(d) || !suppressed(f, dirs, d) {
			out = append(out, d)
		}
	}
	for _, d := range dirs {
		if !d.used && d.Kind != "enable" {
			out = append(out, syntax.Diagnostic{Span: d.Span, Severity: syntax.SeverityWarning, Code: CodeUnusedSuppression,
				Message: fmt.Sprintf("ctxql:%s %s suppresses nothing", d.Kind, strings.Join(d.Codes, ", ")),
				Tags:    []syntax.Tag{syntax.TagUnnecessary}})
		}
	}
	syntax.SortDiagnostics(out)
	return out
}

// suppressed reports whether a directive covers d, marking it used.
func suppressed(f *syntax.File, dirs []*directive, d syntax.Diagnostic) bool {
	line := f.LineOf(d.Span.Start)
	var open *directive // the innermost disable in force for d's code
	for _, dir := range dirs {
		if !slices.Contains(dir.Codes, d.Code) {
			continue
		}
		switch dir.Kind {
		case "ignore":
			if dir.Line == line {
				dir.used = true
				return true
			}
		case "disable":
			if dir.Span.Start <= d.Span.Start {
				open = dir
			}
		case "enable":
			if dir.Span.Start <= d.Span.Start {
				open = nil
			}
		}
	}
	if open != nil {
		open.used = true
		return true
	}
	return false
}
