package crosstool

import (
	"errors"
	"fmt"

	evpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// migrationAgrees migrates a PACT file to v2 (safe rewrites only) as
// "ctxql migrate --to v2" does, with its dialect resolved by s, and
// reports how the outcome breaks the rules: a file is refused exactly
// when its parser reports errors; the output parses, without syntax
// errors, in the dialect it declares, keeps every query and, a valid file
// staying valid, evaluates every query on d to the same result.
func migrationAgrees(name, src string, s lang.Settings, d *evpact.Data) error {
	l := lang.ByID(lang.PACT)
	from := s.Dialect(name, lang.DialectUnset)
	p := l.Parse(name, src, from)
	m, err := l.Migrate(name, []byte(src), lang.MigrateOptions{From: from, To: lang.V2})
	var pe *lang.ParseError
	switch {
	case errors.As(err, &pe):
		if !parserErrors(p) {
			return fmt.Errorf("migrate refuses a file without parser errors: %v", pe.Diagnostics)
		}
		return nil
	case err != nil:
		return fmt.Errorf("migrate: %w", err)
	case parserErrors(p):
		return fmt.Errorf("migrate accepts a file with parser errors: %v", p.Diagnostics)
	}
	g := l.Parse(name, string(m.Output), from)
	if g.Dialect != m.Dialect {
		return fmt.Errorf("the output reads as %s, migrate says %s:\n%s", g.Dialect, m.Dialect, m.Output)
	}
	for _, dg := range g.Diagnostics {
		if dg.Origin == syntax.OriginSyntax && dg.Severity == syntax.SeverityError {
			return fmt.Errorf("the output does not parse in %s: %s\n%s", g.Dialect, dg.Format(g.File), m.Output)
		}
	}
	if p.Valid() && !g.Valid() {
		return fmt.Errorf("the migration makes a valid file invalid: %v\n%s", g.Invalid(), m.Output)
	}
	before, after := p.AST.(*pact.File), g.AST.(*pact.File)
	if len(before.Queries) != len(after.Queries) {
		return fmt.Errorf("the migration changes the number of queries from %d to %d:\n%s", len(before.Queries), len(after.Queries), m.Output)
	}
	if d == nil || !p.Valid() {
		return nil
	}
	for i, q := range before.Queries {
		b := outcome(d, q, before.Src.Slice(q.Sp))
		a := outcome(d, after.Queries[i], after.Src.Slice(after.Queries[i].Sp))
		if a != b {
			return fmt.Errorf("migrating %q (%s) to %q (%s) changes its result:\nbefore: %s\nafter:  %s",
				before.Src.Slice(q.Sp), before.Dialect, after.Src.Slice(after.Queries[i].Sp), after.Dialect, b, a)
		}
	}
	return nil
}
