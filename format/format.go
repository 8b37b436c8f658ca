// Package format prints PACT, JQL and Datalog sources in their canonical
// form, in the manner of gofmt: no options, idempotent, comment-preserving,
// and meaning-preserving. A source that does not parse is never formatted.
//
// The printers are PACT (PACTDialect for a file read in a dialect other
// than v2), JQL and Datalog. Which printer a file gets, and in which PACT
// dialect, is decided by the language table: lang.Language.Format.
package format

import (
	"fmt"

	"github.com/ctxql/ctxql/syntax"
)

// SyntaxError reports that a source has parse errors and was not formatted.
type SyntaxError struct {
	Diagnostics []syntax.Diagnostic
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("source has %d syntax error(s)", len(e.Diagnostics))
}
