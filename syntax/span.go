// Package syntax holds the types every ctxql language shares: byte-offset
// spans, source files with a line index, and diagnostics with suggested fixes.
//
// Positions are byte offsets everywhere inside ctxql. Line/column pairs, in
// bytes or in UTF-16 code units, exist only at the edges (CLI output, the
// language server) and are computed by File, the one mapper.
package syntax

import "fmt"

// Span is a half-open byte range [Start, End) in a source text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Sp returns the span [start, end).
func Sp(start, end int) Span { return Span{Start: start, End: end} }

// Len reports the number of bytes the span covers.
func (s Span) Len() int { return s.End - s.Start }

// IsZero reports whether the span is the zero value.
func (s Span) IsZero() bool { return s.Start == 0 && s.End == 0 }

// Contains reports whether the byte offset off lies inside the span. An empty
// span contains its own start so that cursors at insertion points match.
func (s Span) Contains(off int) bool {
	if s.Start == s.End {
		return off == s.Start
	}
	return off >= s.Start && off < s.End
}

// Touches reports whether off lies inside the span or at its end, which is
// what editors mean by "the cursor is on this token".
func (s Span) Touches(off int) bool { return off >= s.Start && off <= s.End }

// Covers reports whether o lies entirely inside s.
func (s Span) Covers(o Span) bool { return o.Start >= s.Start && o.End <= s.End }

// Union returns the smallest span covering both s and o. A zero span is
// treated as absent.
func (s Span) Union(o Span) Span {
	if s.IsZero() {
		return o
	}
	if o.IsZero() {
		return s
	}
	return Span{Start: min(s.Start, o.Start), End: max(s.End, o.End)}
}

// Shift returns the span moved by delta bytes.
func (s Span) Shift(delta int) Span { return Span{Start: s.Start + delta, End: s.End + delta} }

// Valid reports whether the span is well formed and lies inside a text of n bytes.
func (s Span) Valid(n int) bool { return 0 <= s.Start && s.Start <= s.End && s.End <= n }

// String formats the span as "start-end".
func (s Span) String() string { return fmt.Sprintf("%d-%d", s.Start, s.End) }
