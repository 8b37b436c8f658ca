package api

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Error codes other than a diagnostic's.
const (
	CodeUsage    = "usage"
	CodeData     = "data"
	CodeLimit    = "limit"
	CodeInternal = "internal"
)

// Error is the one error of every operation: a code (an invalid query's
// first diagnostic code, or one of the Code constants), a message and,
// for an error in the given text, where it is.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Range   *Range `json:"range,omitempty"`
}

// Error implements error.
func (e *Error) Error() string {
	if e.Range != nil {
		return fmt.Sprintf("%d:%d: %s [%s]", e.Range.Start.Line, e.Range.Start.Column, e.Message, e.Code)
	}
	return fmt.Sprintf("%s [%s]", e.Message, e.Code)
}

// Range is a span of the given text.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is a place in the given text: 1-based line and byte column as
// the command line prints them, and the byte offset.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Offset int `json:"offset"`
}

// rangeOf is the Range of sp in f.
func rangeOf(f *syntax.File, sp syntax.Span) *Range {
	pos := func(off int) Position {
		p := f.Position(off)
		return Position{Line: p.Line, Column: p.Column, Offset: off}
	}
	return &Range{Start: pos(sp.Start), End: pos(sp.End)}
}

func usagef(format string, args ...any) *Error {
	return &Error{Code: CodeUsage, Message: fmt.Sprintf(format, args...)}
}

// diagError is the error of a text with errors: its first error
// diagnostic.
func diagError(f *syntax.File, ds []syntax.Diagnostic) *Error {
	for _, d := range ds {
		if d.Severity == syntax.SeverityError {
			return &Error{Code: d.Code, Message: d.Message, Range: rangeOf(f, d.Span)}
		}
	}
	return &Error{Code: CodeInternal, Message: "the text has errors"}
}

// evalError maps an error of a load or an evaluation to an *Error; how
// names how to raise a budget ("the maxTuples option").
func evalError(err error, how string) *Error {
	var (
		ae *Error
		le *lang.LimitError
		de *lang.DataError
		oe *lang.OptionsError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &le):
		return &Error{Code: CodeLimit, Message: le.WithFlag(how).Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeLimit, Message: err.Error()}
	case errors.As(err, &de):
		return &Error{Code: CodeData, Message: err.Error()}
	case errors.As(err, &oe):
		return &Error{Code: CodeUsage, Message: err.Error()}
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// Session holds loaded data sets under integer handles. It is safe for
// concurrent use; evaluations on one handle may run concurrently.
type Session struct {
	version string // the build's version ("devel", "v1.2.3")
	// line is VersionLine, read from the build information the first
	// time it is asked for (reading it is a cost at start in WebAssembly).
	line func() string
	mu   sync.Mutex
	next int
	data map[int]loaded
}

// loaded is one data set of a session.
type loaded struct {
	lang *lang.Language
	data lang.Data
}

// NewSession returns an empty session of the build version and commit
// the door's link flags set ("devel" and "" when none): its version
// operation answers VersionLine(version, commit), and reports name that
// version.
func NewSession(version, commit string) *Session {
	line := sync.OnceValue(func() string { return VersionLine(version, commit) })
	return &Session{version: version, line: line, data: map[int]loaded{}}
}

// Version is what `ctxql version` prints, without the newline.
func (s *Session) Version() string { return s.line() }

// add stores d and returns its handle.
func (s *Session) add(l *lang.Language, d lang.Data) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.data[s.next] = loaded{l, d}
	return s.next
}

// get returns the data set of handle h.
func (s *Session) get(h int) (loaded, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.data[h]
	if !ok {
		return loaded{}, usagef("no data set has handle %d (released, or never loaded)", h)
	}
	return d, nil
}

// Release forgets the data set of handle h; evaluations already running
// on it finish.
func (s *Session) Release(h int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.data[h]; !ok {
		return usagef("no data set has handle %d (released, or never loaded)", h)
	}
	delete(s.data, h)
	return nil
}

// Handles is the number of data sets the session holds.
func (s *Session) Handles() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.data)
}

// language returns the row of the language named id; queries restricts it
// to the languages that evaluate.
func language(id string, queries bool) (*lang.Language, *Error) {
	var l *lang.Language
	for _, c := range lang.All() {
		if string(c.ID) == id && !c.HostsQueries() {
			l = c
		}
	}
	switch {
	case id == "":
		return nil, usagef("language is required")
	case l == nil, queries && !l.CanEvaluate():
		return nil, usagef("unknown language %q (want pact, jql or datalog)", id)
	}
	return l, nil
}

// dialect parses a PACT dialect name ("" : unset).
func dialect(s string) (lang.Dialect, *Error) {
	d, err := lang.DialectOr(s, lang.DialectUnset)
	if err != nil {
		return d, usagef("dialect %v", err)
	}
	return d, nil
}
