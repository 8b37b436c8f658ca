// Package lint is the driver behind "ctxql check": it asks the language
// table (package lang) what a file is, parses it under its resolved
// dialect, reports what makes it invalid and every analysis rule's
// findings, and applies suggested fixes until they converge. It knows
// nothing about the command line.
package lint

import (
	"context"
	"fmt"
	"sync"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/host"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// ErrUnsupported reports a file whose name names no language ctxql checks.
var ErrUnsupported = lang.ErrUnsupported

// maxRounds bounds the fix loop; fixes that still change the text after
// this many rounds do not converge.
const maxRounds = 10

// All returns the registry of every rule of every language.
func All() (*analysis.Registry, error) { return lang.Registry() }

// Linter checks files with one registry, one editor dialect setting and,
// optionally, a project configuration.
type Linter struct {
	reg      *analysis.Registry
	settings lang.Settings // the editor's dialect and the configuration (nil: every rule at its default severity)
	arenas   *sync.Pool    // *lang.Arena: Check is done with a parse before it returns
	schema   *jql.Schema   // the JQL schema the rules read; nothing modifies it
}

// WithConfig returns a linter that applies cfg: the rules it selects for
// each file, its severities and its PACT dialects (files without a pragma,
// below the editor setting). Rule names in cfg's selectors resolve through
// the linter's registry.
func (l *Linter) WithConfig(cfg *config.Config) *Linter {
	cp := *l
	if cfg != nil {
		names := map[string]string{}
		for _, a := range l.reg.All() {
			names[a.Name] = a.Code
		}
		cfg = cfg.WithRuleNames(names)
	}
	cp.settings.Config = cfg
	return &cp
}

// WithEditorDialect returns a linter whose editor dialect setting is d
// (DialectUnset: none): it beats the configuration for files without a
// pragma. The language server calls it when the editor's setting changes.
func (l *Linter) WithEditorDialect(d pact.Dialect) *Linter {
	cp := *l
	cp.settings.Editor = d
	return &cp
}

// WithData returns a copy of l that loads each file's sample data (its
// data pragma, else the configuration's data entry) with load, so that a
// Datalog program is checked against the data's schema.
func (l *Linter) WithData(load func(*lang.Language, string) (lang.Data, error)) *Linter {
	cp := *l
	cp.settings.Load = load
	return &cp
}

// WithEditorData returns a copy of l whose files without a data pragma
// take the sample data data names (lang.Settings.EditorData), below the
// pragma and above the configuration.
func (l *Linter) WithEditorData(data func(name string) (path string, ok bool)) *Linter {
	cp := *l
	cp.settings.EditorData = data
	return &cp
}

// WithDir returns a linter that makes relative file names absolute
// against dir, the working directory, absolute (lang.Settings.Dir),
// instead of asking the system for it per file.
func (l *Linter) WithDir(dir string) *Linter {
	cp := *l
	cp.settings.Dir = dir
	return &cp
}

// Config returns the linter's configuration, or nil.
func (l *Linter) Config() *config.Config { return l.settings.Config }

// Settings returns the linter's dialect settings: the editor dialect given
// to New and the configuration.
func (l *Linter) Settings() lang.Settings { return l.settings }

// dialectFor is the dialect of the pragma-less lines of a PACT file.
func (l *Linter) dialectFor(name string) pact.Dialect {
	return l.settings.Dialect(name, pact.DialectUnset)
}

// New returns a linter running every rule. editor is the editor's dialect
// setting (DialectUnset when none): it beats the configuration but not a
// file's pragma (lang.Settings.Dialect).
func New(editor pact.Dialect) (*Linter, error) {
	reg, err := All()
	if err != nil {
		return nil, fmt.Errorf("rule registry: %w", err)
	}
	return &Linter{reg: reg, settings: lang.Settings{Editor: editor}, arenas: &sync.Pool{New: func() any { return new(lang.Arena) }}, schema: jql.NewSchema()}, nil
}

// Registry returns the linter's rules.
func (l *Linter) Registry() *analysis.Registry { return l.reg }

// Parse parses src as the language of name under the linter's dialect
// settings, or returns ErrUnsupported.
func (l *Linter) Parse(name, src string) (*lang.Parsed, error) {
	return lang.ParseFile(name, src, l.settings)
}

// Check parses src as the language of name and returns the parse errors,
// the evaluator's refusals and every rule's findings, in source order, with
// the file for positions. It returns ErrUnsupported for other file types.
func (l *Linter) Check(ctx context.Context, name string, src string) (*syntax.File, []syntax.Diagnostic, error) {
	var ar *lang.Arena
	if l.arenas != nil {
		ar = l.arenas.Get().(*lang.Arena)
		defer func() {
			ar.Reset()
			l.arenas.Put(ar)
		}()
	}
	p, err := lang.ParseFileIn(ar, name, src, l.settings)
	if err != nil {
		return nil, nil, err
	}
	if p.Lang.ID == lang.Host {
		return p.File, l.embedded(ctx, p.File), ctx.Err()
	}
	return p.File, l.configure(name, suppress(p, l.findings(ctx, p.File, p.AST, p), nil)), ctx.Err()
}

// Analyze returns the diagnostics of an already parsed file: its parse
// errors, the evaluator's refusals and every rule's findings, in source
// order, after suppression directives and the configuration. ast is a
// *pact.File, *jql.File, *datalog.Program or, for Markdown, the
// *syntax.File itself (lang.Parsed.AST). The language server calls it once
// per document version.
func (l *Linter) Analyze(ctx context.Context, file *syntax.File, ast any) []syntax.Diagnostic {
	return l.configure(file.Name(), suppress(parsed(file, ast), l.Findings(ctx, file, ast), nil))
}

// parsed is the table's view of an already parsed file, for its comments.
func parsed(file *syntax.File, ast any) *lang.Parsed {
	lg := lang.ForName(file.Name())
	switch ast.(type) {
	case *pact.File:
		lg = lang.ByID(lang.PACT)
	case *jql.File:
		lg = lang.ByID(lang.JQL)
	case *datalog.Program:
		lg = lang.ByID(lang.Datalog)
	}
	if lg == nil {
		lg = lang.ByID(lang.Markdown)
	}
	return &lang.Parsed{Lang: lg, File: file, AST: ast}
}

// AnalyzeParsed is Analyze of a file the language table parsed
// (lang.ParseFile, Parsed.WithData): the rules get its check and, for a
// program checked against sample data, what they read of the data.
func (l *Linter) AnalyzeParsed(ctx context.Context, p *lang.Parsed) []syntax.Diagnostic {
	return l.configure(p.File.Name(), suppress(p, l.findings(ctx, p.File, p.AST, p), nil))
}

// Findings returns what Analyze does before suppression directives and
// the configuration apply: the validity diagnostics (lang.Validate) and
// the rule findings, sorted, every one with its origin. A rule finding at
// the span of a check diagnostic is that diagnostic reported under the
// rule's code: it takes the check's place, and its origin when the check
// is an error. The language server caches findings per PACT line.
func (l *Linter) Findings(ctx context.Context, file *syntax.File, ast any) []syntax.Diagnostic {
	return l.findings(ctx, file, ast, nil)
}

// findings is Findings; parsed, when not nil, is the parse of ast, whose
// validity diagnostics are lang.Validate's already (a query is validated,
// and a Datalog program checked, once, not twice).
func (l *Linter) findings(ctx context.Context, file *syntax.File, ast any, parsed *lang.Parsed) []syntax.Diagnostic {
	validate := func(a any) []syntax.Diagnostic {
		if parsed != nil {
			return parsed.Diagnostics
		}
		return lang.Validate(a)
	}
	var (
		id    analysis.Language
		data  any
		valid []syntax.Diagnostic
	)
	switch a := ast.(type) {
	case *pact.File:
		id, valid = lang.PACT, validate(a)
	case *jql.File:
		id, data, valid = lang.JQL, l.schema, validate(a)
	case *datalog.Program:
		// One check is shared by validity and every rule that needs it:
		// the parse's, when there is one.
		id = lang.Datalog
		if parsed != nil {
			valid = parsed.Diagnostics
			switch {
			case parsed.RuleInput != nil:
				data = parsed.RuleInput
			case parsed.Info != nil:
				data = parsed.Info
			}
			break
		}
		var info *datalog.Info
		if !syntax.HasErrors(a.Diagnostics) {
			info = datalog.Check(a, nil)
			data = info
		}
		valid = lang.ValidateProgram(a, info)
	case *syntax.File:
		id = lang.Markdown
	default:
		return nil
	}
	rules := syntax.WithOrigin(analysis.Run(ctx, l.reg.For(id), file, ast, data), syntax.OriginRule)
	diags := merge(valid, rules)
	syntax.SortDiagnostics(diags)
	return diags
}

// merge joins validity diagnostics and rule findings. A rule finding at the
// span of an error of origin check is that error reported under the rule's
// code (with the rule's message and fixes): it becomes an error of origin
// check, which no configuration hides or downgrades, and the check
// diagnostic is dropped. A check warning with a rule finding at the same
// span is dropped too.
func merge(valid, rules []syntax.Diagnostic) []syntax.Diagnostic {
	at := map[syntax.Span][]int{}
	for i, r := range rules {
		at[r.Span] = append(at[r.Span], i)
	}
	out := make([]syntax.Diagnostic, 0, len(valid)+len(rules))
	for _, v := range valid {
		idx := at[v.Span]
		if v.Origin != syntax.OriginCheck || len(idx) == 0 {
			out = append(out, v)
			continue
		}
		if v.Severity == syntax.SeverityError {
			for _, i := range idx {
				rules[i].Origin, rules[i].Severity = syntax.OriginCheck, syntax.SeverityError
			}
		}
	}
	return append(out, rules...)
}

// Finish applies the file's suppression directives and the configuration
// to findings. The directives are those in the comments of the file in its
// language's comment syntax (lang.Parsed.Directives); inComment, when not
// nil, must also hold at a directive's offset.
func (l *Linter) Finish(file *syntax.File, diags []syntax.Diagnostic, inComment func(int) bool) []syntax.Diagnostic {
	return l.configure(file.Name(), suppress(parsed(file, file), diags, inComment))
}

// embedded lints the PACT queries passed as string literals to the
// configured calls (ctx.select by default) in a host source file: each
// literal's decoded value is parsed and checked as a query, and the
// findings are mapped back to the host file, their fixes rewriting the
// whole literal with its escapes re-encoded.
func (l *Linter) embedded(ctx context.Context, file *syntax.File) []syntax.Diagnostic {
	calls := config.DefaultCalls()
	if cfg := l.settings.Config; cfg != nil {
		calls = cfg.Calls()
	}
	lits := host.Find(file.Name(), []byte(file.Text()), calls)
	if len(lits) == 0 {
		return nil // no embedded query: nothing to check or suppress
	}
	var diags []syntax.Diagnostic
	for _, lit := range lits {
		pf := pact.ParseFile(file.Name(), lit.Value, l.dialectFor(file.Name()))
		for _, d := range l.Findings(ctx, pf.Src, pf) {
			diags = append(diags, lit.MapDiagnostic(d))
		}
	}
	syntax.SortDiagnostics(diags)
	return l.configure(file.Name(), suppress(&lang.Parsed{Lang: lang.ByID(lang.Host), File: file, AST: file}, diags, nil))
}

// configure drops the findings of rules the configuration disables for the
// file and applies its severities. Diagnostics that make a query invalid
// (syntax and check errors) are kept as they are: no configuration hides
// them.
func (l *Linter) configure(name string, diags []syntax.Diagnostic) []syntax.Diagnostic {
	cfg := l.settings.Config
	if cfg == nil {
		return diags
	}
	out := diags[:0:0]
	abs := l.settings.ConfigName(name)
	for _, d := range diags {
		if d.Origin == syntax.OriginSyntax || d.Origin == syntax.OriginCheck {
			out = append(out, d)
			continue
		}
		if !cfg.Enabled(d.Code, abs) {
			continue
		}
		d.Severity = cfg.Severity(d.Code, d.Severity)
		out = append(out, d)
	}
	return out
}

// AnalyzePACT is Analyze for a parsed .pact file.
func (l *Linter) AnalyzePACT(ctx context.Context, pf *pact.File) []syntax.Diagnostic {
	return l.Analyze(ctx, pf.Src, pf)
}

// SuppressEdit returns the edit that silences d: a "ctxql:ignore" comment
// at the end of the line where d starts, in the comment syntax of the file.
// Offer it only when lang.Suppressible(d): no directive silences an error
// that makes a query invalid.
func SuppressEdit(name string, f *syntax.File, d syntax.Diagnostic) syntax.TextEdit {
	d.Origin, d.Severity = syntax.OriginRule, syntax.SeverityWarning // the edit itself does not depend on it
	e, _ := lang.SuppressEdit(name, f, d)
	return e
}

// Fix applies the first suggested fix of every finding (unsafe ones only
// when unsafe is set), checks again and repeats until nothing changes. It
// refuses, with an error, fixes that introduce parse errors or do not
// converge; src is then returned as it was, with its own findings. It
// returns the new text and the findings that remain.
func (l *Linter) Fix(ctx context.Context, name, src string, unsafe bool) (string, []syntax.Diagnostic, error) {
	file, diags, err := l.Check(ctx, name, src)
	if err != nil {
		return src, nil, err
	}
	orig := diags
	cur := src
	for round := 0; round < maxRounds; round++ {
		next, err := syntax.ApplyFixes(cur, diags, unsafe)
		if err != nil {
			return src, orig, fmt.Errorf("%s: %w", name, err)
		}
		if next == cur {
			return cur, diags, nil
		}
		before := countParseErrors(diags)
		_, nd, err := l.Check(ctx, name, next)
		if err != nil {
			return src, orig, err
		}
		if countParseErrors(nd) > before {
			return src, orig, fmt.Errorf("%s: refused fixes: the result would not parse (%s)", name, firstParseError(file, nd))
		}
		cur, diags = next, nd
	}
	return src, orig, fmt.Errorf("%s: fixes did not converge after %d rounds", name, maxRounds)
}

// IsParseError reports whether d comes from a parser rather than a rule:
// parse errors have no fixes and cannot be suppressed.
func IsParseError(d syntax.Diagnostic) bool { return isParseError(d) }

// isParseError reports whether d is a syntax error.
func isParseError(d syntax.Diagnostic) bool {
	return d.Severity == syntax.SeverityError && d.Origin == syntax.OriginSyntax
}

func countParseErrors(ds []syntax.Diagnostic) int {
	n := 0
	for _, d := range ds {
		if isParseError(d) {
			n++
		}
	}
	return n
}

func firstParseError(f *syntax.File, ds []syntax.Diagnostic) string {
	for _, d := range ds {
		if isParseError(d) {
			return d.Message
		}
	}
	return "parse error"
}

// Fixable reports whether d carries a fix that Fix would apply.
func Fixable(d syntax.Diagnostic, unsafe bool) bool {
	return len(d.SuggestedFixes) > 0 && (unsafe || !d.SuggestedFixes[0].Unsafe)
}
