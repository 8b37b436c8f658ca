// Package pactlint holds the analysis rules for PACT selectors and queries,
// and the documentation rule the v2 specification sets for prose about
// them. The PACT rules receive a *pact.File (Pass.AST); the documentation
// rule receives the Markdown file itself (*syntax.File).
//
// Legacy and deprecated forms are found through the parser's Legacy markers,
// so a rule never re-reads the text: fixes replace exact spans of the AST and
// leave strings and comments alone.
package pactlint

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/migrate"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Analyzers returns the rules of this package, a fresh slice on every call.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		legacyTypeSugar, legacyContOffset, legacyCycleAt, legacyOffsetAt,
		deprecatedDepth, groupedShorthand, behaviorInProps, facetWithoutTime,
		neverMatches, cssInHeadings,
	}
}

var deprecated = []syntax.Tag{syntax.TagDeprecated}

// file returns the PACT file of a pass, or nil for any other input.
func file(p *analysis.Pass) *pact.File {
	f, _ := p.AST.(*pact.File)
	return f
}

// eachLegacy calls f for every legacy marker of kind k in the file.
func eachLegacy(p *analysis.Pass, k pact.LegacyKind, f func(q *pact.Query, l *pact.Legacy)) {
	pf := file(p)
	if pf == nil {
		return
	}
	for _, q := range pf.Queries {
		for _, l := range q.Legacy {
			if l.Kind == k {
				f(q, l)
			}
		}
	}
}

func fix(msg string, edits ...syntax.TextEdit) []syntax.SuggestedFix {
	return []syntax.SuggestedFix{{Message: msg, TextEdits: edits}}
}

// checked keeps d's fixes only if the query still parses without errors
// once they are applied: a fix must never produce text that does not parse.
func checked(p *analysis.Pass, q *pact.Query, d syntax.Diagnostic) syntax.Diagnostic {
	if len(d.SuggestedFixes) == 0 {
		return d
	}
	var edits []syntax.TextEdit
	for _, e := range d.SuggestedFixes[0].TextEdits {
		if !q.Sp.Covers(e.Span) {
			d.SuggestedFixes = nil
			return d
		}
		edits = append(edits, syntax.TextEdit{Span: e.Span.Shift(-q.Sp.Start), NewText: e.NewText})
	}
	out, err := syntax.ApplyEdits(p.File.Slice(q.Sp), edits)
	if err != nil {
		d.SuggestedFixes = nil
		return d
	}
	if _, diags := pact.ParseQuery(out, q.Dialect); syntax.HasErrors(diags) {
		d.SuggestedFixes = nil
	}
	return d
}

var legacyTypeSugar = &analysis.Analyzer{
	Code: "PACT001", Name: "legacy-type-sugar", Category: "legacy", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.SafeFix, Tags: deprecated,
	Doc: analysis.Doc{
		Summary: "The `.Base:Type` sugar is a removed legacy token; write the type anchor `.Type`",
		Details: "The v2 migration recipe lists `.block:TYPE` among the legacy tokens that are errors and auto-fixes it to `.TYPE`. " +
			"Both spellings select nodes whose nodeType is TYPE, so the fix keeps the query's meaning. " +
			"In v1 `.cb:summary` is a namespaced type and is not flagged.",
		Bad:  "@t0 .seg .block:summary",
		Good: "@t0 .seg .summary",
	},
	Run: func(p *analysis.Pass) error {
		eachLegacy(p, pact.LegacyBaseTypeSugar, func(q *pact.Query, l *pact.Legacy) {
			t, ok := l.Node.(*pact.TypeSel)
			if !ok || t.Sub == "" {
				return
			}
			d := syntax.Diagnostic{Span: t.Sp, Message: fmt.Sprintf("legacy type sugar .%s: write .%s", t.Name, t.Sub)}
			if e, ok := migrate.TypeSugar(t); ok {
				// ".a:b:c" means nodeType "b:c", which a plain anchor cannot spell: no fix.
				d.SuggestedFixes = fix("replace with ."+t.Sub, e)
			}
			p.Report(checked(p, q, d))
		})
		return nil
	},
}

var legacyContOffset = &analysis.Analyzer{
	Code: "PACT002", Name: "legacy-cont-offset", Category: "legacy", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.UnsafeFix, Tags: deprecated,
	Doc: analysis.Doc{
		Summary: "The `cont[offset=N]` position hop is a removed legacy token; write the offset `N`",
		Details: "The v2 migration recipe makes `cont[...]` an error and auto-fixes `cont[offset=N]` to `N` inside coordinates and paths. " +
			"The fix is unsafe (applied with --unsafe-fixes): the offset hop `N` picks any child whose offset is N, while " +
			"`cont[offset=N]` picks only a `cont` child, so the two differ where that child has another type. " +
			"A negative offset gets no fix: `-N` as a hop is an insertion sentinel in v2, not an offset.",
		Bad:  "(d1, seg, cont[offset=0], block)",
		Good: "(d1, seg, 0, block)",
	},
	Run: func(p *analysis.Pass) error {
		eachLegacy(p, pact.LegacyContOffset, func(q *pact.Query, l *pact.Legacy) {
			h, ok := l.Node.(*pact.Hop)
			if !ok {
				return
			}
			d := syntax.Diagnostic{Span: h.Sp, Message: fmt.Sprintf("legacy hop %s: write the offset %s", p.File.Slice(h.Sp), l.Value)}
			if e, ok := migrate.ContOffset(h, l.Value); ok {
				d.SuggestedFixes = fix("replace with "+l.Value, e)
			} else {
				// A signed hop is an insertion sentinel in v2, not an offset.
				d.Message = fmt.Sprintf("legacy hop %s is removed; a signed offset hop would mean an insertion point, so rewrite it by hand", p.File.Slice(h.Sp))
			}
			p.Report(checked(p, q, d))
		})
		return nil
	},
}

var legacyCycleAt = &analysis.Analyzer{
	Code: "PACT003", Name: "legacy-cycle-at", Category: "legacy", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.NoFix, Tags: deprecated,
	Doc: analysis.Doc{
		Summary: "The `c@N` token is removed; rewrite it as a coordinate by hand",
		Details: "The v2 migration recipe lists `c@` among the removed tokens. Its regex rewrite to a coordinate `(N)` is " +
			"marked \"manual verify\", so no automatic fix is offered: check which depth and offsets the query meant.",
		Bad:  "(d1, seg, c@2)",
		Good: "(d1, seg, 2)",
	},
	Run: func(p *analysis.Pass) error {
		eachLegacy(p, pact.LegacyCycleAt, func(_ *pact.Query, l *pact.Legacy) {
			p.Reportf(l.Sp, "legacy token %s is removed: rewrite it as a coordinate (check the meaning by hand)", p.File.Slice(l.Sp))
		})
		return nil
	},
}

var legacyOffsetAt = &analysis.Analyzer{
	Code: "PACT004", Name: "legacy-offset-at", Category: "legacy", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.NoFix, Tags: deprecated,
	Doc: analysis.Doc{
		Summary: "The `*@+` and `*@-` tokens are removed; use an offset filter",
		Details: "The v2 migration recipe removes `*@+`/`*@-` and replaces them with offset filters. They have no defined " +
			"meaning to translate, so the rewrite is left to the author.",
		Bad:  "(d1, seg, *@+)",
		Good: "(d1, seg, 0)",
	},
	Run: func(p *analysis.Pass) error {
		eachLegacy(p, pact.LegacyOffsetAt, func(_ *pact.Query, l *pact.Legacy) {
			p.Reportf(l.Sp, "legacy token *@%s is removed: use an offset filter", l.Value)
		})
		return nil
	},
}

var deprecatedDepth = &analysis.Analyzer{
	Code: "PACT005", Name: "deprecated-depth-pseudo", Category: "legacy", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.NoFix, Tags: deprecated,
	Doc: analysis.Doc{
		Summary: "The `:depth()` qualifier is deprecated in v2; address depth with a depth hop",
		Details: "v2 addresses structural depth with position hops (`dN`, `dA..dB`) rather than the v1 `:depth()` pseudo-class. " +
			"v1 depths count turns below a region root while v2 depth hops count from the active head (d0) and the system " +
			"container (d-1), so the numbers do not carry over one for one and no automatic fix is offered.",
		Bad:  ".mt:depth(1) .cb",
		Good: "d1 .cb",
	},
	Run: func(p *analysis.Pass) error {
		eachLegacy(p, pact.LegacyDepthPseudo, func(_ *pact.Query, l *pact.Legacy) {
			p.Reportf(l.Sp, ":depth(%s) is deprecated in v2: use a depth hop such as d1 or d1..d3", l.Value)
		})
		return nil
	},
}

var groupedShorthand = &analysis.Analyzer{
	Code: "PACT006", Name: "grouped-shorthand", Category: "legacy", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.SafeFix, Tags: deprecated,
	Doc: analysis.Doc{
		Summary: "Grouped shorthand `.type(a=1 b=2)` is legacy; write one bracketed filter per attribute",
		Details: "The canonical form writes each attribute filter in its own brackets after the type. The parser " +
			"already reads the grouped items as the compound's attribute filters, so the rewrite keeps the meaning.",
		Bad:  ".block(status='x' ttl=5)",
		Good: ".block[status='x'][ttl=5]",
	},
	Run: func(p *analysis.Pass) error {
		eachLegacy(p, pact.LegacyGrouped, func(q *pact.Query, l *pact.Legacy) {
			b, ok := l.Node.(*pact.Block)
			if !ok {
				return
			}
			d := syntax.Diagnostic{Span: b.Sp, Message: "grouped shorthand: write one bracketed filter per attribute"}
			if e, ok := migrate.Grouped(p.File, b); ok {
				d.SuggestedFixes = fix("rewrite as "+e.NewText, e)
			}
			p.Report(checked(p, q, d))
		})
		return nil
	},
}

var behaviorInProps = &analysis.Analyzer{
	Code: "PACT007", Name: "behavior-in-props", Category: "correctness", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.SafeFix,
	Doc: analysis.Doc{
		Summary: "`ttl` and `cad` are behavior filters; move them from `{...}` to `[...]`",
		Details: "v2 §10: \"If ttl/cad are found in {...}, validator MUST recommend moving them to [...]\". Properties " +
			"describe content, behavior filters describe lifecycle. The fix moves the filter into the query's trailing " +
			"behavior block (creating it when absent) and drops a property block left empty.",
		Bad:  ".summary { author=\"user\" ttl>=2 }",
		Good: ".summary { author=\"user\" } [ ttl>=2 ]",
	},
	Run: func(p *analysis.Pass) error {
		pf := file(p)
		if pf == nil {
			return nil
		}
		for _, q := range pf.Queries {
			var moved []*pact.Attr
			for _, l := range q.Legacy {
				if a, ok := l.Node.(*pact.Attr); ok && l.Kind == pact.LegacyBehaviorInProps {
					moved = append(moved, a)
				}
			}
			if len(moved) == 0 {
				continue
			}
			edits := migrate.BehaviorToBrackets(p.File, q, moved)
			for i, a := range moved {
				d := syntax.Diagnostic{Span: a.Sp, Message: fmt.Sprintf("%s is a behavior filter: move it from {...} to [...]", a.Key)}
				if i == 0 && edits != nil {
					d.SuggestedFixes = fix("move to the behavior block", edits...)
				}
				p.Report(checked(p, q, d))
			}
		}
		return nil
	},
}

// facets are the time-derived facets of v2 §3.5.3.
var facets = map[string]bool{"born_turn": true, "age": true}

var facetWithoutTime = &analysis.Analyzer{
	Code: "PACT008", Name: "facet-without-time", Category: "correctness", Language: analysis.PACT,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "Time-derived facets (`born_turn`, `age`) need a `@t` snapshot prefix",
		Details: "v2 §3.7: \"time-derived facets (see §3.5.3) are valid only on snapshots (i.e., when a @t is present). " +
			"Validators MUST reject such facets when no @t is provided.\" Which snapshot was meant cannot be guessed, so no fix is offered.",
		Bad:  ".summary [ age<=2 ]",
		Good: "@t0 .summary [ age<=2 ]",
	},
	Run: func(p *analysis.Pass) error {
		pf := file(p)
		if pf == nil {
			return nil
		}
		for _, q := range pf.Queries {
			if q.Dialect != pact.V2 || q.Time != nil && q.Time.From != nil && q.Time.From.Kind == pact.TimeRelative {
				continue
			}
			pact.EachAttr(q, func(a *pact.Attr) {
				if facets[a.Key] {
					p.Reportf(a.KeySpan, "facet %s is valid only on a snapshot: add a @t prefix such as @t0", a.Key)
				}
			})
		}
		return nil
	},
}

var neverMatches = &analysis.Analyzer{
	Code: "PACT009", Name: "never-matches", Category: "correctness", Language: analysis.PACT,
	Severity: syntax.SeverityWarning, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A pseudo-class that can never match, such as `:nth(0)` or v1 `:depth(0)`",
		Details: "`:nth(n)` counts from 1, so `:nth(0)` (or a negative index) selects nothing. In v1 depths count turns " +
			"from 1 below a region root, so `:depth(0)` selects nothing either. The evaluator refuses such a query, so " +
			"`ctxql check` reports this finding as an error whatever severity is configured for it, as `ctxql eval` " +
			"refuses the query.",
		Bad:  ".mt:nth(0)",
		Good: ".mt:nth(1)",
	},
	Run: func(p *analysis.Pass) error {
		pf := file(p)
		if pf == nil {
			return nil
		}
		for _, q := range pf.Queries {
			pact.EachPseudo(q, func(ps *pact.Pseudo) {
				switch {
				case ps.Name == "nth" && len(ps.Args) == 1 && ps.Args[0].Hi == nil && ps.Args[0].Value != nil &&
					ps.Args[0].Value.Kind == pact.ValueNumber && ps.Args[0].Value.Num < 1:
					p.Reportf(ps.Sp, ":nth(%s) never matches: positions count from 1", ps.Args[0].Value.Raw)
				case ps.Name == "depth" && q.Dialect == pact.V1 && len(ps.Args) > 0 && allBelowOne(ps.Args):
					p.Reportf(ps.Sp, ":depth(%s) never matches: v1 depths count from 1", p.File.Slice(ps.ArgsSpan))
				}
			})
		}
		return nil
	},
}

// allBelowOne reports whether every depth argument lies below 1.
func allBelowOne(args []*pact.PseudoArg) bool {
	for _, a := range args {
		hi := a.Value
		if a.Hi != nil {
			hi = a.Hi
		}
		if hi == nil || hi.Kind != pact.ValueNumber || hi.Num >= 1 {
			return false
		}
	}
	return true
}

// Compiled the first time the rule runs, not when the program starts.
var (
	headingRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*)$`) })
	cssRE         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bCSS\b|\bDOM\b`) })
	htmlCommentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<!--.*?-->`) })
)

var cssInHeadings = &analysis.Analyzer{
	Code: "DOC001", Name: "css-in-heading", Category: "docs", Language: analysis.Markdown,
	Severity: syntax.SeverityWarning, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "Headings must not compare selectors to CSS or the DOM",
		Details: "v2 §10: \"any occurrence of the token CSS or explicit DOM/CSS comparisons in headings/subheadings " +
			"should be flagged and removed; authors must use neutral phrasing such as chained selector syntax or selector chains\". " +
			"Wording is the author's choice, so no fix is offered.",
		Bad:  "## CSS-like selectors",
		Good: "## Selector chains",
	},
	Run: func(p *analysis.Pass) error {
		f := p.File
		fence := false
		for l := 0; l < f.LineCount(); l++ {
			line := f.Line(l)
			trimmed := strings.TrimLeft(line, " ")
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fence = !fence
				continue
			}
			if fence || !headingRE().MatchString(line) {
				continue
			}
			start := f.LineStart(l)
			// HTML comments are not part of the rendered heading.
			visible := htmlCommentRE().ReplaceAllStringFunc(line, func(c string) string { return strings.Repeat(" ", len(c)) })
			for _, m := range cssRE().FindAllStringIndex(visible, -1) {
				p.Reportf(syntax.Sp(start+m[0], start+m[1]), "heading mentions %s: use neutral phrasing such as \"selector chains\"", line[m[0]:m[1]])
			}
		}
		return nil
	},
}
