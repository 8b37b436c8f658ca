package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// CodeUnusedSuppression is the code of the warning for a suppression
// directive that suppresses nothing.
const CodeUnusedSuppression = "LINT001"

// directiveRE matches a suppression directive inside a comment:
// "ctxql:ignore CODE[, CODE] -- reason", "ctxql:disable CODE", "ctxql:enable CODE".
var directiveRE = regexp.MustCompile(`(?://|#|<!--)\s*ctxql:(ignore|disable|enable)\s+([A-Za-z]+[0-9]{3}(?:\s*,\s*[A-Za-z]+[0-9]{3})*)`)

// directive is one suppression comment.
type directive struct {
	kind  string   // ignore, disable or enable
	codes []string // upper case
	span  syntax.Span
	line  int // 0-based line the directive applies to (ignore)
	used  bool
}

// suppress removes the diagnostics that directives in the file suppress and
// adds a warning for every ignore or disable directive that suppresses
// nothing. Parse errors cannot be suppressed. inComment reports whether an
// offset lies in a comment of the file's language, so that directive text
// inside a string is not a directive.
func suppress(f *syntax.File, diags []syntax.Diagnostic, inComment func(off int) bool) []syntax.Diagnostic {
	if !strings.Contains(f.Text(), "ctxql:") {
		return diags // no directive anywhere
	}
	var dirs []*directive
	for l := 0; l < f.LineCount(); l++ {
		line := f.Line(l)
		if !strings.Contains(line, "ctxql:") {
			continue
		}
		m := directiveRE.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		start := f.LineStart(l)
		if inComment != nil && !inComment(start+m[0]) {
			continue
		}
		d := &directive{kind: line[m[2]:m[3]], span: syntax.Sp(start+m[0], start+m[1]), line: l}
		for _, c := range strings.Split(line[m[4]:m[5]], ",") {
			d.codes = append(d.codes, strings.ToUpper(strings.TrimSpace(c)))
		}
		if d.kind == "ignore" && strings.TrimSpace(line[:m[0]]) == "" && l+1 < f.LineCount() {
			d.line = l + 1 // a directive alone on its line applies to the next line
		}
		dirs = append(dirs, d)
	}
	if len(dirs) == 0 {
		return diags
	}
	out := diags[:0:0]
	for _, d := range diags {
		if isParseError(d) || !suppressed(f, dirs, d) {
			out = append(out, d)
		}
	}
	for _, d := range dirs {
		if !d.used && d.kind != "enable" {
			out = append(out, syntax.Diagnostic{Span: d.span, Severity: syntax.SeverityWarning, Code: CodeUnusedSuppression,
				Message: fmt.Sprintf("ctxql:%s %s suppresses nothing", d.kind, strings.Join(d.codes, ", ")),
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
		if !slices.Contains(dir.codes, d.Code) {
			continue
		}
		switch dir.kind {
		case "ignore":
			if dir.line == line {
				dir.used = true
				return true
			}
		case "disable":
			if dir.span.Start <= d.Span.Start {
				open = dir
			}
		case "enable":
			if dir.span.Start <= d.Span.Start {
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
