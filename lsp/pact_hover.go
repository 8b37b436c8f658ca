package lsp

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// pactEntry documents one word of the language: a root, a type, a
// pseudo-class, a control, an operator or an attribute.
type pactEntry struct {
	Name    string // as written, e.g. "^seq", ".mt", ":depth", "@limit", "<=", "ttl"
	Summary string // one line
	Doc     string // Markdown, may be empty
	Dialect pact.Dialect
}

// Roots, types, pseudo-classes, controls, operators and attributes the
// specifications define. Dialect DialectUnset means both dialects.
var (
	rootEntries = []pactEntry{
		{Name: "^sys", Summary: "System header region.", Doc: "In v2 an alias of the structural depth `d-1`."},
		{Name: "^seq", Summary: "Sealed sequence of turns.", Doc: "Its children are the turns, newest at depth 1 (`:depth(1)` in v1, `d1` in v2)."},
		{Name: "^ah", Summary: "Active head: the turn in progress.", Doc: "In v2 an alias of the structural depth `d0`."},
		{Name: "^root", Summary: "Root container: the top node of the tree."},
	}
	typeEntries = []pactEntry{
		{Name: ".mt", Summary: "MessageTurn: one turn of the conversation.", Dialect: pact.V1},
		{Name: ".mc", Summary: "MessageContainer: a container inside a turn.", Dialect: pact.V1},
		{Name: ".cb", Summary: "ContentBlock: a block of content.", Doc: "Namespaced types such as `.cb:summary` match `nodeType` `cb:summary` exactly.", Dialect: pact.V1},
		{Name: ".seg", Summary: "Segment.", Dialect: pact.V2},
		{Name: ".cont", Summary: "Container.", Dialect: pact.V2},
		{Name: ".block", Summary: "Block.", Doc: "`.block:Type` is legacy sugar for the type `Type`; write `.Type`.", Dialect: pact.V2},
	}
	pseudoEntries = []pactEntry{
		{Name: ":pre", Summary: "Nodes with `offset < 0`."},
		{Name: ":core", Summary: "Nodes with `offset = 0`."},
		{Name: ":post", Summary: "Nodes with `offset > 0`."},
		{Name: ":first", Summary: "The first child of its parent."},
		{Name: ":last", Summary: "The last child of its parent."},
		{Name: ":nth", Summary: "`:nth(n)`: the n-th child of its parent (1-based, counting all siblings)."},
		{Name: ":depth", Summary: "`:depth(n)`, `:depth(1,2)`, `:depth(1-3)`: turns of `^seq` at those depths (newest = 1).",
			Doc: "Deprecated in v2: write a depth hop such as `d1` or `d1..d3`."},
	}
	controlEntries = []pactEntry{
		{Name: "@limit", Summary: "`@limit=N`: keep the first N results.", Dialect: pact.V2},
		{Name: "@skip", Summary: "`@skip=N`: drop the first N results.", Dialect: pact.V2},
		{Name: "@order", Summary: "`@order=path|key|id`: result order (key-selected queries default to key order).", Dialect: pact.V2},
		{Name: "@mode", Summary: "`@mode=latest|pairwise`: how a snapshot range is diffed.", Dialect: pact.V2},
	}
	timeEntries = []pactEntry{
		{Name: "@t0", Summary: "The current snapshot (the default when the time prefix is omitted)."},
		{Name: "@t-N", Summary: "The snapshot N cycles before the current one."},
		{Name: "@cN", Summary: "The snapshot of absolute cycle N."},
		{Name: "@*", Summary: "Every snapshot: the union of the matches, newest first."},
		{Name: "@history", Summary: "Shorthand for the range `@t0..@t-*`: every snapshot, diffed.", Dialect: pact.V2},
		{Name: "..", Summary: "An inclusive snapshot range: the result lists the snapshots newest first with the differences between them."},
	}
	operatorEntries = []pactEntry{
		{Name: "=", Summary: "Equal. Numeric attributes compare as numbers, others as strings; booleans compare as `true`/`false`."},
		{Name: "!=", Summary: "Not equal (a missing attribute is not equal to any value)."},
		{Name: "<", Summary: "Less than. `null` and missing values never match an ordering operator."},
		{Name: "<=", Summary: "Less than or equal. `null` and missing values never match an ordering operator."},
		{Name: ">", Summary: "Greater than. `null` and missing values never match an ordering operator."},
		{Name: ">=", Summary: "Greater than or equal. `null` and missing values never match an ordering operator."},
		{Name: "~", Summary: "Contains: the attribute's text contains the value.", Dialect: pact.V2},
		{Name: "in", Summary: "`key in ['a', 'b']`: equal to one of the listed values.", Dialect: pact.V2},
		{Name: "??", Summary: "Fallback: the left query's matches, or the right query's when the left matches nothing.", Dialect: pact.V2},
		{Name: ">", Summary: "Child combinator: the right step's nodes whose parent matched the left step."},
	}
	attrEntries = []pactEntry{
		{Name: "offset", Summary: "Number: position relative to the core (negative before, 0 core, positive after)."},
		{Name: "ttl", Summary: "Number: turns the node stays in context."},
		{Name: "cad", Summary: "Number: cadence.", Dialect: pact.V2},
		{Name: "priority", Summary: "Number: priority."},
		{Name: "cycle", Summary: "Number: the cycle the node belongs to."},
		{Name: "created_at_ns", Summary: "Number: creation time in nanoseconds."},
		{Name: "created_at_iso", Summary: "String: creation time, ISO 8601."},
		{Name: "nodeType", Summary: "String: the node's type (`.T` is `[nodeType='T']`)."},
		{Name: "id", Summary: "String: the node's id (opaque)."},
		{Name: "role", Summary: "String: author role such as `user` or `assistant`."},
		{Name: "kind", Summary: "String: optional metadata; not a type."},
		{Name: "key", Summary: "String: the node's key (`#k` in v2 is `{key=\"k\"}`).", Dialect: pact.V2},
		{Name: "tag", Summary: "String or list: the node's tags (`+t` in v2).", Dialect: pact.V2},
	}
)

// pactVocabulary returns the documented words of a dialect by category: "root",
// "type", "pseudo", "control", "time", "operator" and "attribute".
func pactVocabulary(d pact.Dialect) map[string][]pactEntry {
	pick := func(es []pactEntry) []pactEntry {
		var out []pactEntry
		for _, e := range es {
			if e.Dialect == pact.DialectUnset || e.Dialect == d {
				out = append(out, e)
			}
		}
		return out
	}
	return map[string][]pactEntry{
		"root": pick(rootEntries), "type": pick(typeEntries), "pseudo": pick(pseudoEntries),
		"control": pick(controlEntries), "time": pick(timeEntries), "operator": pick(operatorEntries),
		"attribute": pick(attrEntries),
	}
}

func lookupEntry(es []pactEntry, name string) (pactEntry, bool) {
	for _, e := range es {
		if e.Name == name {
			return e, true
		}
	}
	return pactEntry{}, false
}

// word joins the token at i with its neighbours of the same kind that touch
// it ("^" and "seq", "." and "mt", ":" and "depth").
func pactWord(f *pact.File, i int) (string, syntax.Span) {
	k := f.Tokens[i].Kind
	lo, hi := i, i
	for lo > 0 && f.Tokens[lo-1].Kind == k && f.Tokens[lo-1].Sp.End == f.Tokens[lo].Sp.Start {
		lo--
	}
	for hi+1 < len(f.Tokens) && f.Tokens[hi+1].Kind == k && f.Tokens[hi+1].Sp.Start == f.Tokens[hi].Sp.End {
		hi++
	}
	sp := syntax.Sp(f.Tokens[lo].Sp.Start, f.Tokens[hi].Sp.End)
	return f.Src.Slice(sp), sp
}

// describePACT explains the construct at off in Markdown: roots, types,
// pseudo-classes, controls, snapshot references, operators, attribute keys
// with their comparison rules, and the legacy forms with their canonical
// spelling. ok is false when there is nothing to say.
func describePACT(f *pact.File, off int) (md string, span syntax.Span, ok bool) {
	i := f.TokenAt(off)
	if i < 0 {
		return "", syntax.Span{}, false
	}
	d := f.Dialect
	if q := f.QueryAt(off); q != nil {
		d = q.Dialect
		for _, l := range q.Legacy {
			if l.Sp.Contains(off) || l.Sp.End == off {
				return fmt.Sprintf("**Legacy form** `%s`\n\n%s", f.Src.Slice(l.Sp), legacyAdvice(l.Kind)), l.Sp, true
			}
		}
	}
	text, sp := pactWord(f, i)
	entry := func(cat []pactEntry, name, what string) (string, syntax.Span, bool) {
		e, ok := lookupEntry(cat, name)
		if !ok {
			return "", syntax.Span{}, false
		}
		md := fmt.Sprintf("**%s** `%s` (%s)\n\n%s", what, e.Name, d, e.Summary)
		if e.Doc != "" {
			md += "\n\n" + e.Doc
		}
		return md, sp, true
	}
	switch f.Tokens[i].Kind {
	case pact.TokenRoot:
		return entry(rootEntries, text, "root")
	case pact.TokenType:
		if e, ok := lookupEntry(typeEntries, text); ok {
			return entry([]pactEntry{e}, text, "type")
		}
		name := strings.TrimPrefix(text, ".")
		return fmt.Sprintf("**type** `%s` (%s)\n\nMatches nodes whose `nodeType` is `%s`.", text, d, name), sp, true
	case pact.TokenPseudo:
		return entry(pseudoEntries, text, "pseudo-class")
	case pact.TokenControl:
		name, _, _ := strings.Cut(text, "=")
		return entry(controlEntries, name, "control")
	case pact.TokenTime:
		switch {
		case text == "@*" || text == "@history" || text == "@t0":
			return entry(timeEntries, text, "snapshot")
		case strings.HasPrefix(text, "@t-") || strings.HasPrefix(text, "@t+"):
			md, _, ok := entry(timeEntries, "@t-N", "snapshot")
			return md, sp, ok
		case strings.HasPrefix(text, "@c"):
			md, _, ok := entry(timeEntries, "@cN", "snapshot")
			return md, sp, ok
		}
	case pact.TokenOperator, pact.TokenKeyword, pact.TokenCombinator:
		if text == ".." || text == ":" {
			return entry(timeEntries, "..", "range")
		}
		if text == ">" && f.Tokens[i].Kind == pact.TokenCombinator {
			e := operatorEntries[len(operatorEntries)-1]
			return fmt.Sprintf("**combinator** `>`\n\n%s", e.Summary), sp, true
		}
		return entry(operatorEntries, text, "operator")
	case pact.TokenAttrKey:
		if e, ok := lookupEntry(attrEntries, text); ok {
			return entry([]pactEntry{e}, text, "attribute")
		}
		return fmt.Sprintf("**attribute** `%s` (%s)\n\nNot a header the specification defines: compared as a number when both sides are numbers, else as a string; a missing attribute is `null`.", text, d), sp, true
	case pact.TokenHash:
		if d == pact.V1 {
			return fmt.Sprintf("**id** `%s`\n\nThe node whose `id` is `%s` (an O(1) lookup).", text, strings.TrimPrefix(text, "#")), sp, true
		}
		return fmt.Sprintf("**key** `%s`\n\nShorthand for `{key=\"%s\"}`: nodes with that key, never an id.", text, strings.TrimPrefix(text, "#")), sp, true
	case pact.TokenTag:
		return fmt.Sprintf("**tag** `%s`\n\nNodes carrying the tag `%s`.", text, strings.TrimPrefix(text, "+")), sp, true
	case pact.TokenDepth:
		return fmt.Sprintf("**depth** `%s`\n\nStructural depth: `d-1` is `^sys`, `d0` is `^ah`, `dN` the turn N under `^seq` (newest = 1); `dA..dB` a range.", text), sp, true
	case pact.TokenPragma:
		return "**pragma**\n\n`// pact: v1` or `// pact: v2` on the first line sets the file's dialect (v2 when absent).", sp, true
	}
	return "", syntax.Span{}, false
}

// legacyAdvice says what to write instead of a legacy form.
func legacyAdvice(k pact.LegacyKind) string {
	switch k {
	case pact.LegacyBaseTypeSugar:
		return "`.Base:Type` is type sugar: write the type anchor `.Type`."
	case pact.LegacyContOffset:
		return "`cont[offset=N]` as a hop: write the offset `N` (check the result: the hop also matched non-container nodes)."
	case pact.LegacyCycleAt:
		return "`c@N` is a legacy form; the migration recipe rewrites it to a coordinate `(N)` and asks for a manual check."
	case pact.LegacyOffsetAt:
		return "`*@+`/`*@-` have no defined meaning: filter on the offset, e.g. `[offset>0]`."
	case pact.LegacyDepthPseudo:
		return "`:depth()` is deprecated in v2: write a depth hop such as `d1` or `d1..d3`."
	case pact.LegacyGrouped:
		return "Grouped shorthand `.t(a=1 b=2)`: the canonical form is `.t[a=1][b=2]`."
	case pact.LegacyBehaviorInProps:
		return "`ttl` and `cad` are behavior: filter them in `[...]`, not `{...}`."
	}
	return "A legacy form; `ctxql migrate` rewrites it."
}

// Hover explains the token under the cursor (syntax/pact.Describe), the
// rule behind a finding there, and the query's result count when the file
// has sample data.
func (l pactLanguage) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	pf := pactFile(s)
	if pf == nil {
		return "", syntax.Span{}, false
	}
	md, sp, ok := describePACT(pf, off)
	md, sp, ok = withRuleDocs(linterFor(l.linter, s), l.Diagnostics(ctx, s), off, md, sp, ok)
	if pf.QueryAt(off) != nil {
		md, sp, ok = withCount(ctx, s, off, md, sp, ok)
	}
	if !ok {
		return "", syntax.Span{}, false
	}
	text, sp, _ := withStep(ctx, s, l.Queries(s), off, pactTrace, md, sp, true)
	return text, sp, true
}
