package lang

import (
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/syntax/pact"
)

// Dialect is a PACT dialect; the tools hold it without importing the PACT
// front end.
type Dialect = pact.Dialect

// The PACT dialects. DialectUnset means "not specified": files default
// to V2.
const (
	DialectUnset = pact.DialectUnset
	V1           = pact.V1
	V2           = pact.V2
)

// ParseDialect reads a dialect name, "v1" or "v2": the one parser of the
// names the pragma, the configuration, the editor settings, the command
// line and the MCP arguments use. ok is false for anything else, the empty
// string included.
func ParseDialect(s string) (d Dialect, ok bool) { return pact.ParseDialect(s) }

// DialectNames returns the names of the PACT dialects, in order: the
// values the pragma, .ctxql.yaml's dialect.default, the editor settings,
// the command line and the MCP arguments accept. The caller gets its own
// slice.
func DialectNames() []string { return pact.DialectNames() }

// DialectError is the error of a dialect name ParseDialect refuses. It
// names no flag or setting: the caller says where the name came from.
type DialectError struct{ Name string }

// Error implements error.
func (e *DialectError) Error() string {
	return fmt.Sprintf("must be %s, not %q", strings.Join(DialectNames(), " or "), e.Name)
}

// DialectOr reads the dialect name s, or returns def when s is empty.
func DialectOr(s string, def Dialect) (Dialect, error) {
	if s == "" {
		return def, nil
	}
	if d, ok := ParseDialect(s); ok {
		return d, nil
	}
	return DialectUnset, &DialectError{Name: s}
}

// PragmaDialect returns the dialect a PACT file's own "// pact: vN"
// pragma names (and a host file's none); ok is false without one.
func (p *Parsed) PragmaDialect() (d Dialect, ok bool) {
	if f, isPACT := p.AST.(*pact.File); isPACT && f.Pragma != nil {
		return f.Dialect, true
	}
	return DialectUnset, false
}
