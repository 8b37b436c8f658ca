// Package migrate rewrites legacy and deprecated PACT forms into canonical
// v2 queries, and v1 selectors into v2 queries, on the syntax tree: edits
// replace the spans of the nodes that change, so strings and comments are
// never touched. The linter's fixes for legacy forms come from the
// functions of this package.
package migrate

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Options controls a migration.
type Options struct {
	ToV2    bool         // also rewrite v1 selectors into v2 queries
	Default pact.Dialect // dialect of files without a pragma (DialectUnset means v2)
	Unsafe  bool         // also apply rewrites that may change a result (cont[offset=N] → N)
}

// Result is the outcome of migrating one file.
type Result struct {
	Output  []byte
	Changed bool
	Edits   []syntax.TextEdit   // against the input, sorted, not overlapping
	Manual  []syntax.Diagnostic // places that need a manual decision; left unchanged
}

// CodeManual is the code of the diagnostics in Result.Manual.
const CodeManual = "MIGRATE"

// ErrSyntax reports a source with parse errors; it is not migrated.
var ErrSyntax = errors.New("the source has syntax errors")

// TypeSugar is the rewrite of the v2 type sugar ".Base:Type" to the type
// anchor ".Type". ok is false when Type is not a plain name (".a:b:c"
// means the type "b:c", which no anchor spells).
func TypeSugar(t *pact.TypeSel) (syntax.TextEdit, bool) {
	if t.Sub == "" || strings.Contains(t.Sub, ":") || !isName(t.Sub) {
		return syntax.TextEdit{}, false
	}
	return syntax.TextEdit{Span: t.Sp, NewText: "." + t.Sub}, true
}

// ContOffset is the rewrite of the legacy hop "cont[offset=N]" to the
// offset N. It may change the result (the offset hop matches a child of any
// type), so callers apply it only on request. ok is false for a signed N,
// which as a hop would be an insertion sentinel.
func ContOffset(h *pact.Hop, value string) (syntax.TextEdit, bool) {
	if value == "" || strings.HasPrefix(value, "-") || strings.HasPrefix(value, "+") {
		return syntax.TextEdit{}, false
	}
	return syntax.TextEdit{Span: h.Sp, NewText: value}, true
}

// Grouped is the rewrite of grouped shorthand "(a=1 b=2)" after a type to
// bracket filters "[a=1][b=2]".
func Grouped(f *syntax.File, b *pact.Block) (syntax.TextEdit, bool) {
	if len(b.Items) == 0 {
		return syntax.TextEdit{}, false
	}
	var sb strings.Builder
	for _, it := range b.Items {
		sb.WriteString("[" + f.Slice(it.Sp) + "]")
	}
	return syntax.TextEdit{Span: b.Sp, NewText: sb.String()}, true
}

// BehaviorToBrackets moves the ttl/cad filters in moved out of the query's
// trailing property block into its behavior block (creating it, and
// dropping a property block left empty). It returns nil when a filter is
// not in the trailing property block.
func BehaviorToBrackets(f *syntax.File, q *pact.Query, moved []*pact.Attr) []syntax.TextEdit {
	props := q.Props
	if props == nil || props.Kind != pact.BlockBrace || len(moved) == 0 {
		return nil
	}
	isMoved := map[*pact.Attr]bool{}
	for _, a := range moved {
		found := false
		for _, it := range props.Items {
			found = found || it == a
		}
		if !found {
			return nil
		}
		isMoved[a] = true
	}
	var keep, move []string
	for _, it := range props.Items {
		if isMoved[it] {
			move = append(move, f.Slice(it.Sp))
		} else {
			keep = append(keep, f.Slice(it.Sp))
		}
	}
	var edits []syntax.TextEdit
	if len(keep) == 0 {
		sp := props.Sp
		for src := f.Text(); sp.Start > 0 && (src[sp.Start-1] == ' ' || src[sp.Start-1] == '\t'); {
			sp.Start--
		}
		edits = append(edits, syntax.TextEdit{Span: sp, NewText: ""})
	} else {
		edits = append(edits, syntax.TextEdit{Span: props.Sp, NewText: "{ " + strings.Join(keep, " ") + " }"})
	}
	switch b := q.Behavior; {
	case b != nil && b.Kind == pact.BlockBracket && len(b.Items) > 0:
		last := b.Items[len(b.Items)-1]
		edits = append(edits, syntax.TextEdit{Span: syntax.Sp(last.Sp.End, last.Sp.End), NewText: " " + strings.Join(move, " ")})
	case b != nil:
		edits = append(edits, syntax.TextEdit{Span: b.Sp, NewText: "[ " + strings.Join(move, " ") + " ]"})
	default:
		edits = append(edits, syntax.TextEdit{Span: syntax.Sp(props.Sp.End, props.Sp.End), NewText: " [ " + strings.Join(move, " ") + " ]"})
	}
	return edits
}

// isName reports whether s is a plain type name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c == '-' || c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// manual builds a Result.Manual entry.
func manual(sp syntax.Span, format string, args ...any) syntax.Diagnostic {
	return syntax.Diagnostic{Span: sp, Severity: syntax.SeverityWarning, Code: CodeManual, Message: fmt.Sprintf(format, args...)}
}

// Legacy returns the rewrites of the legacy forms of the v2 query q in the
// file f (byte spans of f, sorted) and the places that need a manual
// decision (c@N, *@±, :depth(), and cont[offset=N] unless opts.Unsafe).
func Legacy(f *syntax.File, q *pact.Query, opts Options) ([]syntax.TextEdit, []syntax.Diagnostic) {
	var edits []syntax.TextEdit
	var man []syntax.Diagnostic
	var moved []*pact.Attr
	for _, l := range q.Legacy {
		switch l.Kind {
		case pact.LegacyBaseTypeSugar:
			if t, ok := l.Node.(*pact.TypeSel); ok {
				if e, ok := TypeSugar(t); ok {
					edits = append(edits, e)
				} else {
					man = append(man, manual(l.Sp, "%s: the type %q cannot be written as a type anchor; write [nodeType=...] by hand", f.Slice(l.Sp), t.Sub))
				}
			}
		case pact.LegacyContOffset:
			if h, ok := l.Node.(*pact.Hop); ok {
				e, ok := ContOffset(h, l.Value)
				switch {
				case !ok:
					man = append(man, manual(l.Sp, "%s: a signed offset hop would be an insertion point; rewrite by hand", f.Slice(l.Sp)))
				case opts.Unsafe:
					edits = append(edits, e)
				default:
					man = append(man, manual(l.Sp, "%s → %s may change the result (the offset hop matches children of any type); rerun with --unsafe to rewrite", f.Slice(l.Sp), l.Value))
				}
			}
		case pact.LegacyCycleAt:
			man = append(man, manual(l.Sp, "%s is removed: rewrite it as a coordinate (the recipe asks for a manual check)", f.Slice(l.Sp)))
		case pact.LegacyOffsetAt:
			man = append(man, manual(l.Sp, "*@%s is removed: use an offset filter such as [offset>0]", l.Value))
		case pact.LegacyDepthPseudo:
			man = append(man, manual(l.Sp, ":depth(%s) is deprecated in v2: rewrite it as a depth hop (d1, d1..d3) after checking which turns it meant", l.Value))
		case pact.LegacyGrouped:
			if b, ok := l.Node.(*pact.Block); ok {
				if e, ok := Grouped(f, b); ok {
					edits = append(edits, e)
				}
			}
		case pact.LegacyBehaviorInProps:
			if a, ok := l.Node.(*pact.Attr); ok {
				moved = append(moved, a)
			}
		}
	}
	if len(moved) > 0 {
		if es := BehaviorToBrackets(f, q, moved); es != nil {
			edits = append(edits, es...)
		} else {
			man = append(man, manual(moved[0].Sp, "%s is a behavior filter: move it to [...] by hand", moved[0].Key))
		}
	}
	sortEdits(edits)
	return edits, man
}

// DepthPseudo is the rewrite of a v1 depth qualifier ":depth(...)" on the
// compound c into a v2 depth written as the compound's first part:
// ".mt:depth(1-2)" becomes "d1..d2.mt" and "*:depth(1)" becomes "d1". Both
// keep the nodes whose turn depth (counted from the newest turn under ^seq,
// which is depth 1) lies in the range. ok is false when the arguments are
// not positive integers forming one contiguous range (":depth(1,3)"), when
// c already has a root or a depth, or when c has another depth qualifier.
func DepthPseudo(c *pact.Compound, p *pact.Pseudo) ([]syntax.TextEdit, bool) {
	if c.Root != nil || c.Depth != nil || p.Name != "depth" || len(p.Args) == 0 {
		return nil, false
	}
	for _, o := range c.Pseudos {
		if o != p && o.Name == "depth" {
			return nil, false
		}
	}
	type span struct{ lo, hi int }
	var spans []span
	num := func(v *pact.Value) (int, bool) {
		if v == nil || v.Kind != pact.ValueNumber || v.Num < 1 || v.Num > 1<<20 || v.Num != float64(int(v.Num)) {
			return 0, false
		}
		return int(v.Num), true
	}
	for _, a := range p.Args {
		lo, ok := num(a.Value)
		if !ok {
			return nil, false
		}
		hi := lo
		if a.Hi != nil {
			if hi, ok = num(a.Hi); !ok || hi < lo {
				return nil, false
			}
		}
		spans = append(spans, span{lo, hi})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	lo, hi := spans[0].lo, spans[0].hi
	for _, s := range spans[1:] {
		if s.lo > hi+1 {
			return nil, false // a gap: v2 has no union of depths
		}
		hi = max(hi, s.hi)
	}
	text := fmt.Sprintf("d%d", lo)
	if hi != lo {
		text += fmt.Sprintf("..d%d", hi)
	}
	edits := []syntax.TextEdit{{Span: p.Sp, NewText: ""}}
	if c.Universal {
		edits = append(edits, syntax.TextEdit{Span: c.UnivSpan, NewText: text})
	} else {
		edits = append(edits, syntax.TextEdit{Span: syntax.Sp(c.Sp.Start, c.Sp.Start), NewText: text})
	}
	sortEdits(edits)
	return edits, true
}

// V1ToV2 rewrites the v1 selector q of the file f into a v2 query: a namespaced type
// ".cb:summary" becomes [nodeType='cb:summary'], "#id" becomes [id='id'],
// ":depth(A-B)" becomes the depth "dA..dB" in front of its compound, and a
// compound left without a type, root, depth or "*" gets a "*". ok is false,
// with a reason, when the selector has no v2 equivalent (comma groups, depth
// lists with gaps) or the rewrite would not parse as v2.
func V1ToV2(f *syntax.File, q *pact.Query) (edits []syntax.TextEdit, reason string, ok bool) {
	fail := ""
	pact.Inspect(q, func(n pact.Node) bool {
		switch x := n.(type) {
		case *pact.Union:
			fail = "comma groups have no v2 form"
		case *pact.Compound:
			anchored := x.Root != nil || x.Universal || x.Depth != nil
			for _, p := range x.Pseudos {
				if p.Name != "depth" {
					continue
				}
				es, ok := DepthPseudo(x, p)
				if !ok {
					fail = f.Slice(p.Sp) + " is not one range of positive turn depths, the only kind a v2 depth can say"
					continue
				}
				edits = append(edits, es...)
				anchored = true
			}
			for _, t := range x.Types {
				if t.Sub == "" {
					anchored = true
					continue
				}
				if strings.ContainsAny(t.Name, `'\`) {
					fail = "a type name with a quote"
					continue
				}
				edits = append(edits, syntax.TextEdit{Span: t.Sp, NewText: "[nodeType='" + t.Name + "']"})
			}
			for _, h := range x.Hashes {
				if strings.ContainsAny(h.Value, `'\`) {
					fail = "an id with a quote"
					continue
				}
				edits = append(edits, syntax.TextEdit{Span: h.Sp, NewText: "[id='" + h.Value + "']"})
			}
			if !anchored {
				edits = append(edits, syntax.TextEdit{Span: syntax.Sp(x.Sp.Start, x.Sp.Start), NewText: "*"})
			}
		}
		return true
	})
	if fail != "" {
		return nil, fail, false
	}
	// The rewritten query must parse as one v2 query on its own.
	sortEdits(edits)
	if overlapping(edits) {
		return nil, "overlapping rewrites", false
	}
	src := f.Text()
	var local []syntax.TextEdit
	for _, e := range edits {
		if e.Span.Start < q.Sp.Start || e.Span.End > q.Sp.End {
			return nil, "a rewrite outside the selector", false
		}
		local = append(local, syntax.TextEdit{Span: syntax.Sp(e.Span.Start-q.Sp.Start, e.Span.End-q.Sp.Start), NewText: e.NewText})
	}
	text := apply(src[q.Sp.Start:q.Sp.End], local)
	if g := pact.ParseFile("", "// pact: v2\n"+text+"\n", pact.V2); syntax.HasErrors(g.Diagnostics) || len(g.Queries) != 1 || len(g.Queries[0].Legacy) > 0 {
		return nil, "the rewritten selector " + strconv.Quote(text) + " is not a plain v2 query", false
	}
	return edits, "", true
}

// apply applies sorted, non-overlapping edits to src.
func apply(src string, edits []syntax.TextEdit) string {
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(src[last:e.Span.Start])
		b.WriteString(e.NewText)
		last = e.Span.End
	}
	b.WriteString(src[last:])
	return b.String()
}

func sortEdits(edits []syntax.TextEdit) {
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].Span.Start != edits[j].Span.Start {
			return edits[i].Span.Start < edits[j].Span.Start
		}
		return edits[i].Span.End < edits[j].Span.End
	})
}

// overlapping reports whether sorted edits overlap (insertions at the same
// offset are allowed).
func overlapping(edits []syntax.TextEdit) bool {
	for i := 1; i < len(edits); i++ {
		if edits[i].Span.Start < edits[i-1].Span.End {
			return true
		}
	}
	return false
}

// PACT migrates one .pact source. A v2 file (or query) gets its legacy
// forms rewritten; with ToV2 a v1 file is rewritten into v2 when every one
// of its selectors has a v2 form, and its pragma then says v2. Places
// without an automatic rewrite are listed in Manual and left unchanged.
// The output always parses in its dialect (v2 after a conversion); a source
// with syntax errors is refused with ErrSyntax.
func PACT(src []byte, opts Options) (Result, error) {
	text := string(src)
	f := pact.ParseFile("", text, opts.Default)
	if syntax.HasErrors(f.Diagnostics) {
		return Result{}, fmt.Errorf("migrate: %w", ErrSyntax)
	}
	var edits []syntax.TextEdit
	var man []syntax.Diagnostic
	target := f.Dialect // the dialect the output is read in
	switch {
	case f.Dialect == pact.V1 && opts.ToV2:
		var v1 []syntax.TextEdit
		var failed []syntax.Diagnostic
		for _, q := range f.Queries {
			es, reason, ok := V1ToV2(f.Src, q)
			if !ok {
				failed = append(failed, manual(q.Sp, "no v2 form: %s; the file stays v1", reason))
				continue
			}
			v1 = append(v1, es...)
		}
		if len(failed) > 0 {
			man = append(man, failed...)
		} else {
			// The pragma comes first: an insertion at offset 0 must
			// precede the rewrite of a selector that starts there, and
			// sorting keeps the order of insertions at one offset.
			if f.Pragma != nil {
				edits = append(edits, syntax.TextEdit{Span: f.Pragma.ValueSpan, NewText: "v2"})
			} else {
				edits = append(edits, syntax.TextEdit{Span: syntax.Sp(0, 0), NewText: "// pact: v2\n"})
			}
			edits = append(edits, v1...)
			target = pact.V2
		}
	case f.Dialect != pact.V1:
		for _, q := range f.Queries {
			es, m := Legacy(f.Src, q, opts)
			edits = append(edits, es...)
			man = append(man, m...)
		}
	}
	sortEdits(edits)
	if overlapping(edits) {
		return Result{}, fmt.Errorf("migrate: internal error: overlapping rewrites")
	}
	out := apply(text, edits)
	if out != text {
		// The output is read in the dialect it was written for: its
		// pragma's, else the one its pragma-less lines were read in.
		if g := pact.ParseFile("", out, target); syntax.HasErrors(g.Diagnostics) || g.Dialect != target {
			return Result{}, fmt.Errorf("migrate: internal error: the rewritten source does not parse: %v", g.Diagnostics)
		}
	}
	syntax.SortDiagnostics(man)
	return Result{Output: []byte(out), Changed: out != text, Edits: edits, Manual: man}, nil
}
