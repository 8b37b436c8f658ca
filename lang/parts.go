package lang

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctxql/ctxql/syntax"
)

// Part is one part of a query that coverage and profiles count: a PACT
// step or filter, a JQL domain, where condition or cursor, a Datalog rule
// or body item.
type Part struct {
	// Span is the part in the parsed file.
	Span syntax.Span
	// Kind is "step", "filter", "domain", "condition", "cursor", "rule"
	// or "body item".
	Kind string
	Text string
	// Ran is set on the parts of the queries that overlap the span Parts
	// was asked about: those were run on the data, the others only listed.
	Ran bool
	// Rows is what the part left: PACT candidates and JQL documents after
	// it; for a Datalog body item 1 when the body up to and including it
	// matches at least once, else 0, and for a rule the tuples it derived
	// (at least 1 when its whole body matches).
	Rows int
	// Time is the time the part took, where the evaluator measures it
	// (PACT steps, JQL conditions, Datalog rules); zero elsewhere.
	Time time.Duration
}

// Parts lists the parts of the queries of a parsed file p of this
// language: the parts of every query overlapping within are run on d
// (Ran, Rows, Time); the other queries' parts are listed with Ran unset,
// so that coverage counts queries no case ran. A query that does not
// parse, or that cannot be explained (a PACT snapshot range), has no
// parts.
func (l *Language) Parts(ctx context.Context, d Data, p *Parsed, within syntax.Span, b Budget) ([]Part, error) {
	if err := l.check(d); err != nil {
		return nil, err
	}
	if p.Lang != l {
		return nil, fmt.Errorf("%s: not a parsed %s file", p.File.Name(), l.Name)
	}
	if _, ok := d.(*engineData); ok {
		return nil, ErrInProcess
	}
	return l.eval.Parts(ctx, d, p, within, b)
}

// overlaps reports whether two spans share a byte, or an empty span lies
// within the other.
func overlaps(a, b syntax.Span) bool {
	return a.Start < b.End && b.Start < a.End || a.Start == b.Start
}

// oneLineText is a part's text on one line.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
