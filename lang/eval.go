package lang

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
)

// Evaluator is what a query language implements so that every tool loads
// its data and runs its queries the same way. PACT, JQL and Datalog each
// have one; Markdown and host source files have none (the Language methods
// return ErrUnsupported).
type Evaluator interface {
	// Load reads the sample data at path through r. The Data is
	// immutable: any number of evaluations may share it concurrently.
	Load(ctx context.Context, r *files.Reader, path string) (Data, error)
	// LoadBytes decodes sample data held in memory (pasted into a
	// playground, written inline in a test); name tells its format by
	// its suffix where the language reads several (JQL's YAML).
	LoadBytes(ctx context.Context, name string, b []byte) (Data, error)
	// Evaluate runs one query given as text (a command line, an MCP
	// argument).
	Evaluate(ctx context.Context, d Data, q Query, b Budget) (*Result, error)
	// EvaluateFile runs every query of a parsed file: one Result per
	// query (PACT, JQL) or per relation a rule derives (Datalog).
	EvaluateFile(ctx context.Context, d Data, p *Parsed, b Budget) ([]Result, error)
	// Explain tells how a query arrives at its result.
	Explain(ctx context.Context, d Data, q Query, x Explain) (*Explanation, error)
	// Parts lists the parts of a parsed file's queries that coverage and
	// profiles count, with what each did on d for the queries that
	// overlap within.
	Parts(ctx context.Context, d Data, p *Parsed, within syntax.Span, b Budget) ([]Part, error)
}

// Data is sample data loaded for one language by Language.Load. It is
// immutable after the load: evaluations on several goroutines may share
// it.
type Data interface {
	// Language is the language whose queries the data serves.
	Language() ID
	// Schema is, for Datalog, the relations the data provides with their
	// parameter types; nil for other languages.
	Schema() map[string][]string
}

// Query is a query to evaluate, as text.
type Query struct {
	// Name names the text in positions and messages: a file name, or
	// "selector", "query", "rule" for text given on a command line.
	Name string
	Src  string
	// Dialect is the dialect PACT text is read in (DialectUnset: v2).
	Dialect Dialect
	// Program makes Datalog text a whole program whose derived relations
	// are the result; otherwise it is one query rule whose head tuples are.
	Program bool
	// Stream asks for a result written rather than held: Result.Write
	// writes what Value would hold, as JSON, without building it (a
	// Datalog result of millions of tuples); Value and Items stay nil.
	// Languages that do not stream fill Value and leave Write nil.
	Stream bool
	// Relations, for a Datalog program, names the relations the result
	// holds, the data's included; empty: every relation the program
	// derives.
	Relations []string
	// Options are PACT's range options as a JSON object (includeContent,
	// contentMode, contextLines, maxSnapshots, maxChangesPerSnapshot).
	Options []byte
	// Nodes, when not nil, asks a PACT selection of one snapshot for its
	// nodes (Result.Nodes, and no Items), for a caller that keeps the ids
	// of a data set's nodes itself, written over *Nodes's storage, which
	// the caller reuses from one evaluation to the next; other results
	// are unchanged.
	Nodes *[]int32
}

// Budget bounds an evaluation; zero fields take the defaults.
type Budget struct {
	// MaxTuples bounds Datalog's intermediate and derived tuples
	// (negative: none).
	MaxTuples int
	// MaxBytes bounds the bytes of JQL's result documents (negative:
	// none).
	MaxBytes int64
}

// Default budgets.
const (
	DefaultMaxTuples = 5_000_000
	DefaultMaxBytes  = 64 << 20
)

// Result is the outcome of one evaluation, the same type for every
// language.
type Result struct {
	Lang *Language
	// File is the evaluated text, for positions.
	File *syntax.File
	// Span is the query that ran (a Datalog result: the first rule
	// deriving Relation).
	Span syntax.Span
	// Key identifies the query within its file: its text, or the Datalog
	// relation's name.
	Key string
	// Diagnostics are, when Invalid, the errors (origin syntax or check)
	// for which the query did not run; otherwise its warnings.
	Diagnostics []syntax.Diagnostic
	// Err is set by EvaluateFile for one query that could not run (it
	// has syntax errors, the data failed it); the other queries still
	// have their results.
	Err error
	// Value is the whole result, JSON-encodable: a PACT query's ids (or
	// its snapshot range object), JQL's documents, Datalog's head tuples
	// or, for a program, its relations by name.
	Value any
	// Items are the results one by one: PACT ids (string), JQL documents
	// (json.RawMessage), Datalog tuples ([]string); a PACT snapshot range
	// is one item, its object. Nil when there are none.
	Items Items
	// Write, when set (Query.Stream), writes the whole result as JSON
	// instead of Value; it may be called once.
	Write func(io.Writer) error
	// Count is the number of results (the changes of a PACT range).
	Count int
	// Range is set for a PACT query over a snapshot range.
	Range bool
	// Relation and Columns describe Datalog tuples: the relation and one
	// column per argument.
	Relation string
	Columns  []Column
	// Nodes, when Query.Nodes asked for them, are a PACT selection's
	// nodes, one per id of Value.
	Nodes *Nodes
}

// Invalid reports whether the query did not run because of its errors.
func (r *Result) Invalid() bool { return syntax.HasErrors(r.Diagnostics) }

// Column describes one argument of a Datalog relation.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// Explain asks for an explanation. PACT and JQL explain a query's steps;
// Datalog proves a tuple (Why) or says why it is not derived (WhyNot).
type Explain struct {
	Why, WhyNot string // Datalog: the tuple, e.g. q("a", "b")
	Depth       int    // Datalog: levels of the proof tree (0: the default)
	Budget      Budget
	// Profile measures the time of each step (PACT steps, JQL
	// conditions): Step.Time, and Format prints it.
	Profile bool
}

// Explanation is how a query arrives at its result.
type Explanation struct {
	File *syntax.File
	// Profiled is set when the steps carry their times (Explain.Profile).
	Profiled bool
	// Diagnostics are the errors for which nothing was explained, or
	// warnings.
	Diagnostics []syntax.Diagnostic
	// Steps are the candidates (PACT) or documents (JQL) left after each
	// step of the query; Emptied is the index of the step that left none,
	// or -1.
	Steps   []Step
	Emptied int
	// Summary is the closing line: the result count, or the step that
	// emptied it.
	Summary string
	// Text is Datalog's proof tree or failing rules, formatted.
	Text string
	// Holds is set when the tuple Datalog's WhyNot asked about is
	// derived after all; NotDerived when the one Why asked about is not.
	Holds, NotDerived bool
}

// Invalid reports whether nothing was explained because of errors.
func (e *Explanation) Invalid() bool { return syntax.HasErrors(e.Diagnostics) }

// Step is one line of an Explanation.
type Step struct {
	At int // byte offset of the step in the query; -1 when it has none
	// End is the byte offset just past the step in the query (a PACT
	// step's text, a JQL domain, where condition with its operand, or
	// cursor value); -1 when the step has no position.
	End   int
	Text  string
	Count int
	// Time is the time the step took, when the explanation was asked with
	// Profile.
	Time time.Duration
}

// Format writes the steps, one per line (position, text, count, and a
// mark on the one that emptied the result), then the summary line, or
// Datalog's text.
func (e *Explanation) Format(w io.Writer) error {
	if e.Text != "" || len(e.Steps) == 0 {
		_, err := io.WriteString(w, e.Text)
		return err
	}
	width := 0
	for _, st := range e.Steps {
		width = max(width, len(st.Text))
	}
	for i, st := range e.Steps {
		mark := ""
		if i == e.Emptied {
			mark = "  <- emptied here"
		}
		took := ""
		if e.Profiled {
			took = fmt.Sprintf(" %10s", st.Time.Round(100*time.Nanosecond))
		}
		fmt.Fprintf(w, "%-6s %-*s %8d%s%s\n", e.pos(st.At), width, st.Text, st.Count, took, mark)
	}
	if _, err := fmt.Fprintf(w, "%s\n", e.Summary); err != nil || !e.Profiled {
		return err
	}
	return e.formatSlowest(w, 3)
}

// formatSlowest writes the n steps that took the most time.
func (e *Explanation) formatSlowest(w io.Writer, n int) error {
	idx := make([]int, len(e.Steps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(e.Steps[b].Time, e.Steps[a].Time) })
	var total time.Duration
	for _, st := range e.Steps {
		total += st.Time
	}
	fmt.Fprintf(w, "slowest steps (of %s):\n", total.Round(100*time.Nanosecond))
	for _, i := range idx[:min(n, len(idx))] {
		st := e.Steps[i]
		if _, err := fmt.Fprintf(w, "  %-6s %s: %s, %d row(s)\n", e.pos(st.At), st.Text, st.Time.Round(100*time.Nanosecond), st.Count); err != nil {
			return err
		}
	}
	return nil
}

func (e *Explanation) pos(at int) string {
	if at < 0 {
		return ""
	}
	return e.File.Position(at).String()
}

// LimitError reports an evaluation stopped by its budget: the one error
// of a limit (package budget). The evaluators' errors name no flag or
// setting: the tool that set the budget adds its own (WithFlag).
type LimitError = budget.LimitError

// ErrInvalidQuery is the Result.Err of a query of a file that did not run
// because of its errors (the result's Diagnostics).
var ErrInvalidQuery = errors.New("the query has errors")

// DataError reports sample data that cannot be read or decoded.
type DataError struct{ Err error }

// Error implements error.
func (e *DataError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *DataError) Unwrap() error { return e.Err }

// loadError is the error of a load that failed: a *DataError, unless the
// load stopped because its context was done, which is no fault of the
// data and is returned as it is (errors.Is matches context.Canceled or
// context.DeadlineExceeded) for the caller to report as a cancellation or
// a time-out.
func loadError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &DataError{Err: err}
}

// OptionsError reports range options that cannot be decoded.
type OptionsError struct{ Err error }

// Error implements error.
func (e *OptionsError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *OptionsError) Unwrap() error { return e.Err }

// CheckOptions reports whether raw holds options Evaluate accepts: PACT's
// range options; no options for the other languages.
func (l *Language) CheckOptions(raw []byte) error {
	if l.ID == PACT {
		if _, err := evpactOptions(raw); err != nil {
			return &OptionsError{Err: err}
		}
		return nil
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		return &OptionsError{Err: fmt.Errorf("%s queries take no options", l.Name)}
	}
	return nil
}

// CanEvaluate reports whether the language has an evaluator.
func (l *Language) CanEvaluate() bool { return l.eval != nil }

// Load reads the language's sample data at path through r (nil: the
// default reader). The result is immutable and safe for concurrent
// evaluations. Loading stops when ctx is done, with an error wrapping
// ctx's that is not a *DataError.
func (l *Language) Load(ctx context.Context, r *files.Reader, path string) (Data, error) {
	if l.eval == nil {
		return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
	}
	if r == nil {
		r = &files.Reader{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.eval.Load(ctx, r, path)
}

// LoadBytes decodes the language's sample data from b (name tells its
// format where the language reads several). The result is immutable and
// safe for concurrent evaluations.
func (l *Language) LoadBytes(ctx context.Context, name string, b []byte) (Data, error) {
	if l.eval == nil {
		return nil, fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.eval.LoadBytes(ctx, name, b)
}

// Evaluate runs one query given as text over d. A query that does not
// parse or that the evaluator refuses is answered with a Result whose
// Diagnostics hold the errors (origin syntax or check) and a nil error;
// errors are for the data, the budget (*LimitError), bad options
// (*OptionsError) and cancellation.
func (l *Language) Evaluate(ctx context.Context, d Data, q Query, b Budget) (*Result, error) {
	if err := l.check(d); err != nil {
		return nil, err
	}
	if ed, ok := d.(databaseData); ok {
		return ed.evaluate(ctx, l, q, b)
	}
	return l.eval.Evaluate(ctx, d, q, b)
}

// EvaluateFile runs every query of a parsed file of this language over d.
func (l *Language) EvaluateFile(ctx context.Context, d Data, p *Parsed, b Budget) ([]Result, error) {
	if err := l.check(d); err != nil {
		return nil, err
	}
	if ed, ok := d.(databaseData); ok {
		return ed.evaluateFile(ctx, l, p, b)
	}
	return l.eval.EvaluateFile(ctx, d, p, b)
}

// Explain tells how the query q arrives at its result over d.
func (l *Language) Explain(ctx context.Context, d Data, q Query, x Explain) (*Explanation, error) {
	if err := l.check(d); err != nil {
		return nil, err
	}
	if _, ok := d.(*engineData); ok {
		return nil, ErrInProcess
	}
	return l.eval.Explain(ctx, d, q, x)
}

func (l *Language) check(d Data) error {
	switch {
	case l.eval == nil:
		return fmt.Errorf("%s: %w", l.Name, ErrUnsupported)
	case d == nil:
		return errors.New("no sample data")
	case d.Language() != l.ID:
		return fmt.Errorf("%s data cannot serve %s queries", d.Language(), l.Name)
	}
	return nil
}

// withOrigins returns copies of ds with the origins validity gives them:
// syntax for the parser's code, check for other errors.
func withOrigins(ds []syntax.Diagnostic, syntaxCode string) []syntax.Diagnostic {
	out := make([]syntax.Diagnostic, len(ds))
	for i, d := range ds {
		if d.Origin == syntax.OriginUnknown {
			d.Origin = syntax.OriginCheck
			if d.Code == syntaxCode {
				d.Origin = syntax.OriginSyntax
			}
		}
		out[i] = d
	}
	return out
}

// Items are a result's items one by one, kept in their own type (a
// result of a million PACT ids is not a million boxed values); each
// encodes as the JSON array of its items.
type Items interface {
	Len() int
	// At returns item i as Result.Items describes it.
	At(i int) any
}

// ItemList returns items lo to hi (exclusive) as values.
func ItemList(it Items, lo, hi int) []any {
	if it == nil {
		return []any{}
	}
	hi = min(hi, it.Len())
	out := make([]any, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		out = append(out, it.At(i))
	}
	return out
}

// stringItems are PACT ids.
type stringItems []string

func (s stringItems) Len() int     { return len(s) }
func (s stringItems) At(i int) any { return s[i] }

// rawItems are JQL documents.
type rawItems []json.RawMessage

func (s rawItems) Len() int     { return len(s) }
func (s rawItems) At(i int) any { return s[i] }

// tupleItems are Datalog tuples.
type tupleItems [][]string

func (s tupleItems) Len() int     { return len(s) }
func (s tupleItems) At(i int) any { return s[i] }

// valueItems are items of any other kind.
type valueItems []any

func (s valueItems) Len() int     { return len(s) }
func (s valueItems) At(i int) any { return s[i] }
