// Package analysis is the rule framework behind "ctxql check", the language
// server's diagnostics and their quick fixes. It follows the shape of
// golang.org/x/tools/go/analysis: every rule is an Analyzer with a stable
// code, a name, a category, a default severity and documentation with a bad
// and a good example. An Analyzer inspects one parsed file through a Pass and
// reports syntax.Diagnostics, optionally with suggested fixes.
//
// Rules know nothing about the command line or the language server; both map
// diagnostics mechanically.
package analysis

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/syntax"
)

// Language names a language a rule applies to.
type Language string

// The languages ctxql checks.
const (
	PACT     Language = "pact"
	JQL      Language = "jql"
	Datalog  Language = "datalog"
	Markdown Language = "markdown" // specification and documentation prose
)

// FixKind says whether a rule offers a fix and how safe it is.
type FixKind uint8

// The fix kinds. A safe fix keeps the query's meaning; an unsafe one may
// change it and is applied only on request.
const (
	NoFix FixKind = iota
	SafeFix
	UnsafeFix
)

// String returns "none", "safe" or "unsafe".
func (k FixKind) String() string {
	switch k {
	case SafeFix:
		return "safe"
	case UnsafeFix:
		return "unsafe"
	}
	return "none"
}

// Doc documents a rule for "ctxql rules explain", docs/rules and hovers.
type Doc struct {
	Summary string // one sentence, no trailing period
	Details string // paragraphs explaining why the rule exists
	Bad     string // an example that triggers the rule
	Good    string // the same example, corrected
}

// Analyzer is one rule.
type Analyzer struct {
	Code     string // stable identifier, e.g. "PACT001"; never reused
	Name     string // kebab-case name, e.g. "legacy-block-type"
	Category string // e.g. "legacy", "correctness", "style", "docs"
	Language Language
	Severity syntax.Severity // default severity
	Fix      FixKind
	Tags     []syntax.Tag // tags added to every diagnostic (deprecated, unnecessary)
	Doc      Doc
	Run      func(*Pass) error
}

// Pass is one run of an Analyzer over one file.
type Pass struct {
	Analyzer *Analyzer
	Context  context.Context
	File     *syntax.File
	// AST is the parsed file: *pact.File, *jql.File, *datalog.Program or
	// *syntax.File for Markdown. Each rule asserts the type of its language.
	AST any
	// Data is language-specific extra input, such as a Datalog schema.
	Data   any
	report func(syntax.Diagnostic)
}

// Report records a diagnostic. Code, severity and tags default to the
// Analyzer's when the diagnostic leaves them empty; severity is always the
// Analyzer's default unless the diagnostic sets a less severe one.
func (p *Pass) Report(d syntax.Diagnostic) {
	if d.Code == "" {
		d.Code = p.Analyzer.Code
	}
	if d.Severity < p.Analyzer.Severity {
		d.Severity = p.Analyzer.Severity
	}
	for _, t := range p.Analyzer.Tags {
		if !slices.Contains(d.Tags, t) {
			d.Tags = append(d.Tags, t)
		}
	}
	if p.Analyzer.Fix == UnsafeFix {
		for i := range d.SuggestedFixes {
			d.SuggestedFixes[i].Unsafe = true
		}
	}
	p.report(d)
}

// Reportf records a diagnostic at span with a formatted message.
func (p *Pass) Reportf(span syntax.Span, format string, args ...any) {
	p.Report(syntax.Diagnostic{Span: span, Message: fmt.Sprintf(format, args...)})
}

// Registry is an immutable, validated set of analyzers.
type Registry struct {
	all    []*Analyzer
	byCode map[string]*Analyzer
	byName map[string]*Analyzer
}

// Compiled the first time a registry is built, not when the program starts.
var (
	codeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z]+[0-9]{3}$`) })
	nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`) })
)

// NewRegistry validates the analyzers and returns a registry holding them,
// sorted by code. Every analyzer needs a unique well-formed code and name, a
// category, a language, a Run function and a doc with summary, bad and good
// examples.
func NewRegistry(analyzers ...*Analyzer) (*Registry, error) {
	r := &Registry{byCode: map[string]*Analyzer{}, byName: map[string]*Analyzer{}}
	var errs []error
	for _, a := range analyzers {
		if err := validate(a); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := r.byCode[a.Code]; dup {
			errs = append(errs, fmt.Errorf("duplicate rule code %s", a.Code))
			continue
		}
		if _, dup := r.byName[a.Name]; dup {
			errs = append(errs, fmt.Errorf("duplicate rule name %s", a.Name))
			continue
		}
		r.byCode[a.Code] = a
		r.byName[a.Name] = a
		r.all = append(r.all, a)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(r.all, func(a, b *Analyzer) int { return strings.Compare(a.Code, b.Code) })
	return r, nil
}

func validate(a *Analyzer) error {
	switch {
	case a == nil:
		return errors.New("nil analyzer")
	case !codeRE().MatchString(a.Code):
		return fmt.Errorf("rule %q: code must look like PACT001", a.Code)
	case !nameRE().MatchString(a.Name):
		return fmt.Errorf("rule %s: name %q must be kebab-case", a.Code, a.Name)
	case a.Category == "":
		return fmt.Errorf("rule %s: missing category", a.Code)
	case a.Language == "":
		return fmt.Errorf("rule %s: missing language", a.Code)
	case a.Run == nil:
		return fmt.Errorf("rule %s: missing Run", a.Code)
	case a.Doc.Summary == "" || a.Doc.Bad == "" || a.Doc.Good == "":
		return fmt.Errorf("rule %s: doc needs a summary, a bad and a good example", a.Code)
	case strings.HasSuffix(a.Doc.Summary, "."):
		return fmt.Errorf("rule %s: summary must not end with a period", a.Code)
	}
	return nil
}

// All returns the analyzers sorted by code.
func (r *Registry) All() []*Analyzer { return slices.Clone(r.all) }

// Lookup finds an analyzer by code or name (case-insensitive for codes).
func (r *Registry) Lookup(codeOrName string) (*Analyzer, bool) {
	if a, ok := r.byCode[strings.ToUpper(codeOrName)]; ok {
		return a, true
	}
	a, ok := r.byName[codeOrName]
	return a, ok
}

// For returns the analyzers of one language, sorted by code.
func (r *Registry) For(lang Language) []*Analyzer {
	var out []*Analyzer
	for _, a := range r.all {
		if a.Language == lang {
			out = append(out, a)
		}
	}
	return out
}

// Run applies analyzers to one parsed file and returns their diagnostics in
// source order. A rule that returns an error or panics is reported as an
// internal diagnostic at the start of the file rather than aborting the others.
func Run(ctx context.Context, analyzers []*Analyzer, file *syntax.File, ast, data any) []syntax.Diagnostic {
	var out []syntax.Diagnostic
	for _, a := range analyzers {
		if ctx.Err() != nil {
			break
		}
		p := &Pass{Analyzer: a, Context: ctx, File: file, AST: ast, Data: data,
			report: func(d syntax.Diagnostic) { out = append(out, d) }}
		if err := runOne(p); err != nil {
			out = append(out, syntax.Diagnostic{Severity: syntax.SeverityError, Code: a.Code,
				Message: fmt.Sprintf("internal error in rule %s (%s): %v", a.Code, a.Name, err)})
		}
	}
	syntax.SortDiagnostics(out)
	return out
}

func runOne(p *Pass) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return p.Analyzer.Run(p)
}
