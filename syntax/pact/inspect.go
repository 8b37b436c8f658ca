package pact

import "github.com/ctxql/ctxql/syntax"

// Inspect traverses the AST rooted at n depth-first, in field order: it
// calls f(n); if f returns true, Inspect visits each non-nil child of n and
// then calls f(nil), like go/ast.Inspect. It visits every node: files,
// pragmas, comments, queries, times and atoms, expressions, steps,
// compounds and their parts, hops, depth references, blocks, filters,
// values, pseudos, controls and the nodes behind Legacy markers (the
// markers themselves are visited as *Legacy nodes; their Node is not
// visited twice).
func Inspect(n Node, f func(Node) bool) {
	if isNil(n) {
		return
	}
	w := inspector(f)
	switch n := n.(type) {
	case *File:
		w.file(n)
	case *Query:
		w.query(n)
	case *Time:
		w.time(n)
	case Expr:
		w.expr(n)
	case *Hop:
		w.hop(n)
	case *Step:
		w.step(n)
	case *Compound:
		w.compound(n)
	case *Block:
		w.block(n)
	case *Attr:
		w.attr(n)
	case *Pseudo:
		w.pseudo(n)
	case *PseudoArg:
		w.pseudoArg(n)
	case *Legacy:
		w.legacy(n)
	default:
		w.leaf(n)
	}
}

// inspector is Inspect's walk, one method per node type with children, so
// that children of a known type need no dynamic dispatch. Every method
// visits a non-nil node: f(n), its children if f returned true, f(nil).
type inspector func(Node) bool

// leaf visits a node without children.
func (w inspector) leaf(n Node) {
	if w(n) {
		w(nil)
	}
}

func (w inspector) file(n *File) {
	if !w(n) {
		return
	}
	if n.Pragma != nil {
		w.leaf(n.Pragma)
	}
	for _, c := range n.Comments {
		w.leaf(c)
	}
	for _, q := range n.Queries {
		w.query(q)
	}
	w(nil)
}

func (w inspector) query(n *Query) {
	if !w(n) {
		return
	}
	if n.Time != nil {
		w.time(n.Time)
	}
	if n.Expr != nil {
		w.expr(n.Expr)
	}
	if n.Props != nil {
		w.block(n.Props)
	}
	if n.Behavior != nil {
		w.block(n.Behavior)
	}
	for _, c := range n.Controls {
		w.leaf(c)
	}
	for _, l := range n.Legacy {
		w.legacy(l)
	}
	w(nil)
}

func (w inspector) time(n *Time) {
	if !w(n) {
		return
	}
	if n.From != nil {
		w.leaf(n.From)
	}
	if n.To != nil {
		w.leaf(n.To)
	}
	w(nil)
}

// expr visits an expression; nil and typed nil pointers are skipped.
func (w inspector) expr(e Expr) {
	switch n := e.(type) {
	case *Chain:
		if n == nil || !w(n) {
			return
		}
		if n.Scope != nil {
			w.leaf(n.Scope)
		}
		for _, s := range n.Steps {
			w.step(s)
		}
	case *Union:
		if n == nil || !w(n) {
			return
		}
		for _, it := range n.Items {
			w.expr(it)
		}
	case *Fallback:
		if n == nil || !w(n) {
			return
		}
		w.expr(n.Left)
		w.expr(n.Right)
	case *Paren:
		if n == nil || !w(n) {
			return
		}
		w.expr(n.Inner)
	case *Position:
		if n == nil || !w(n) {
			return
		}
		for _, h := range n.Hops {
			w.hop(h)
		}
	case *CoordSet:
		if n == nil || !w(n) {
			return
		}
		for _, c := range n.Coords {
			w.expr(c)
		}
	case *PropSearch:
		if n == nil || !w(n) {
			return
		}
		if n.Block != nil {
			w.block(n.Block)
		}
	default:
		return
	}
	w(nil)
}

func (w inspector) hop(n *Hop) {
	if !w(n) {
		return
	}
	if n.Depth != nil {
		w.leaf(n.Depth)
	}
	if n.Step != nil {
		w.compound(n.Step)
	}
	w(nil)
}

func (w inspector) step(n *Step) {
	if !w(n) {
		return
	}
	if n.Sel != nil {
		w.compound(n.Sel)
	}
	w.expr(n.Group)
	w(nil)
}

func (w inspector) compound(n *Compound) {
	if !w(n) {
		return
	}
	if n.Root != nil {
		w.leaf(n.Root)
	}
	if n.Depth != nil {
		w.leaf(n.Depth)
	}
	for _, t := range n.Types {
		w.leaf(t)
	}
	for _, h := range n.Hashes {
		w.leaf(h)
	}
	for _, t := range n.Tags {
		w.leaf(t)
	}
	for _, a := range n.Attrs {
		w.attr(a)
	}
	for _, p := range n.Pseudos {
		w.pseudo(p)
	}
	w(nil)
}

func (w inspector) block(n *Block) {
	if !w(n) {
		return
	}
	for _, a := range n.Items {
		w.attr(a)
	}
	w(nil)
}

func (w inspector) attr(n *Attr) {
	if !w(n) {
		return
	}
	if n.Value != nil {
		w.leaf(n.Value)
	}
	for _, v := range n.Values {
		w.leaf(v)
	}
	w(nil)
}

func (w inspector) pseudo(n *Pseudo) {
	if !w(n) {
		return
	}
	for _, a := range n.Args {
		w.pseudoArg(a)
	}
	w(nil)
}

func (w inspector) pseudoArg(n *PseudoArg) {
	if !w(n) {
		return
	}
	if n.Value != nil {
		w.leaf(n.Value)
	}
	if n.Hi != nil {
		w.leaf(n.Hi)
	}
	w(nil)
}

func (w inspector) legacy(n *Legacy) {
	if !w(n) {
		return
	}
	// The marked node is part of the tree already, except for grouped
	// blocks, whose items live in the compound: visit the block itself.
	if b, ok := n.Node.(*Block); ok && n.Kind == LegacyGrouped && b != nil {
		w.block(b)
	}
	w(nil)
}

// isNil reports whether n is nil or a typed nil pointer.
func isNil(n Node) bool {
	if n == nil {
		return true
	}
	switch v := n.(type) {
	case *Union:
		return v == nil
	case *Fallback:
		return v == nil
	case *Chain:
		return v == nil
	case *Paren:
		return v == nil
	case *Position:
		return v == nil
	case *CoordSet:
		return v == nil
	case *PropSearch:
		return v == nil
	}
	return false
}

// Span implements Node for File: the whole source.
func (f *File) Span() (s syntax.Span) {
	if f.Src != nil {
		s.End = f.Src.Len()
	}
	return s
}
