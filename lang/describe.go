package lang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
	"github.com/ctxql/ctxql/syntax/jql"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Description is what a tool shows about the construct at an offset (a
// hover): Markdown, and the span it describes.
type Description struct {
	Markdown string
	Span     syntax.Span
}

// Describe explains the construct at the byte offset off of a parsed file
// in Markdown: for PACT a root, type, pseudo-class, control, snapshot
// reference, operator, attribute key or legacy form (with its canonical
// spelling); for JQL a field path segment (its type and documentation from
// the schema), the domain, a top-level key or a where operator; for
// Datalog a relation's signature and provenance or a variable's type. ok
// is false when there is nothing to say.
func (p *Parsed) Describe(off int) (Description, bool) {
	var (
		md string
		sp syntax.Span
		ok bool
	)
	switch a := p.AST.(type) {
	case *pact.File:
		md, sp, ok = describePACT(a, off)
	case *jql.File:
		md, sp, ok = describeJQL(a, jql.NewSchema(), off)
	case *datalog.Program:
		md, sp, ok = describeDatalog(a, p.datalogInfo(), off)
	}
	return Description{Markdown: md, Span: sp}, ok
}

// SymbolAt returns the Datalog symbol written at off (a relation name or a
// variable) and its span there.
func (p *Parsed) SymbolAt(off int) (Symbol, syntax.Span, bool) {
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return Symbol{}, syntax.Span{}, false
	}
	return dlSymbolAt(prog, off)
}

// Occurrences lists every place the Datalog symbol is written, in source
// order.
func (p *Parsed) Occurrences(sym Symbol) []Occurrence {
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return nil
	}
	return dlOccurrences(prog, sym)
}

// Word documents one word of the language: a root, a type, a
// pseudo-class, a control, an operator or an attribute.
type Word struct {
	Name    string // as written, e.g. "^seq", ".mt", ":depth", "@limit", "<=", "ttl"
	Summary string // one line
	Doc     string // Markdown, may be empty
	Dialect Dialect
}

// Roots, types, pseudo-classes, controls, operators and attributes the
// specifications define. Dialect DialectUnset means both dialects.
var (
	rootEntries = []Word{
		{Name: "^sys", Summary: "System header region.", Doc: "In v2 an alias of the structural depth `d-1`."},
		{Name: "^seq", Summary: "Sealed sequence of turns.", Doc: "Its children are the turns, newest at depth 1 (`:depth(1)` in v1, `d1` in v2)."},
		{Name: "^ah", Summary: "Active head: the turn in progress.", Doc: "In v2 an alias of the structural depth `d0`."},
		{Name: "^root", Summary: "Root container: the top node of the tree."},
	}
	typeEntries = []Word{
		{Name: ".mt", Summary: "MessageTurn: one turn of the conversation.", Dialect: pact.V1},
		{Name: ".mc", Summary: "MessageContainer: a container inside a turn.", Dialect: pact.V1},
		{Name: ".cb", Summary: "ContentBlock: a block of content.", Doc: "Namespaced types such as `.cb:summary` match `nodeType` `cb:summary` exactly.", Dialect: pact.V1},
		{Name: ".seg", Summary: "Segment.", Dialect: pact.V2},
		{Name: ".cont", Summary: "Container.", Dialect: pact.V2},
		{Name: ".block", Summary: "Block.", Doc: "`.block:Type` is legacy sugar for the type `Type`; write `.Type`.", Dialect: pact.V2},
	}
	pseudoEntries = []Word{
		{Name: ":pre", Summary: "Nodes with `offset < 0`."},
		{Name: ":core", Summary: "Nodes with `offset = 0`."},
		{Name: ":post", Summary: "Nodes with `offset > 0`."},
		{Name: ":first", Summary: "The first child of its parent."},
		{Name: ":last", Summary: "The last child of its parent."},
		{Name: ":nth", Summary: "`:nth(n)`: the n-th child of its parent (1-based, counting all siblings)."},
		{Name: ":depth", Summary: "`:depth(n)`, `:depth(1,2)`, `:depth(1-3)`: turns of `^seq` at those depths (newest = 1).",
			Doc: "Deprecated in v2: write a depth hop such as `d1` or `d1..d3`."},
	}
	controlEntries = []Word{
		{Name: "@limit", Summary: "`@limit=N`: keep the first N results.", Dialect: pact.V2},
		{Name: "@skip", Summary: "`@skip=N`: drop the first N results.", Dialect: pact.V2},
		{Name: "@order", Summary: "`@order=path|key|id`: result order (key-selected queries default to key order).", Dialect: pact.V2},
		{Name: "@mode", Summary: "`@mode=latest|pairwise`: how a snapshot range is diffed.", Dialect: pact.V2},
	}
	timeEntries = []Word{
		{Name: "@t0", Summary: "The current snapshot (the default when the time prefix is omitted)."},
		{Name: "@t-N", Summary: "The snapshot N cycles before the current one."},
		{Name: "@cN", Summary: "The snapshot of absolute cycle N."},
		{Name: "@*", Summary: "Every snapshot: the union of the matches, newest first."},
		{Name: "@history", Summary: "Shorthand for the range `@t0..@t-*`: every snapshot, diffed.", Dialect: pact.V2},
		{Name: "..", Summary: "An inclusive snapshot range: the result lists the snapshots newest first with the differences between them."},
	}
	operatorEntries = []Word{
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
	attrEntries = []Word{
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

// PACTVocabulary returns the documented words of a dialect by category: "root",
// "type", "pseudo", "control", "time", "operator" and "attribute".
func PACTVocabulary(d Dialect) map[string][]Word {
	pick := func(es []Word) []Word {
		var out []Word
		for _, e := range es {
			if e.Dialect == DialectUnset || e.Dialect == d {
				out = append(out, e)
			}
		}
		return out
	}
	return map[string][]Word{
		"root": pick(rootEntries), "type": pick(typeEntries), "pseudo": pick(pseudoEntries),
		"control": pick(controlEntries), "time": pick(timeEntries), "operator": pick(operatorEntries),
		"attribute": pick(attrEntries),
	}
}

func lookupEntry(es []Word, name string) (Word, bool) {
	for _, e := range es {
		if e.Name == name {
			return e, true
		}
	}
	return Word{}, false
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
	entry := func(cat []Word, name, what string) (string, syntax.Span, bool) {
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
			return entry([]Word{e}, text, "type")
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
			return entry([]Word{e}, text, "attribute")
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
		return "**pragma**\n\n`// pact: v1` or `// pact: v2` in the leading comment block (before the first query) sets the file's dialect (v2 when absent).", sp, true
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

// jqlKeyDocs documents the top-level keys of a query.
var jqlKeyDocs = map[string]string{
	"from":       "The domain to query: `sessions` or `activities`.",
	"select":     "The fields to return: paths, `*` for every field, `-path` to leave one out.",
	"where":      "Conditions, all of which must hold: `path: value` or `path: {op: value}`.",
	"order":      "`asc` or `desc` (the default) by creation time.",
	"limit":      "The number of results, 1 to 1000.",
	"startAfter": "A cursor: the id of the last result of the previous page.",
}

// jqlOpDocs documents the where operators.
var jqlOpDocs = map[string]string{
	jql.OpEq:       "Equal.",
	jql.OpNeq:      "Not equal.",
	jql.OpGt:       "Greater than (numbers and timestamps).",
	jql.OpLt:       "Less than (numbers and timestamps).",
	jql.OpGte:      "Greater than or equal (numbers and timestamps).",
	jql.OpLte:      "Less than or equal (numbers and timestamps).",
	jql.OpIn:       "Equal to one of the listed values.",
	jql.OpContains: "The string contains the value, or the array contains an element equal to it.",
	jql.OpExists:   "`true`: the field is present; `false`: it is absent.",
}

// jqlQueryAt returns the query covering off.
func jqlQueryAt(f *jql.File, off int) *jql.Query {
	for _, q := range f.Queries {
		if q != nil && q.Sp.Touches(off) {
			return q
		}
	}
	return nil
}

// jqlFieldDoc describes a resolved field.
func jqlFieldDoc(path string, fl *jql.Field, throughArray bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**field** `%s`: %s", path, fl.Type.String())
	if fl.Doc != "" {
		fmt.Fprintf(&b, "\n\n%s", fl.Doc)
	}
	if fl.Computed {
		b.WriteString("\n\nComputed at query time: it can be selected but not filtered on.")
	}
	if len(fl.Variants) > 0 {
		fmt.Fprintf(&b, "\n\nPresent only on documents of type %s.", strings.Join(fl.Variants, ", "))
	}
	if throughArray {
		b.WriteString("\n\nThe path crosses an array: a condition holds when it holds for any element.")
	}
	return b.String()
}

// describeJQL explains the construct at off: a field path segment (its type
// and documentation from the schema), the domain, a top-level key or a
// where operator.
func describeJQL(f *jql.File, schema *jql.Schema, off int) (md string, span syntax.Span, ok bool) {
	q := jqlQueryAt(f, off)
	if q == nil {
		return "", syntax.Span{}, false
	}
	d := schema.Domain(q.Domain())
	if p, i := q.PathAt(off); p != nil && i >= 0 && d != nil {
		prefix := jql.Path{Text: p.Text, Sp: p.Sp, Segments: p.Segments[:i+1]}
		r := d.Resolve(prefix)
		if r.Bad >= 0 {
			return fmt.Sprintf("**unknown field** `%s`\n\n%s", p.Segments[i].Name, r.Reason), p.Segments[i].Sp, true
		}
		names := prefix.Names()
		return jqlFieldDoc(strings.Join(names, "."), r.Field(), r.ThroughArray), p.Segments[i].Sp, true
	}
	if q.From != nil && q.From.Sp.Touches(off) {
		if d == nil {
			return fmt.Sprintf("**unknown domain** `%s`\n\nDomains: %s.", q.Domain(), strings.Join(schema.DomainNames(), ", ")), q.From.Sp, true
		}
		return fmt.Sprintf("**domain** `%s`\n\n%s", d.Name, d.Doc), q.From.Sp, true
	}
	if q.Root != nil {
		for _, m := range q.Root.Members {
			if m.Key != nil && m.Key.Sp.Touches(off) {
				if doc, ok := jqlKeyDocs[m.Key.Str]; ok {
					return fmt.Sprintf("**%s**\n\n%s", m.Key.Str, doc), m.Key.Sp, true
				}
			}
		}
	}
	for _, c := range q.Where {
		if !c.Shorthand && c.OpSpan.Touches(off) {
			if doc, ok := jqlOpDocs[c.Op]; ok {
				return fmt.Sprintf("**operator** `%s`\n\n%s", c.Op, doc), c.OpSpan, true
			}
		}
	}
	return "", syntax.Span{}, false
}

// SymbolKind says whether a symbol is a relation or a variable.
type SymbolKind uint8

// The symbol kinds.
const (
	SymbolRelation SymbolKind = iota + 1
	SymbolVariable
)

// Symbol is a Datalog relation, or a variable of one rule.
type Symbol struct {
	Kind SymbolKind
	Name string
	Rule *datalog.Rule // the rule a variable belongs to; nil for relations
}

// Occurrence is one place a symbol is written. Def marks definitions: a
// relation's declaration, or where no declaration exists the heads of the
// rules and facts deriving it; a variable's first occurrence in its rule.
type Occurrence struct {
	Span syntax.Span
	Def  bool
}

// dlSymbolAt returns the symbol written at off (a relation name or a
// variable), and its span there.
func dlSymbolAt(p *datalog.Program, off int) (Symbol, syntax.Span, bool) {
	touches := func(sp syntax.Span) bool { return sp.Start <= off && off <= sp.End && !sp.IsZero() }
	for _, d := range p.Decls {
		if touches(d.Name.Sp) {
			return Symbol{Kind: SymbolRelation, Name: d.Name.Name}, d.Name.Sp, true
		}
	}
	for _, r := range p.Rules {
		if !r.Sp.Touches(off) {
			continue
		}
		for _, a := range r.Atoms() {
			if touches(a.Name.Sp) {
				return Symbol{Kind: SymbolRelation, Name: a.Name.Name}, a.Name.Sp, true
			}
		}
		for _, t := range dlRuleTerms(r) {
			if sp := dlVarSpan(p.File.Text(), t); t.Kind == datalog.Var && touches(sp) {
				return Symbol{Kind: SymbolVariable, Name: t.Value, Rule: r}, sp, true
			}
		}
	}
	return Symbol{}, syntax.Span{}, false
}

// dlRuleTerms returns the terms of a rule in source order: those of every
// head and of the whole body, expressions, let, for and agg bindings and
// disjunctions included.
func dlRuleTerms(r *datalog.Rule) []*datalog.Term {
	var out []*datalog.Term
	datalog.Inspect(r, func(n datalog.Node) bool {
		if t, ok := n.(*datalog.Term); ok && t != nil {
			out = append(out, t)
		}
		return true
	})
	slices.SortStableFunc(out, func(a, b *datalog.Term) int { return a.Sp.Start - b.Sp.Start })
	return out
}

// dlVarSpan is the span of a variable's name in its term: a term written
// "?x" or "Dual(x)" covers the marker or wrapper too.
func dlVarSpan(src string, t *datalog.Term) syntax.Span {
	if t.Kind != datalog.Var || t.Pattern.IsZero() && t.Dual.IsZero() || t.Sp.End > len(src) {
		return t.Sp
	}
	if i := strings.LastIndex(src[t.Sp.Start:t.Sp.End], t.Value); i >= 0 {
		return syntax.Sp(t.Sp.Start+i, t.Sp.Start+i+len(t.Value))
	}
	return t.Sp
}

// dlOccurrences lists every place sym is written, in source order.
func dlOccurrences(p *datalog.Program, sym Symbol) []Occurrence {
	var out []Occurrence
	switch sym.Kind {
	case SymbolRelation:
		declared := false
		for _, d := range p.Decls {
			if d.Name.Name == sym.Name {
				declared = true
			}
		}
		for _, d := range p.Decls {
			if d.Name.Name == sym.Name {
				out = append(out, Occurrence{Span: d.Name.Sp, Def: true})
			}
		}
		for _, r := range p.Rules {
			for _, a := range r.Atoms() {
				if a.Name.Name == sym.Name && !a.Name.Sp.IsZero() {
					out = append(out, Occurrence{Span: a.Name.Sp, Def: !declared && slices.Contains(dlHeads(r), a)})
				}
			}
		}
	case SymbolVariable:
		first := true
		for _, t := range dlRuleTerms(sym.Rule) {
			if t.Kind == datalog.Var && t.Value == sym.Name {
				out = append(out, Occurrence{Span: dlVarSpan(p.File.Text(), t), Def: first})
				first = false
			}
		}
	}
	sortDLOccurrences(out)
	return out
}

func sortDLOccurrences(o []Occurrence) {
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && o[j].Span.Start < o[j-1].Span.Start; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// describeDatalog explains the symbol at off in Markdown: a relation's signature
// (declared, or the types inferred from the rules deriving it), whether it
// is derived or read from data, and how often it is used; a variable's
// inferred type.
func describeDatalog(p *datalog.Program, info *datalog.Info, off int) (string, syntax.Span, bool) {
	if c := dlCallAt(p, off); c != nil {
		f, _ := datalog.LookupFunction(c.Name.Name)
		return fmt.Sprintf("**function** `%s`\n\n%s.", dlFunctionSig(f), strings.ToUpper(f.Doc[:1])+f.Doc[1:]), c.Name.Sp, true
	}
	sym, sp, ok := dlSymbolAt(p, off)
	if !ok {
		return "", syntax.Span{}, false
	}
	occ := dlOccurrences(p, sym)
	switch sym.Kind {
	case SymbolRelation:
		var b strings.Builder
		sig := "?"
		if info != nil {
			if ri := info.Relations[sym.Name]; ri != nil {
				sig = strings.Join(ri.Types, ", ")
				fmt.Fprintf(&b, "**relation** `%s(%s)`", sym.Name, sig)
				switch {
				case ri.Derived && ri.InData:
					b.WriteString("\n\nDerived by rules and also given as facts.")
				case ri.Derived:
					b.WriteString("\n\nDerived by rules.")
				case ri.InData:
					b.WriteString("\n\nRead from data (facts or input).")
				}
				switch {
				case ri.Lattice && ri.Dual:
					b.WriteString("\n\nLattice: per combination of the other columns, the last column keeps the least value derived (`Dual`).")
				case ri.Lattice:
					b.WriteString("\n\nLattice: per combination of the other columns, the last column keeps the greatest value derived.")
				case ri.DS == datalog.DSEqrel:
					b.WriteString("\n\nEquivalence relation (`eqrel`): reflexive over its elements, symmetric and transitive; kept as classes of equal elements.")
				case ri.DS == datalog.DSTrrel:
					b.WriteString("\n\nTransitive relation (`trrel`): holds the transitive closure of what its rules derive.")
				}
			}
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "**relation** `%s`", sym.Name)
		}
		fmt.Fprintf(&b, "\n\n%d occurrence(s) in this program.", len(occ))
		return b.String(), sp, true
	case SymbolVariable:
		typ := "unknown"
		if info != nil {
			if vi, ok := info.TypeAt(sp.Start); ok && vi.Type != "" {
				typ = vi.Type
			}
		}
		return fmt.Sprintf("**variable** `%s`: %s\n\n%d occurrence(s) in this rule.", sym.Name, typ, len(occ)), sp, true
	}
	return "", syntax.Span{}, false
}

// dlCallAt returns the call of a function whose name touches off.
func dlCallAt(p *datalog.Program, off int) *datalog.Call {
	var found *datalog.Call
	datalog.Inspect(p, func(n datalog.Node) bool {
		if c, ok := n.(*datalog.Call); ok && found == nil && c.Name.Sp.Touches(off) {
			found = c
		}
		return found == nil
	})
	return found
}
