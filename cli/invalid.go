package cli

import (
	"fmt"
	"io"

	"github.com/ctxql/ctxql/syntax"
)

// reportInvalid is the one report of a query's diagnostics on the command
// line, for every language: each diagnostic on a line of w as
// "[prefix]line:col: message" (an error as the table formats it, with its
// code where the language gives one; a warning or a hint marked as such),
// prefix naming where the query came from ("rules.dl:"; "" for a query
// given as an argument). When one is an error the query is invalid: the
// command fails with exit status 1.
func reportInvalid(w io.Writer, prefix string, f *syntax.File, ds []syntax.Diagnostic) error {
	for _, d := range ds {
		if d.Severity == syntax.SeverityError {
			fmt.Fprintf(w, "%s%s\n", prefix, d.Format(f))
		} else {
			fmt.Fprintf(w, "%s%s: %s: %s\n", prefix, f.Position(d.Span.Start), d.Severity, d.Message)
		}
	}
	if syntax.HasErrors(ds) {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}
