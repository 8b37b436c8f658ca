// Package analysistest checks rules against source files annotated with
// expectations, in the style of golang.org/x/tools/go/analysis/analysistest.
//
// A line expects diagnostics with a comment holding `want` followed by one or
// more quoted regular expressions:
//
//	.block:summary   // want "legacy type sugar" "another"
//
// Each diagnostic must start on a line whose expectations include a pattern
// matching its "CODE: message" text, and each pattern must be matched by
// exactly one diagnostic: unmatched diagnostics and unused expectations both
// fail the test. A `want` comment may also sit on its own line, where it
// applies to the next line that is not itself only a want comment.
package analysistest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// Expectation is one `want` pattern on a line.
type Expectation struct {
	Line    int // 1-based
	Pattern *regexp.Regexp
	used    bool
}

var wantRE = regexp.MustCompile(`(?://|#|<!--)\s*want\s+((?:"(?:[^"\\]|\\.)*"\s*)+)`)
var quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// ParseExpectations extracts the `want` expectations from src.
func ParseExpectations(src string) ([]*Expectation, error) {
	f := syntax.NewFile("", src)
	var out []*Expectation
	var pending []*Expectation // from want-only lines, for the next line
	for l := 0; l < f.LineCount(); l++ {
		line := f.Line(l)
		if l == f.LineCount()-1 && line == "" {
			break // the empty remainder after a final newline is not a line
		}
		m := wantRE.FindStringSubmatchIndex(line)
		if m == nil {
			for _, e := range pending {
				e.Line = l + 1
			}
			out = append(out, pending...)
			pending = nil
			continue
		}
		var exps []*Expectation
		for _, q := range quotedRE.FindAllString(line[m[2]:m[3]], -1) {
			s, err := strconv.Unquote(q)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad want string %s: %w", l+1, q, err)
			}
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("line %d: bad want pattern %q: %w", l+1, s, err)
			}
			exps = append(exps, &Expectation{Line: l + 1, Pattern: re})
		}
		if strings.TrimSpace(line[:m[0]]) == "" {
			pending = append(pending, exps...)
			continue
		}
		for _, e := range pending {
			e.Line = l + 1
		}
		out = append(out, pending...)
		pending = nil
		out = append(out, exps...)
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("want comment at end of file expects nothing")
	}
	return out, nil
}

// Match pairs diagnostics with expectations and returns one problem per
// unmatched diagnostic and per unused expectation, in line order.
func Match(f *syntax.File, diags []syntax.Diagnostic, exps []*Expectation) []string {
	var problems []string
	ds := slices.Clone(diags)
	syntax.SortDiagnostics(ds)
	for _, d := range ds {
		line := f.Position(d.Span.Start).Line
		text := d.Code + ": " + d.Message
		found := false
		for _, e := range exps {
			if !e.used && e.Line == line && e.Pattern.MatchString(text) {
				e.used, found = true, true
				break
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%s: unexpected diagnostic %s", f.Position(d.Span.Start), text))
		}
	}
	for _, e := range exps {
		if !e.used {
			problems = append(problems, fmt.Sprintf("%d: no diagnostic matched want %q", e.Line, e.Pattern))
		}
	}
	return problems
}

// ApplyFixes applies the first suggested fix of every diagnostic (skipping
// unsafe ones unless unsafe is true) and returns the new text, as one round
// of "ctxql check --fix" does; see syntax.ApplyFixes.
func ApplyFixes(src string, diags []syntax.Diagnostic, unsafe bool) (string, error) {
	return syntax.ApplyFixes(src, diags, unsafe)
}
