package datalog

// Atoms returns the head and body atoms of a rule, heads first, those of
// aggregates and disjunctions included.
func (r *Rule) Atoms() []*Atom {
	if r == nil {
		return nil
	}
	var out []*Atom
	Inspect(r, func(n Node) bool {
		if a, ok := n.(*Atom); ok {
			out = append(out, a)
			return false
		}
		return true
	})
	return out
}

// simple reports whether the non-nil rule r stands for itself alone:
// one head, no disjunction and no macro use.
func simple(r *Rule) bool {
	if len(r.Heads) > 1 {
		return false
	}
	for _, b := range r.Body {
		if b.Disj != nil || b.Macro != nil {
			return false
		}
	}
	return true
}

// Expand returns the simple rules a statement stands for: one per head
// and per choice of an alternative in each disjunction, every body free
// of disjunctions. The rules share the statement's nodes and span. A
// statement with one head and no disjunction is returned as itself.
func Expand(r *Rule) []*Rule {
	if r == nil {
		return nil
	}
	if simple(r) {
		return []*Rule{r}
	}
	hasDisj := false
	for _, b := range r.Body {
		if b.Disj != nil || b.Macro != nil {
			hasDisj = true
		}
	}
	bodies := [][]BodyItem{r.Body}
	if hasDisj {
		bodies = expandBody(r.Body)
	}
	var out []*Rule
	for _, h := range r.AllHeads() {
		for _, body := range bodies {
			out = append(out, &Rule{Head: h, Arrow: r.Arrow, Body: body, Terminator: r.Terminator, Sp: r.Sp})
		}
	}
	return out
}

// maxAlternatives bounds the bodies a statement's disjunctions expand to.
const maxAlternatives = 4096

// expandBody returns the disjunction-free bodies items stand for.
func expandBody(items []BodyItem) [][]BodyItem {
	out := [][]BodyItem{nil}
	for _, it := range items {
		if it.Macro != nil {
			it = BodyItem{Disj: &Disj{Alts: [][]BodyItem{it.Macro.Items}, Sp: it.Macro.Sp}}
		}
		if it.Disj == nil {
			for i := range out {
				out[i] = append(out[i], it)
			}
			continue
		}
		var alts [][]BodyItem
		for _, alt := range it.Disj.Alts {
			alts = append(alts, expandBody(alt)...)
		}
		var next [][]BodyItem
		for _, prefix := range out {
			for _, alt := range alts {
				if len(next) >= maxAlternatives {
					break
				}
				b := make([]BodyItem, 0, len(prefix)+len(alt))
				b = append(append(b, prefix...), alt...)
				next = append(next, b)
			}
		}
		out = next
	}
	return out
}

// ExprVars calls f for each variable term of x, in source order.
func ExprVars(x Expr, f func(*Term)) {
	if x == nil {
		return
	}
	Inspect(x, func(n Node) bool {
		if t, ok := n.(*Term); ok && t.Kind == Var {
			f(t)
		}
		return true
	})
}

// EachVar calls f for every variable term of rule r (a Term of kind Var),
// in the order Inspect visits them. Atoms and conditions of plain terms,
// the most frequent body, are walked without Inspect's calls per node.
func EachVar(r *Rule, f func(*Term)) {
	if r == nil {
		return
	}
	if len(r.Heads) > 0 {
		for _, h := range r.Heads {
			atomVars(h, f)
		}
	} else {
		atomVars(r.Head, f)
	}
	for i, b := range r.Body {
		switch {
		case b.Atom != nil:
			atomVars(b.Atom, f)
		case b.Cond != nil:
			termVars(b.Cond.Left, f)
			termVars(b.Cond.Right, f)
		default:
			inspectBody(r.Body[i:i+1], varVisitor(f))
		}
	}
}

// atomVars is EachVar for the arguments of an atom.
func atomVars(a *Atom, f func(*Term)) {
	if a == nil {
		return
	}
	for _, t := range a.Args {
		termVars(t, f)
	}
}

// termVars is EachVar for a term.
func termVars(t *Term, f func(*Term)) {
	switch {
	case t == nil:
	case t.X == nil && len(t.Elems) == 0:
		if t.Kind == Var {
			f(t)
		}
	default:
		Inspect(t, varVisitor(f))
	}
}

// varVisitor returns an Inspect function calling f for each variable.
func varVisitor(f func(*Term)) func(Node) bool {
	return func(n Node) bool {
		if t, ok := n.(*Term); ok && t.Kind == Var {
			f(t)
		}
		return true
	}
}
