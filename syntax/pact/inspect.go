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
	if isNil(n) || !f(n) {
		return
	}
	walk := func(c Node) {
		if !isNil(c) {
			Inspect(c, f)
		}
	}
	switch n := n.(type) {
	case *File:
		if n.Pragma != nil {
			walk(n.Pragma)
		}
		for _, c := range n.Comments {
			walk(c)
		}
		for _, q := range n.Queries {
			walk(q)
		}
	case *Query:
		if n.Time != nil {
			walk(n.Time)
		}
		if n.Expr != nil {
			walk(n.Expr)
		}
		if n.Props != nil {
			walk(n.Props)
		}
		if n.Behavior != nil {
			walk(n.Behavior)
		}
		for _, c := range n.Controls {
			walk(c)
		}
		for _, l := range n.Legacy {
			walk(l)
		}
	case *Time:
		if n.From != nil {
			walk(n.From)
		}
		if n.To != nil {
			walk(n.To)
		}
	case *Union:
		for _, e := range n.Items {
			walk(e)
		}
	case *Fallback:
		walk(n.Left)
		walk(n.Right)
	case *Chain:
		if n.Scope != nil {
			walk(n.Scope)
		}
		for _, s := range n.Steps {
			walk(s)
		}
	case *Paren:
		walk(n.Inner)
	case *Position:
		for _, h := range n.Hops {
			walk(h)
		}
	case *CoordSet:
		for _, c := range n.Coords {
			walk(c)
		}
	case *PropSearch:
		if n.Block != nil {
			walk(n.Block)
		}
	case *Hop:
		if n.Depth != nil {
			walk(n.Depth)
		}
		if n.Step != nil {
			walk(n.Step)
		}
	case *Step:
		if n.Sel != nil {
			walk(n.Sel)
		}
		walk(n.Group)
	case *Compound:
		if n.Root != nil {
			walk(n.Root)
		}
		if n.Depth != nil {
			walk(n.Depth)
		}
		for _, t := range n.Types {
			walk(t)
		}
		for _, h := range n.Hashes {
			walk(h)
		}
		for _, t := range n.Tags {
			walk(t)
		}
		for _, a := range n.Attrs {
			walk(a)
		}
		for _, p := range n.Pseudos {
			walk(p)
		}
	case *Block:
		for _, a := range n.Items {
			walk(a)
		}
	case *Attr:
		if n.Value != nil {
			walk(n.Value)
		}
		for _, v := range n.Values {
			walk(v)
		}
	case *Pseudo:
		for _, a := range n.Args {
			walk(a)
		}
	case *PseudoArg:
		if n.Value != nil {
			walk(n.Value)
		}
		if n.Hi != nil {
			walk(n.Hi)
		}
	case *Legacy:
		// The marked node is part of the tree already, except for grouped
		// blocks, whose items live in the compound: visit the block itself.
		if b, ok := n.Node.(*Block); ok && n.Kind == LegacyGrouped {
			walk(b)
		}
	}
	f(nil)
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
