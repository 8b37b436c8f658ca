package pact

import syn "github.com/ctxql/ctxql/syntax/pact"

// sameKey reports whether every node a v2 query can return has one and the
// same key: the nodes it returns are constrained by "#K", {key="K"} or
// {key in ["K"]} (a one-value list). Only such same-key sets take the
// v2 §3.5.2 default order (depth DESC, created_at_ns DESC,
// creation_index DESC, id ASC); every other result, multi-key sets
// included, is in canonical document order (v2 §2.2).
func sameKey(q *syn.Query) bool {
	for _, b := range []*syn.Block{q.Props, q.Behavior} {
		if b != nil && attrsSameKey(b.Items) {
			return true
		}
	}
	return exprSameKey(q.Expr)
}

func exprSameKey(e syn.Expr) bool {
	switch x := e.(type) {
	case *syn.Chain:
		if len(x.Steps) == 0 {
			return false
		}
		last := x.Steps[len(x.Steps)-1]
		if last.Sel != nil {
			return compoundSameKey(last.Sel)
		}
		return exprSameKey(last.Group)
	case *syn.Paren:
		return exprSameKey(x.Inner)
	case *syn.Fallback:
		// The result is one side or the other, each a same-key set.
		return exprSameKey(x.Left) && exprSameKey(x.Right)
	case *syn.PropSearch:
		return attrsSameKey(x.Block.Items)
	case *syn.Position:
		if n := len(x.Hops); n > 0 && x.Hops[n-1].Kind == syn.HopStep {
			return compoundSameKey(x.Hops[n-1].Step)
		}
	}
	return false
}

func compoundSameKey(c *syn.Compound) bool {
	return c != nil && (len(c.Hashes) > 0 || attrsSameKey(c.Attrs))
}

func attrsSameKey(items []*syn.Attr) bool {
	for _, a := range items {
		if a.Key != "key" {
			continue
		}
		if a.Op == syn.OpEq && a.Value != nil && !isNull(a.Value) {
			return true
		}
		if a.Op == syn.OpIn && len(a.Values) == 1 && !isNull(a.Values[0]) {
			return true
		}
	}
	return false
}
