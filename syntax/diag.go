package syntax

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a diagnostic. The zero value is SeverityError so that a
// diagnostic built without one is never silently downgraded.
type Severity int

// The severities, from most to least severe.
const (
	SeverityError Severity = iota
	SeverityWarning
	SeverityInfo
	SeverityHint
)

var severityNames = [...]string{"error", "warning", "info", "hint"}

// String returns "error", "warning", "info" or "hint".
func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity parses the names String returns.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(n, name) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning, info or hint)", name)
}

// MarshalText encodes the severity by name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Tag marks a diagnostic for special rendering by editors.
type Tag string

// The tags editors understand.
const (
	TagUnnecessary Tag = "unnecessary"
	TagDeprecated  Tag = "deprecated"
)

// Origin says which stage of a tool produced a diagnostic. Tools decide what
// a diagnostic means by its origin, never by its code: syntax and check
// diagnostics make a query invalid for every tool (the evaluator refuses it,
// "ctxql check" fails, the formatter leaves it alone) and no rule selection
// hides them; rule diagnostics are lints the configuration selects and
// grades; data diagnostics depend on sample data.
type Origin string

// The origins. The zero value is OriginUnknown: a diagnostic whose producer
// did not say; the language table (package lang) sets the origin of every
// diagnostic it hands out.
const (
	OriginUnknown Origin = ""
	OriginSyntax  Origin = "syntax" // the text does not parse
	OriginCheck   Origin = "check"  // it parses but the evaluator refuses it
	OriginRule    Origin = "rule"   // an analysis rule's finding
	OriginData    Origin = "data"   // a finding about the query against sample data
)

// Invalid reports whether a diagnostic from this origin with error severity
// makes a query invalid: syntax and check errors.
func (o Origin) Invalid() bool { return o == OriginSyntax || o == OriginCheck }

// Diagnostic is a finding about a span of source text: a parse error, a check
// failure or a lint. It is shaped like golang.org/x/tools/go/analysis.Diagnostic.
type Diagnostic struct {
	Span           Span              `json:"span"`
	Severity       Severity          `json:"severity"`
	Origin         Origin            `json:"origin,omitempty"`
	Code           string            `json:"code,omitempty"`
	Message        string            `json:"message"`
	Related        []RelatedInfo     `json:"related,omitempty"`
	SuggestedFixes []SuggestedFix    `json:"suggestedFixes,omitempty"`
	Tags           []Tag             `json:"tags,omitempty"`
	Data           map[string]string `json:"data,omitempty"`
}

// RelatedInfo points at another span that explains a diagnostic.
type RelatedInfo struct {
	Span    Span   `json:"span"`
	Message string `json:"message"`
}

// SuggestedFix is a set of edits that resolves a diagnostic. Unsafe fixes may
// change the meaning of the query and are applied only on request.
type SuggestedFix struct {
	Message   string     `json:"message"`
	TextEdits []TextEdit `json:"textEdits"`
	Unsafe    bool       `json:"unsafe,omitempty"`
}

// TextEdit replaces the bytes in Span with NewText.
type TextEdit struct {
	Span    Span   `json:"span"`
	NewText string `json:"newText"`
}

// Errorf returns an error-severity diagnostic for span with a formatted message.
func Errorf(span Span, format string, args ...any) Diagnostic {
	return Diagnostic{Span: span, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}
}

// Format renders d as "line:col: message" against f, the form the CLI prints.
func (d Diagnostic) Format(f *File) string {
	return fmt.Sprintf("%s: %s", f.Position(d.Span.Start), d.Message)
}

// String renders d with byte offsets, for tests and logs.
func (d Diagnostic) String() string {
	b, _ := json.Marshal(d.Message)
	return fmt.Sprintf("%s %s %s %s", d.Span, d.Severity, d.Code, b)
}

// Invalid reports whether d makes its query invalid: an error of origin
// syntax or check.
func (d Diagnostic) Invalid() bool { return d.Severity == SeverityError && d.Origin.Invalid() }

// Invalid returns the diagnostics of ds that make their query invalid, in
// their order.
func Invalid(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if d.Invalid() {
			out = append(out, d)
		}
	}
	return out
}

// WithOrigin sets the origin of every diagnostic of ds that has none, in
// place, and returns ds.
func WithOrigin(ds []Diagnostic, o Origin) []Diagnostic {
	for i := range ds {
		if ds[i].Origin == OriginUnknown {
			ds[i].Origin = o
		}
	}
	return ds
}

// HasErrors reports whether any diagnostic has error severity.
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// SortDiagnostics orders diagnostics by position, then code, then message,
// so output is deterministic.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if a.Span.Start != b.Span.Start {
			return a.Span.Start - b.Span.Start
		}
		if a.Span.End != b.Span.End {
			return a.Span.End - b.Span.End
		}
		if c := strings.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

// ErrOverlap is returned by ApplyEdits when two edits overlap.
var ErrOverlap = errors.New("overlapping edits")

// ApplyEdits applies edits to src. Edits may come in any order but must not
// overlap; two insertions at the same offset are applied in the given order.
func ApplyEdits(src string, edits []TextEdit) (string, error) {
	es := slices.Clone(edits)
	slices.SortStableFunc(es, func(a, b TextEdit) int {
		if a.Span.Start != b.Span.Start {
			return a.Span.Start - b.Span.Start
		}
		return a.Span.End - b.Span.End
	})
	var b strings.Builder
	b.Grow(len(src))
	last := 0
	for _, e := range es {
		if !e.Span.Valid(len(src)) {
			return "", fmt.Errorf("edit %s outside text of %d bytes", e.Span, len(src))
		}
		if e.Span.Start < last {
			return "", fmt.Errorf("edit at %s: %w", e.Span, ErrOverlap)
		}
		b.WriteString(src[last:e.Span.Start])
		b.WriteString(e.NewText)
		last = e.Span.End
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

// ApplyFixes applies the first suggested fix of every diagnostic (unsafe
// ones only when unsafe is set) and returns the new text. A fix whose edits
// overlap, or insert at the same offset as, an earlier fix is skipped; a
// later round of checking and fixing picks it up.
func ApplyFixes(src string, diags []Diagnostic, unsafe bool) (string, error) {
	var edits []TextEdit
	var taken []Span
	for _, d := range diags {
		if len(d.SuggestedFixes) == 0 {
			continue
		}
		f := d.SuggestedFixes[0]
		if f.Unsafe && !unsafe || editsOverlap(taken, f.TextEdits) {
			continue
		}
		for _, e := range f.TextEdits {
			taken = append(taken, e.Span)
		}
		edits = append(edits, f.TextEdits...)
	}
	if len(edits) == 0 {
		return src, nil
	}
	return ApplyEdits(src, edits)
}

func editsOverlap(taken []Span, edits []TextEdit) bool {
	for _, e := range edits {
		for _, s := range taken {
			if e.Span.Start < s.End && s.Start < e.Span.End || e.Span.Start == s.Start {
				return true
			}
		}
	}
	return false
}

// Shifted returns a copy of d with every span (its own, its related
// information's and its fixes' edits) moved by delta bytes.
func (d Diagnostic) Shifted(delta int) Diagnostic {
	d.Span = d.Span.Shift(delta)
	if len(d.Related) > 0 {
		rel := make([]RelatedInfo, len(d.Related))
		for i, r := range d.Related {
			rel[i] = RelatedInfo{Span: r.Span.Shift(delta), Message: r.Message}
		}
		d.Related = rel
	}
	if len(d.SuggestedFixes) > 0 {
		fixes := make([]SuggestedFix, len(d.SuggestedFixes))
		for i, f := range d.SuggestedFixes {
			edits := make([]TextEdit, len(f.TextEdits))
			for j, e := range f.TextEdits {
				edits[j] = TextEdit{Span: e.Span.Shift(delta), NewText: e.NewText}
			}
			fixes[i] = SuggestedFix{Message: f.Message, TextEdits: edits, Unsafe: f.Unsafe}
		}
		d.SuggestedFixes = fixes
	}
	return d
}
