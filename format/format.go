// Package format prints PACT, JQL and Datalog sources in their canonical
// form, in the manner of gofmt: no options, idempotent, comment-preserving,
// and meaning-preserving. A source that does not parse is never formatted.
package format

import (
	"errors"
	"fmt"

	"github.com/ctxql/ctxql/syntax"
)

// ErrUnsupported reports a file name whose extension names no language the
// formatter knows.
var ErrUnsupported = errors.New("unsupported file type")

// SyntaxError reports that a source has parse errors and was not formatted.
type SyntaxError struct {
	Diagnostics []syntax.Diagnostic
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("source has %d syntax error(s)", len(e.Diagnostics))
}

// PACT formats a .pact file.
func PACT(src []byte) ([]byte, error) { return nil, fmt.Errorf("pact: %w", ErrUnsupported) }

// JQL formats a JQL document; name decides between JSON and YAML text forms.
func JQL(name string, src []byte) ([]byte, error) {
	return nil, fmt.Errorf("jql: %w", ErrUnsupported)
}

// Datalog formats a Datalog program.
func Datalog(src []byte) ([]byte, error) { return nil, fmt.Errorf("datalog: %w", ErrUnsupported) }

// Source formats src according to the extension of name.
func Source(name string, src []byte) ([]byte, error) {
	return nil, fmt.Errorf("%s: %w", name, ErrUnsupported)
}
