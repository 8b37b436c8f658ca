// Package format prints PACT, JQL and Datalog sources in their canonical
// form, in the manner of gofmt: no options, idempotent, comment-preserving,
// and meaning-preserving. A source that does not parse is never formatted.
package format

import (
	"errors"
	"fmt"
	"strings"

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

// Source formats src according to the extension of name: .pact, .jql,
// .jql.json, .jql.yaml, .jql.yml or .dl.
func Source(name string, src []byte) ([]byte, error) {
	switch language(name) {
	case "pact":
		return PACT(src)
	case "jql":
		return JQL(name, src)
	case "datalog":
		return Datalog(src)
	}
	return nil, fmt.Errorf("%s: %w", name, ErrUnsupported)
}

// Supported reports whether Source knows the language of a file name.
func Supported(name string) bool { return language(name) != "" }

func language(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasSuffix(n, ".pact"):
		return "pact"
	case strings.HasSuffix(n, ".jql"), strings.HasSuffix(n, ".jql.json"), strings.HasSuffix(n, ".jql.yaml"), strings.HasSuffix(n, ".jql.yml"):
		return "jql"
	case strings.HasSuffix(n, ".dl"):
		return "datalog"
	}
	return ""
}
