// Package migrate rewrites legacy and deprecated PACT forms into canonical
// v2 queries on the syntax tree, never by text substitution.
package migrate

import (
	"errors"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Options controls a migration.
type Options struct {
	ToV2    bool         // also rewrite v1 selectors into v2 queries
	Default pact.Dialect // dialect of files without a pragma
}

// Result is the outcome of migrating one file.
type Result struct {
	Output  []byte
	Changed bool
	Edits   []syntax.TextEdit
	Manual  []syntax.Diagnostic // places that need a manual check; left unchanged
}

// PACT migrates one .pact source.
func PACT(src []byte, opts Options) (Result, error) {
	return Result{}, errors.New("migrate: not implemented")
}
