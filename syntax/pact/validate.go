package pact

import (
	"math"
	"strconv"

	"github.com/ctxql/ctxql/syntax"
)

// CodeInvalid is the diagnostic code of Validate's errors: the query
// parses, but it asks for something no snapshot can answer.
const CodeInvalid = "pact-invalid"

// IsKnownControl reports whether name is a control the evaluator
// interprets: "*", "limit", "skip", "order" or "mode". Any other
// "@name[=value]" is a vendor control (v2 §4 "allow @* and vendor @foo",
// §5 "allow vendor passthrough"): it is valid and ignored.
func IsKnownControl(name string) bool {
	switch name {
	case "*", "limit", "skip", "order", "mode":
		return true
	}
	return false
}

// Validate is the one validity check for a parsed query, after the
// grammar: `ctxql check`, `ctxql eval pact`, the language server and the
// evaluator's Compile all reject exactly the queries for which it returns
// an error. The diagnostics are in a fixed order (legacy forms without a
// meaning, the time prefix, the body in source order, the controls), and
// each carries CodeInvalid and the span of the offending part. A query
// with parse errors (q.Bad) is not examined: its parse diagnostics say
// more.
func Validate(q *Query) []syntax.Diagnostic {
	if q == nil || q.Bad || q.Expr == nil {
		return nil
	}
	var out []syntax.Diagnostic
	add := func(sp syntax.Span, format string, args ...any) {
		d := syntax.Errorf(sp, format, args...)
		d.Code = CodeInvalid
		out = append(out, d)
	}
	for _, l := range q.Legacy {
		if l.Kind == LegacyOffsetAt {
			add(l.Sp, "%q has no defined meaning; use an offset filter such as [offset>0]", "*@"+l.Value)
		}
	}
	validateTime(q.Time, add)
	w := filterWalk{
		attr: func(x *Attr) {
			if x.Op.IsOrdering() && x.Value == nil {
				add(x.Sp, "operator %s needs a value", x.Op)
			}
			if (x.Key == "born_turn" || x.Key == "age") && q.Dialect != V1 {
				add(x.KeySpan, "derived facet %s is not supported: the specification does not define which turn index a node is born at", x.Key)
			}
		},
		pseudo: func(x *Pseudo) { validatePseudo(x, add) },
		position: func(x *Position) {
			if x.Optional {
				add(x.OptSpan, "\"?\" is for mutations; reads do not use it")
			}
		},
		hop: func(x *Hop) {
			if x.Kind == HopInsert {
				add(x.Sp, "insertion positions are for mutations, not selection")
			}
		},
	}
	w.query(q)
	for _, c := range q.Controls {
		switch c.Name {
		case "limit", "skip":
			n, err := strconv.Atoi(c.Value)
			if !c.HasValue || err != nil || n < 0 {
				add(c.Sp, "@%s needs a non-negative integer, as in @%s=10", c.Name, c.Name)
			}
		case "order":
			switch c.Value {
			case "path", "key", "id":
			default:
				add(c.Sp, "@order must be path, key or id")
			}
		case "mode":
			switch {
			case c.Value != "latest" && c.Value != "pairwise":
				add(c.Sp, "@mode must be latest or pairwise")
			case q.Time == nil && q.Dialect != V1:
				// v2 §3.7: valid only on snapshots, and validators MUST
				// reject it when no @t is provided (the implicit @t0 of
				// an omitted prefix does not count).
				add(c.Sp, "@mode needs a time prefix, as in \"@t0 ... @mode=%s\": it is valid only on snapshots", c.Value)
			}
		}
	}
	return out
}

// EachAttr calls f for every filter of q ("[key=value]", the items of
// "{...}" and "[...]" blocks), in the order Inspect visits them and as often:
// the items of grouped shorthand "(a=1)" are visited with their compound's
// filters and again with the block its Legacy marker holds. It walks only
// the parts of the tree that can hold filters.
func EachAttr(q *Query, f func(*Attr)) {
	w := filterWalk{attr: f}
	w.query(q)
}

// EachPseudo calls f for every pseudo-class of q, in the order Inspect
// visits them.
func EachPseudo(q *Query, f func(*Pseudo)) {
	w := filterWalk{pseudo: f}
	w.query(q)
}

// filterWalk visits the filters, pseudo-classes, positions and hops of a
// query in the order Inspect visits them, calling the callbacks that are
// set, without a call per node of the tree.
type filterWalk struct {
	attr     func(*Attr)
	pseudo   func(*Pseudo)
	position func(*Position)
	hop      func(*Hop)
}

func (w *filterWalk) query(q *Query) {
	if q == nil {
		return
	}
	w.expr(q.Expr)
	if q.Props != nil {
		w.block(q.Props)
	}
	if q.Behavior != nil {
		w.block(q.Behavior)
	}
	for _, l := range q.Legacy {
		if b, ok := l.Node.(*Block); ok && l.Kind == LegacyGrouped && b != nil {
			w.block(b)
		}
	}
}

func (w *filterWalk) expr(e Expr) {
	switch x := e.(type) {
	case *Chain:
		if x == nil {
			return
		}
		for _, s := range x.Steps {
			if s.Sel != nil {
				w.compound(s.Sel)
			}
			w.expr(s.Group)
		}
	case *Union:
		if x == nil {
			return
		}
		for _, it := range x.Items {
			w.expr(it)
		}
	case *Fallback:
		if x == nil {
			return
		}
		w.expr(x.Left)
		w.expr(x.Right)
	case *Paren:
		if x == nil {
			return
		}
		w.expr(x.Inner)
	case *Position:
		if x == nil {
			return
		}
		w.positionNode(x)
	case *CoordSet:
		if x == nil {
			return
		}
		for _, c := range x.Coords {
			if c != nil {
				w.positionNode(c)
			}
		}
	case *PropSearch:
		if x == nil || x.Block == nil {
			return
		}
		w.block(x.Block)
	}
}

func (w *filterWalk) positionNode(x *Position) {
	if w.position != nil {
		w.position(x)
	}
	for _, h := range x.Hops {
		if w.hop != nil {
			w.hop(h)
		}
		if h.Step != nil {
			w.compound(h.Step)
		}
	}
}

func (w *filterWalk) compound(c *Compound) {
	if w.attr != nil {
		for _, a := range c.Attrs {
			w.attr(a)
		}
	}
	if w.pseudo != nil {
		for _, p := range c.Pseudos {
			w.pseudo(p)
		}
	}
}

func (w *filterWalk) block(b *Block) {
	if w.attr != nil {
		for _, a := range b.Items {
			w.attr(a)
		}
	}
}

func validateTime(t *Time, add func(syntax.Span, string, ...any)) {
	if t == nil || t.History {
		return
	}
	if t.From == nil || t.From.Invalid || (t.To != nil && t.To.Invalid) {
		add(t.Sp, "invalid snapshot reference")
		return
	}
	if t.To == nil {
		if t.From.Oldest {
			add(t.From.Sp, "@t-* is valid only as a range end")
		}
		return
	}
	if t.From.Kind == TimeAll || t.To.Kind == TimeAll {
		add(t.Sp, "@* must not appear inside a range")
		return
	}
	if !t.To.Bare && t.From.Kind != t.To.Kind {
		add(t.Sp, "range endpoints must be the same kind (@t..@t or @c..@c)")
	}
}

func validatePseudo(x *Pseudo, add func(syntax.Span, string, ...any)) {
	switch x.Name {
	case "pre", "core", "post", "first", "last":
		if x.HasParens {
			add(x.Sp, ":%s takes no arguments", x.Name)
		}
	case "nth":
		if len(x.Args) != 1 || x.Args[0].Hi != nil || !isPosInt(x.Args[0].Value) {
			add(x.Sp, ":nth needs one positive integer, as in :nth(2)")
		}
	case "depth":
		if len(x.Args) == 0 {
			add(x.Sp, "invalid selector: empty depth")
		}
		for _, a := range x.Args {
			if !isPosInt(a.Value) || (a.Hi != nil && !isPosInt(a.Hi)) {
				add(a.Sp, ":depth arguments are positive integers or ranges like 1-3")
				continue
			}
			if a.Hi != nil && a.Hi.Num < a.Value.Num {
				add(a.Sp, ":depth range %s-%s is empty", a.Value.Raw, a.Hi.Raw)
			}
		}
	default:
		add(x.Sp, "unknown pseudo-class :%s", x.Name)
	}
}

func isPosInt(v *Value) bool {
	return v != nil && v.Kind == ValueNumber && v.Num >= 1 && v.Num == math.Trunc(v.Num) && v.Num < 1e9
}
