package datalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// Diagnostic codes reported by the checks.
const (
	CodeUnknownRelation = "datalog/unknown-relation"
	CodeArity           = "datalog/arity"
	CodeUnsafe          = "datalog/unsafe"
	CodeUnstratifiable  = "datalog/unstratifiable"
	CodeTypeMismatch    = "datalog/type-mismatch"
	CodeHeadWildcard    = "datalog/head-wildcard"
	CodeDeclConflict    = "datalog/decl-conflict"
	CodeQueryReadsData  = "datalog/query-reads-data"
)

// Schema maps each relation the data provides to its parameter types, in
// column order (the RelationData.param_types of the data model).
type Schema map[string][]string

// RelationInfo describes a relation a checked program can use.
type RelationInfo struct {
	Name string `json:"name"`
	// Types are the parameter types: from the schema, from a declaration,
	// or inferred for a rule head from the first positive body occurrence
	// of each head variable ("" when nothing determines a type).
	Types []string `json:"types"`
	// Derived reports whether some rule or fact of the program defines it.
	Derived bool `json:"derived,omitempty"`
	// InData reports whether the schema (the data) provides it.
	InData bool `json:"inData,omitempty"`
	// Decl is the span of the program's declaration, if any.
	Decl syntax.Span `json:"decl,omitzero"`
}

// VarInfo is one occurrence of a variable with its inferred type, for hover.
type VarInfo struct {
	Name string      `json:"name"`
	Type string      `json:"type"`
	Span syntax.Span `json:"span"`
	Rule int         `json:"rule"` // index into Program.Rules
}

// Info is the result of checking a program: diagnostics plus what an
// editor needs for hover and the evaluator needs for planning.
type Info struct {
	// Relations holds every relation of the schema and of the program.
	Relations map[string]*RelationInfo `json:"relations"`
	// Vars lists every variable occurrence, in source order.
	Vars []VarInfo `json:"vars"`
	// HeadTypes holds, per rule (index into Program.Rules), the types of
	// the head arguments.
	HeadTypes [][]string `json:"headTypes"`
	// Strata lists the derived relations in evaluation order: each inner
	// slice is one recursive component, after all components it reads.
	Strata [][]string `json:"strata"`
	// Diagnostics are the check findings, sorted by position.
	Diagnostics []syntax.Diagnostic `json:"diagnostics"`
}

// TypeAt returns the variable occurrence whose span touches off.
func (in *Info) TypeAt(off int) (VarInfo, bool) {
	for _, v := range in.Vars {
		if v.Span.Touches(off) {
			return v, true
		}
	}
	return VarInfo{}, false
}

// Check checks a whole program against schema: unknown relations, arity,
// safety, stratification and types. Rules and facts of the program define
// relations; the data's relations may also be extended by rules.
func Check(prog *Program, schema Schema) *Info {
	return check(prog.Rules, prog.Decls, schema, false)
}

// CheckRule checks a single query rule against schema. The head names the
// query result: the rule is evaluated once over the data, so the head
// relation may not appear negated in the body.
func CheckRule(r *Rule, schema Schema) *Info {
	if r == nil {
		return &Info{Relations: map[string]*RelationInfo{}}
	}
	return check([]*Rule{r}, nil, schema, true)
}

type checker struct {
	info  *Info
	query bool
}

func (c *checker) errf(span syntax.Span, code, format string, args ...any) *syntax.Diagnostic {
	c.info.Diagnostics = append(c.info.Diagnostics, syntax.Diagnostic{Span: span, Severity: syntax.SeverityError, Code: code, Message: fmt.Sprintf(format, args...)})
	return &c.info.Diagnostics[len(c.info.Diagnostics)-1]
}

func check(rules []*Rule, decls []*Decl, schema Schema, query bool) *Info {
	c := &checker{info: &Info{Relations: map[string]*RelationInfo{}}, query: query}
	rels := c.info.Relations
	for name, types := range schema {
		rels[name] = &RelationInfo{Name: name, Types: slices.Clone(types), InData: true}
	}
	for _, d := range decls {
		types := d.TypeNames()
		if old, ok := rels[d.Name.Name]; ok {
			switch {
			case !old.Decl.IsZero():
				c.errf(d.Name.Sp, CodeDeclConflict, "relation %s is declared twice", d.Name.Name).Related = []syntax.RelatedInfo{{Span: old.Decl, Message: "first declared here"}}
			case !slices.Equal(old.Types, types):
				c.errf(d.Sp, CodeDeclConflict, "relation %s is declared as %s(%s) but the data has %s(%s)", d.Name.Name, d.Name.Name, strings.Join(types, ", "), d.Name.Name, strings.Join(old.Types, ", "))
			default:
				old.Decl = d.Sp
			}
			continue
		}
		rels[d.Name.Name] = &RelationInfo{Name: d.Name.Name, Types: types, Decl: d.Sp}
	}
	// Heads define relations; the first head fixes the arity of an
	// undeclared relation.
	headDefined := map[string]bool{}
	for _, r := range rules {
		if r.Head == nil {
			continue
		}
		name := r.Head.Name.Name
		if c.query {
			// A query head names the result, never a data relation.
			continue
		}
		if ri, ok := rels[name]; ok {
			ri.Derived = true
			continue
		}
		rels[name] = &RelationInfo{Name: name, Types: make([]string, len(r.Head.Args)), Derived: true}
		headDefined[name] = true
	}
	c.info.HeadTypes = make([][]string, len(rules))
	for i, r := range rules {
		c.rule(i, r)
	}
	// Infer undeclared head types: repeat while rules over inferred
	// relations learn more.
	for pass := 0; pass <= len(rules); pass++ {
		changed := false
		for i, r := range rules {
			if r.Head == nil {
				continue
			}
			types := c.headTypes(r)
			c.info.HeadTypes[i] = types
			if ri, ok := rels[r.Head.Name.Name]; ok && headDefined[r.Head.Name.Name] && len(ri.Types) == len(types) {
				for j, t := range types {
					if ri.Types[j] == "" && t != "" {
						ri.Types[j] = t
						changed = true
					}
				}
			}
		}
		if !changed {
			break
		}
	}
	c.types(rules)
	if !c.query {
		c.stratify(rules)
	}
	syntax.SortDiagnostics(c.info.Diagnostics)
	return c.info
}

func (c *checker) lookup(a *Atom) (*RelationInfo, bool) {
	ri, ok := c.info.Relations[a.Name.Name]
	if !ok {
		c.errf(a.Name.Sp, CodeUnknownRelation, "unknown relation %s", a.Name.Name)
		return nil, false
	}
	if len(ri.Types) != len(a.Args) {
		c.errf(a.Sp, CodeArity, "relation %s has %d parameter(s), used with %d", a.Name.Name, len(ri.Types), len(a.Args))
		return nil, false
	}
	return ri, true
}

func (c *checker) rule(_ int, r *Rule) {
	if r.Head == nil {
		return
	}
	if !c.query {
		c.lookup(r.Head)
	}
	bound := map[string]bool{}
	for _, b := range r.Body {
		if b.Atom != nil {
			_, inData := c.info.Relations[b.Atom.Name.Name]
			if !(c.query && b.Atom.Negated && !inData && b.Atom.Name.Name == r.Head.Name.Name) {
				// A query negating its own head is reported once, as
				// unstratifiable, below.
				c.lookup(b.Atom)
			}
			if !b.Atom.Negated {
				for _, t := range b.Atom.Args {
					if t.Kind == Var {
						bound[t.Value] = true
					}
				}
			}
		}
	}
	for _, t := range r.Head.Args {
		switch {
		case t.Kind == Wildcard:
			c.errf(t.Sp, CodeHeadWildcard, "'_' cannot appear in a rule head")
		case t.Kind == Var && !bound[t.Value]:
			c.errf(t.Sp, CodeUnsafe, "unsafe rule: head variable %s is not bound by a positive body atom", t.Value)
		}
	}
	for _, b := range r.Body {
		switch {
		case b.Atom != nil && b.Atom.Negated:
			for _, t := range b.Atom.Args {
				if t.Kind == Var && !bound[t.Value] {
					c.errf(t.Sp, CodeUnsafe, "unsafe rule: variable %s in a negation is not bound by a positive body atom (use '_' for \"any value\")", t.Value)
				}
			}
			if c.query && b.Atom.Name.Name == r.Head.Name.Name {
				c.errf(b.Atom.Sp, CodeUnstratifiable, "not stratifiable: the rule negates its own head relation %s", b.Atom.Name.Name)
			}
		case b.Atom != nil && c.query && b.Atom.Name.Name == r.Head.Name.Name:
			d := c.errf(b.Atom.Name.Sp, CodeQueryReadsData, "a query rule is evaluated once: %s here reads the data, not the rule's own results", b.Atom.Name.Name)
			d.Severity = syntax.SeverityWarning
		case b.Cond != nil:
			for _, t := range []*Term{b.Cond.Left, b.Cond.Right} {
				if t.Kind == Var && !bound[t.Value] {
					c.errf(t.Sp, CodeUnsafe, "unsafe rule: variable %s in a condition is not bound by a positive body atom", t.Value)
				}
				if t.Kind == Wildcard {
					c.errf(t.Sp, CodeUnsafe, "'_' cannot appear in a condition")
				}
			}
		}
	}
}

func (c *checker) relTypes(a *Atom) []string {
	ri, ok := c.info.Relations[a.Name.Name]
	if !ok || len(ri.Types) != len(a.Args) {
		return nil
	}
	return ri.Types
}

// headTypes infers the head argument types: a variable takes the type of
// its first occurrence in a positive body atom, a literal its literal type.
func (c *checker) headTypes(r *Rule) []string {
	out := make([]string, len(r.Head.Args))
	if !c.query {
		if ri, ok := c.info.Relations[r.Head.Name.Name]; ok && !ri.Decl.IsZero() && len(ri.Types) == len(out) {
			copy(out, ri.Types)
			return out
		}
		if ri, ok := c.info.Relations[r.Head.Name.Name]; ok && ri.InData && len(ri.Types) == len(out) {
			copy(out, ri.Types)
			return out
		}
	}
	for i, t := range r.Head.Args {
		switch t.Kind {
		case Str:
			out[i] = "String"
		case Num:
			out[i] = "Int"
			if strings.Contains(t.Value, ".") {
				out[i] = "Float"
			}
		case Var:
			out[i] = c.firstPositiveType(r, t.Value)
		}
	}
	return out
}

func (c *checker) firstPositiveType(r *Rule, v string) string {
	for _, b := range r.Body {
		if b.Atom == nil || b.Atom.Negated {
			continue
		}
		types := c.relTypes(b.Atom)
		for j, t := range b.Atom.Args {
			if t.Kind == Var && t.Value == v {
				if types == nil {
					return ""
				}
				return types[j]
			}
		}
	}
	return ""
}

// types checks that every variable is used at positions of one declared
// type and records each occurrence's type for hover.
func (c *checker) types(rules []*Rule) {
	for ri, r := range rules {
		if r.Head == nil {
			continue
		}
		type first struct {
			typ  string
			span syntax.Span
			rel  string
		}
		seen := map[string]first{}
		// Positive atoms fix a variable's type (the first one wins);
		// negated atoms are then checked against it.
		var atoms []*Atom
		for _, neg := range []bool{false, true} {
			for _, b := range r.Body {
				if b.Atom != nil && b.Atom.Negated == neg {
					atoms = append(atoms, b.Atom)
				}
			}
		}
		for _, atom := range atoms {
			b := BodyItem{Atom: atom}
			types := c.relTypes(b.Atom)
			if types == nil {
				continue
			}
			for j, t := range b.Atom.Args {
				if t.Kind != Var || types[j] == "" {
					continue
				}
				f, ok := seen[t.Value]
				if !ok {
					seen[t.Value] = first{typ: types[j], span: t.Sp, rel: b.Atom.Name.Name}
					continue
				}
				if f.typ != types[j] {
					c.errf(t.Sp, CodeTypeMismatch, "variable %s has type %s here (%s) but %s at its first positive use (%s)", t.Value, types[j], b.Atom.Name.Name, f.typ, f.rel).Related = []syntax.RelatedInfo{{Span: f.span, Message: fmt.Sprintf("%s first bound as %s here", t.Value, f.typ)}}
				}
			}
		}
		// Record every occurrence, body and head, with its type.
		typeOf := func(name string) string {
			if f, ok := seen[name]; ok {
				return f.typ
			}
			return ""
		}
		var occ []VarInfo
		Inspect(r, func(n Node) bool {
			if t, ok := n.(*Term); ok && t.Kind == Var {
				occ = append(occ, VarInfo{Name: t.Value, Type: typeOf(t.Value), Span: t.Sp, Rule: ri})
			}
			return true
		})
		// Head variables take the first positive occurrence's type.
		for i, t := range r.Head.Args {
			if t.Kind == Var && i < len(c.info.HeadTypes[ri]) {
				for k := range occ {
					if occ[k].Span == t.Sp {
						occ[k].Type = c.info.HeadTypes[ri][i]
					}
				}
			}
		}
		c.info.Vars = append(c.info.Vars, occ...)
	}
	sort.SliceStable(c.info.Vars, func(i, j int) bool { return c.info.Vars[i].Span.Start < c.info.Vars[j].Span.Start })
}

// stratify orders the derived relations into strata and reports negation
// through recursion.
func (c *checker) stratify(rules []*Rule) {
	var nodes []string
	index := map[string]int{}
	add := func(n string) {
		if _, ok := index[n]; !ok {
			index[n] = len(nodes)
			nodes = append(nodes, n)
		}
	}
	for _, r := range rules {
		if r.Head != nil {
			add(r.Head.Name.Name)
		}
	}
	type edge struct {
		to  int
		neg *Atom
	}
	adj := make([][]edge, len(nodes))
	for _, r := range rules {
		if r.Head == nil {
			continue
		}
		h := index[r.Head.Name.Name]
		for _, b := range r.Body {
			if b.Atom == nil {
				continue
			}
			if to, ok := index[b.Atom.Name.Name]; ok {
				e := edge{to: to}
				if b.Atom.Negated {
					e.neg = b.Atom
				}
				adj[h] = append(adj[h], e)
			}
		}
	}
	// Tarjan's algorithm emits components dependencies-first.
	idx := make([]int, len(nodes))
	low := make([]int, len(nodes))
	on := make([]bool, len(nodes))
	for i := range idx {
		idx[i] = -1
	}
	var stack []int
	comp := make([]int, len(nodes))
	counter := 0
	var strata [][]int
	var visit func(v int)
	visit = func(v int) {
		idx[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		on[v] = true
		for _, e := range adj[v] {
			if idx[e.to] < 0 {
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			} else if on[e.to] {
				low[v] = min(low[v], idx[e.to])
			}
		}
		if low[v] == idx[v] {
			var cs []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = len(strata)
				cs = append(cs, w)
				if w == v {
					break
				}
			}
			sort.Ints(cs)
			strata = append(strata, cs)
		}
	}
	for v := range nodes {
		if idx[v] < 0 {
			visit(v)
		}
	}
	for v := range nodes {
		for _, e := range adj[v] {
			if e.neg != nil && comp[e.to] == comp[v] {
				if e.to == v {
					c.errf(e.neg.Sp, CodeUnstratifiable, "not stratifiable: %s is negated in a rule that derives %s", e.neg.Name.Name, nodes[v])
				} else {
					c.errf(e.neg.Sp, CodeUnstratifiable, "not stratifiable: %s is negated in a rule for %s, which %s depends on (negation through recursion)", e.neg.Name.Name, nodes[v], e.neg.Name.Name)
				}
			}
		}
	}
	for _, cs := range strata {
		names := make([]string, len(cs))
		for i, v := range cs {
			names[i] = nodes[v]
		}
		c.info.Strata = append(c.info.Strata, names)
	}
}
