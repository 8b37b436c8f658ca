package lang

import (
	"errors"
	"fmt"

	"github.com/ctxql/ctxql/migrate"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// MigrateOptions controls a migration.
type MigrateOptions struct {
	// From is the dialect of a file without a pragma, as Settings
	// resolves it (DialectUnset: v2).
	From Dialect
	// To is the dialect to convert into: V2 converts a v1 file; unset
	// only rewrites the legacy forms of a v2 file.
	To Dialect
	// Unsafe also applies rewrites that may change a result.
	Unsafe bool
}

// Migration is the outcome of migrating one file.
type Migration struct {
	Output  []byte
	Changed bool
	// Dialect is the dialect the output is read in.
	Dialect Dialect
	Edits   []syntax.TextEdit   // against the input, sorted, not overlapping
	Manual  []syntax.Diagnostic // places left for a manual decision
}

// ParseError reports a source that does not parse: it is not migrated.
// File and Diagnostics locate the errors.
type ParseError struct {
	File        *syntax.File
	Diagnostics []syntax.Diagnostic
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s has %d syntax error(s)", e.File.Name(), len(syntax.Invalid(e.Diagnostics)))
}

// CanMigrate reports whether the language has migrations (PACT).
func (l *Language) CanMigrate() bool { return l.ID == PACT }

// Migrate rewrites the legacy forms of the file src named name and, with
// To set, converts it into that dialect. The output always parses in the
// dialect it declares (Migration.Dialect); a source with syntax errors is
// refused with a *ParseError.
func (l *Language) Migrate(name string, src []byte, o MigrateOptions) (*Migration, error) {
	if !l.CanMigrate() {
		return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
	}
	switch o.To {
	case DialectUnset, V2:
	default:
		return nil, fmt.Errorf("migrating to %s: %w", o.To, ErrUnsupported)
	}
	res, err := migrate.PACT(src, migrate.Options{ToV2: o.To == V2, Default: o.From, Unsafe: o.Unsafe})
	if errors.Is(err, migrate.ErrSyntax) {
		pf := pact.ParseFile(name, string(src), o.From)
		return nil, &ParseError{File: pf.Src, Diagnostics: syntax.WithOrigin(pf.Diagnostics, syntax.OriginSyntax)}
	}
	if err != nil {
		return nil, err
	}
	m := &Migration{Output: res.Output, Changed: res.Changed, Edits: res.Edits, Manual: res.Manual}
	m.Dialect = pact.ParseFileTree(name, string(res.Output), o.From).Dialect
	return m, nil
}
