//go:build !js

package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/internal/junit"
	"github.com/ctxql/ctxql/syntax"
)

// writeJUnit prints one test suite per file: one failing test case per
// error or warning, one passing case for a file without them.
func writeJUnit(w io.Writer, fs []Finding, opts Options) error {
	byPath := map[string][]Finding{}
	paths := append([]string(nil), opts.Files...)
	for _, x := range fs {
		if _, ok := byPath[x.Path]; !ok {
			paths = append(paths, x.Path)
		}
		byPath[x.Path] = append(byPath[x.Path], x)
	}
	sort.Strings(paths)
	paths = compactStrings(paths)
	out := &junitSuites{Name: opts.Tool}
	for _, p := range paths {
		suite := junit.Suite{Name: p}
		for _, x := range byPath[p] {
			if x.Diag.Severity != syntax.SeverityError && x.Diag.Severity != syntax.SeverityWarning {
				continue
			}
			s := x.File.Position(x.Diag.Span.Start)
			var frame strings.Builder
			fmt.Fprintf(&frame, "%s:%d:%d: %s\n", p, s.Line, s.Column, x.Diag.Message)
			writeFrame(&frame, x.File, x.Diag.Span)
			suite.Cases = append(suite.Cases, junit.Case{
				Name:      fmt.Sprintf("%s %d:%d", x.Diag.Code, s.Line, s.Column),
				ClassName: opts.Tool + "." + x.Diag.Code,
				Failure:   &junit.Problem{Message: x.Diag.Message, Type: SeverityName(x.Diag.Severity), Text: frame.String()},
			})
		}
		if len(suite.Cases) == 0 {
			suite.Cases = append(suite.Cases, junit.Case{Name: "clean", ClassName: opts.Tool})
		}
		out.Suites = append(out.Suites, suite)
	}
	return junit.Write(w, out)
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// junitSuites is the JUnit document writeJUnit fills.
type junitSuites = junit.Suites
