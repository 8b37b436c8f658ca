// Package lint is the driver behind "ctxql check": it picks the language of
// a file from its name, parses it, runs the front end's own checks and every
// analysis rule of the language, and applies suggested fixes until they
// converge. It knows nothing about the command line.
package lint

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/analysis/dllint"
	"github.com/ctxql/ctxql/analysis/jqllint"
	"github.com/ctxql/ctxql/analysis/pactlint"
	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/host"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// ErrUnsupported reports a file whose name names no language ctxql checks.
var ErrUnsupported = errors.New("unsupported file type")

// maxRounds bounds the fix loop; fixes that still change the text after
// this many rounds do not converge.
const maxRounds = 10

// All returns the registry of every rule of every language.
func All() (*analysis.Registry, error) {
	var as []*analysis.Analyzer
	as = append(as, pactlint.Analyzers()...)
	as = append(as, jqllint.Analyzers()...)
	as = append(as, dllint.Analyzers()...)
	return analysis.NewRegistry(as...)
}

// Host is the language of source files in other languages (.ts, .js, .py,
// .go) whose string literals passed to configured calls are PACT queries.
const Host analysis.Language = "host"

// Language returns the language of a file name, or "" when ctxql does not
// check such files.
func Language(name string) analysis.Language {
	n := strings.ToLower(name)
	if host.Supported(n) {
		return Host
	}
	switch {
	case strings.HasSuffix(n, ".pact"):
		return analysis.PACT
	case strings.HasSuffix(n, ".jql"), strings.HasSuffix(n, ".jql.json"), strings.HasSuffix(n, ".jql.yaml"), strings.HasSuffix(n, ".jql.yml"):
		return analysis.JQL
	case strings.HasSuffix(n, ".dl"):
		return analysis.Datalog
	case strings.HasSuffix(n, ".md"):
		return analysis.Markdown
	}
	return ""
}

// Linter checks files with one registry, one default PACT dialect and,
// optionally, a project configuration.
type Linter struct {
	reg     *analysis.Registry
	dialect pact.Dialect
	cfg     *config.Config // nil: every rule at its default severity
}

// WithConfig returns a linter that applies cfg: the rules it selects for
// each file, its severities and its PACT dialects (files without a pragma).
// Rule names in cfg's selectors resolve through the linter's registry.
func (l *Linter) WithConfig(cfg *config.Config) *Linter {
	cp := *l
	if cfg != nil {
		names := map[string]string{}
		for _, a := range l.reg.All() {
			names[a.Name] = a.Code
		}
		cfg = cfg.WithRuleNames(names)
	}
	cp.cfg = cfg
	return &cp
}

// Config returns the linter's configuration, or nil.
func (l *Linter) Config() *config.Config { return l.cfg }

// dialectFor is the dialect of a .pact file without a pragma.
func (l *Linter) dialectFor(name string) pact.Dialect {
	if l.cfg != nil {
		return l.cfg.Dialect(absName(name))
	}
	return l.dialect
}

// absName is a file name (or a file: URI, as the language server names
// documents) made absolute against the working directory, the form the
// configuration's file queries take.
func absName(name string) string {
	if u, err := url.Parse(name); err == nil && u.Scheme == "file" {
		return filepath.FromSlash(u.Path)
	}
	if a, err := filepath.Abs(name); err == nil {
		return a
	}
	return name
}

// New returns a linter running every rule; files without a pragma are
// parsed as dialect (DialectUnset means v2).
func New(dialect pact.Dialect) (*Linter, error) {
	reg, err := All()
	if err != nil {
		return nil, fmt.Errorf("rule registry: %w", err)
	}
	return &Linter{reg: reg, dialect: dialect}, nil
}

// Registry returns the linter's rules.
func (l *Linter) Registry() *analysis.Registry { return l.reg }

// Check parses src as the language of name and returns the parse errors,
// the front end's checks and every rule's findings, in source order, with
// the file for positions. It returns ErrUnsupported for other file types.
func (l *Linter) Check(ctx context.Context, name string, src string) (*syntax.File, []syntax.Diagnostic, error) {
	var (
		file *syntax.File
		ast  any
	)
	switch Language(name) {
	case analysis.PACT:
		pf := pact.ParseFile(name, src, l.dialectFor(name))
		file, ast = pf.Src, pf
	case analysis.JQL:
		file, ast = syntax.NewFile(name, src), jql.ParseFile(name, src)
	case analysis.Datalog:
		prog := datalog.ParseProgram(name, src)
		file, ast = prog.File, prog
	case analysis.Markdown:
		file = syntax.NewFile(name, src)
		ast = file
	case Host:
		file = syntax.NewFile(name, src)
		return file, l.embedded(ctx, file), ctx.Err()
	default:
		return nil, nil, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	if file == nil {
		file = syntax.NewFile(name, src)
	}
	return file, l.Analyze(ctx, file, ast), ctx.Err()
}

// Analyze returns the diagnostics of an already parsed file: its parse
// errors, the front end's checks and every rule's findings, in source
// order, after suppression directives and the configuration. ast is a
// *pact.File, *jql.File, *datalog.Program or, for Markdown, the
// *syntax.File itself. The language server calls it once per document
// version.
func (l *Linter) Analyze(ctx context.Context, file *syntax.File, ast any) []syntax.Diagnostic {
	var inComment func(int) bool
	switch a := ast.(type) {
	case *pact.File:
		inComment = pactComments(a)
	case *syntax.File:
		// Markdown: directives are HTML comments; "// ctxql:..." inside a
		// code example is part of the example.
		inComment = func(off int) bool { return strings.HasPrefix(a.Text()[off:], "<!--") }
	}
	return l.Finish(file, l.Findings(ctx, file, ast), inComment)
}

// Findings returns what Analyze does before suppression directives and
// the configuration apply: parse errors, front-end checks and rule
// findings, sorted. The language server caches them per PACT line.
func (l *Linter) Findings(ctx context.Context, file *syntax.File, ast any) []syntax.Diagnostic {
	var (
		lang  analysis.Language
		data  any
		diags []syntax.Diagnostic
	)
	switch a := ast.(type) {
	case *pact.File:
		lang = analysis.PACT
		diags = append(diags, a.Diagnostics...)
	case *jql.File:
		// The schema checker's findings are the rules JQL001–JQL007; the
		// parser's own limit-range error is the rule JQL005.
		lang, data = analysis.JQL, jql.NewSchema()
		limits := map[syntax.Span]bool{}
		for _, q := range a.Queries {
			if q != nil && q.LimitValue != nil && q.LimitValue.Kind == jql.KindNumber {
				limits[q.LimitValue.Span] = true
			}
		}
		for _, d := range a.Diagnostics {
			if d.Code == jql.CodeInvalidQuery && limits[d.Span] {
				continue
			}
			diags = append(diags, d)
		}
	case *datalog.Program:
		// The checker's findings are the rules DL001–DL007; one check is
		// shared by every rule that needs it.
		lang = analysis.Datalog
		diags = append(diags, a.Diagnostics...)
		if !syntax.HasErrors(a.Diagnostics) {
			data = datalog.Check(a, nil)
		}
	case *syntax.File:
		lang = analysis.Markdown
	default:
		return nil
	}
	diags = append(diags, analysis.Run(ctx, l.reg.For(lang), file, ast, data)...)
	syntax.SortDiagnostics(diags)
	return diags
}

// Finish applies the file's suppression directives (inComment reports
// whether an offset is inside a comment; nil accepts any) and the
// configuration to findings.
func (l *Linter) Finish(file *syntax.File, diags []syntax.Diagnostic, inComment func(int) bool) []syntax.Diagnostic {
	return l.configure(file.Name(), suppress(file, diags, inComment))
}

// embedded lints the PACT queries passed as string literals to the
// configured calls (ctx.select by default) in a host source file: each
// literal's decoded value is parsed and checked as a query, and the
// findings are mapped back to the host file, their fixes rewriting the
// whole literal with its escapes re-encoded.
func (l *Linter) embedded(ctx context.Context, file *syntax.File) []syntax.Diagnostic {
	calls := config.DefaultCalls()
	if l.cfg != nil {
		calls = l.cfg.Calls()
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
	return l.Finish(file, diags, nil)
}

// configure drops the findings of rules the configuration disables for the
// file and applies its severities. Parse errors are always kept.
func (l *Linter) configure(name string, diags []syntax.Diagnostic) []syntax.Diagnostic {
	if l.cfg == nil {
		return diags
	}
	out := diags[:0:0]
	abs := absName(name)
	for _, d := range diags {
		if isParseError(d) {
			out = append(out, d)
			continue
		}
		if !l.cfg.Enabled(d.Code, abs) {
			continue
		}
		d.Severity = l.cfg.Severity(d.Code, d.Severity)
		out = append(out, d)
	}
	return out
}

// AnalyzePACT is Analyze for a parsed .pact file.
func (l *Linter) AnalyzePACT(ctx context.Context, pf *pact.File) []syntax.Diagnostic {
	return l.Analyze(ctx, pf.Src, pf)
}

func pactComments(pf *pact.File) func(int) bool {
	return func(off int) bool {
		for _, c := range pf.Comments {
			if c.Sp.Contains(off) {
				return true
			}
		}
		return false
	}
}

// SuppressEdit returns the edit that silences d: a "ctxql:ignore" comment
// at the end of the line where d starts (PACT, JQL object literals and
// Datalog use "//", YAML "#", Markdown an HTML comment).
func SuppressEdit(name string, f *syntax.File, d syntax.Diagnostic) syntax.TextEdit {
	line := f.LineOf(d.Span.Start)
	end := f.LineEnd(line)
	dir := "ctxql:ignore " + d.Code + " -- reason"
	text := " // " + dir
	switch n := strings.ToLower(name); {
	case strings.HasSuffix(n, ".md"):
		text = " <!-- " + dir + " -->"
	case strings.HasSuffix(n, ".yaml"), strings.HasSuffix(n, ".yml"):
		text = " # " + dir
	}
	return syntax.TextEdit{Span: syntax.Sp(end, end), NewText: text}
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

// isParseError reports whether d comes from a parser rather than a rule.
func isParseError(d syntax.Diagnostic) bool {
	return d.Severity == syntax.SeverityError && (d.Code == pact.CodeSyntax || d.Code == jql.CodeSyntax ||
		strings.HasPrefix(d.Code, "datalog/syntax") || d.Code == "")
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
