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
	// Lattice is set for a relation declared with "lattice"; Dual when
	// its last column is "Dual<T>" (the least value wins, not the
	// greatest).
	Lattice bool `json:"lattice,omitempty"`
	Dual    bool `json:"dual,omitempty"`
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
	// typing holds the variables whose type is being inferred, so that
	// a let defined by itself ("let x = x") ends the inference.
	typing map[string]bool
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
		ri := &RelationInfo{Name: d.Name.Name, Types: types, Decl: d.Sp, Lattice: d.Lattice}
		if d.Lattice && len(types) > 0 {
			ri.Dual = strings.HasPrefix(types[len(types)-1], "Dual<")
		}
		rels[d.Name.Name] = ri
	}
	// Heads define relations; the first head fixes the arity of an
	// undeclared relation.
	headDefined := map[string]bool{}
	srcRules := rules
	var srcIndex []int
	rules = nil
	for i, r := range srcRules {
		for _, x := range Expand(r) {
			rules = append(rules, x)
			srcIndex = append(srcIndex, i)
		}
	}
	if c.query && len(srcRules) == 1 && srcRules[0] != nil && len(srcRules[0].Heads) > 1 {
		c.errf(srcRules[0].Heads[1].Sp, CodeOneRule, "a query has one head; write one rule per result")
	}
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
	headTypes := make([][]string, len(rules))
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
			headTypes[i] = types
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
	c.info.HeadTypes = make([][]string, len(srcRules))
	for i := len(rules) - 1; i >= 0; i-- {
		c.info.HeadTypes[srcIndex[i]] = headTypes[i]
	}
	c.types(rules, srcIndex, headTypes)
	if !c.query {
		c.stratify(rules)
	}
	syntax.SortDiagnostics(c.info.Diagnostics)
	// A statement with several heads or alternatives is checked once per
	// simple rule it stands for; report each finding once.
	c.info.Diagnostics = slices.CompactFunc(c.info.Diagnostics, func(a, b syntax.Diagnostic) bool {
		return a.Span == b.Span && a.Code == b.Code && a.Message == b.Message
	})
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

// RuleBound returns the variables a (disjunction-free) rule body binds:
// by positive atoms (variable arguments), and by the lets, generators and
// aggregates whose inputs are bound, repeated until nothing changes.
func RuleBound(r *Rule) map[string]bool {
	bound := map[string]bool{}
	for _, b := range r.Body {
		if b.Atom != nil && !b.Atom.Negated {
			for _, t := range b.Atom.Args {
				if t.Kind == Var {
					bound[t.Value] = true
				}
			}
		}
	}
	allBound := func(xs ...Expr) bool {
		ok := true
		for _, x := range xs {
			ExprVars(x, func(t *Term) {
				if !bound[t.Value] {
					ok = false
				}
			})
		}
		return ok
	}
	for changed := true; changed; {
		changed = false
		for _, b := range r.Body {
			var v *Term
			switch {
			case b.Let != nil && allBound(b.Let.X):
				v = b.Let.Var
			case b.For != nil && allBound(b.For.Lo, b.For.Hi):
				v = b.For.Var
			case b.Agg != nil && allBound(aggOuter(r, b.Agg)...):
				v = b.Agg.Var
			}
			if v != nil && v.Kind == Var && !bound[v.Value] {
				bound[v.Value] = true
				changed = true
			}
		}
	}
	return bound
}

// aggOuter returns the variables of an aggregate's atom that the rest of
// the rule also uses: the aggregate is computed for each of their values.
// Its other variables are local to it.
func aggOuter(r *Rule, g *Agg) []Expr {
	outside := map[string]bool{}
	Inspect(r, func(n Node) bool {
		if n == g {
			return false
		}
		if t, ok := n.(*Term); ok && t.Kind == Var {
			outside[t.Value] = true
		}
		return true
	})
	var out []Expr
	for _, t := range g.Atom.Args {
		if t.Kind == Var && outside[t.Value] {
			out = append(out, t)
		}
	}
	return out
}

// AggOuter returns the names of the variables of g's atom that the rest
// of the (disjunction-free) rule r uses: the aggregate's group.
func AggOuter(r *Rule, g *Agg) []string {
	var out []string
	for _, x := range aggOuter(r, g) {
		out = append(out, x.(*Term).Value)
	}
	return out
}

func (c *checker) rule(_ int, r *Rule) {
	if r.Head == nil {
		return
	}
	if !c.query {
		c.lookup(r.Head)
	}
	for _, b := range r.Body {
		a := b.Atom
		if b.Agg != nil {
			a = b.Agg.Atom
		}
		if a == nil {
			continue
		}
		_, inData := c.info.Relations[a.Name.Name]
		if !(c.query && a.Negated && !inData && a.Name.Name == r.Head.Name.Name) {
			// A query negating its own head is reported once, as
			// unstratifiable, below.
			c.lookup(a)
		}
	}
	bound := RuleBound(r)
	// needBound reports the unbound variables and the wildcards of an
	// expression that must be computed.
	needBound := func(x Expr, where string) {
		Inspect(x, func(n Node) bool {
			t, ok := n.(*Term)
			switch {
			case !ok:
			case t.Kind == Var && !bound[t.Value]:
				c.errf(t.Sp, CodeUnsafe, "unsafe rule: variable %s in %s is not bound by a positive body atom", t.Value, where)
			case t.Kind == Wildcard:
				c.errf(t.Sp, CodeUnsafe, "'_' cannot appear in %s", where)
			}
			return true
		})
	}
	for _, t := range r.Head.Args {
		switch {
		case t.Kind == Wildcard:
			c.errf(t.Sp, CodeHeadWildcard, "'_' cannot appear in a rule head")
		case t.Kind == Var && !bound[t.Value]:
			c.errf(t.Sp, CodeUnsafe, "unsafe rule: head variable %s is not bound by a positive body atom", t.Value)
		case t.Kind == Computed:
			needBound(t.X, "a head expression")
		}
	}
	computedArgs := func(a *Atom) {
		for _, t := range a.Args {
			if t.Kind == Computed {
				needBound(t.X, "an argument expression")
			}
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
			computedArgs(b.Atom)
			if c.query && b.Atom.Name.Name == r.Head.Name.Name {
				c.errf(b.Atom.Sp, CodeUnstratifiable, "not stratifiable: the rule negates its own head relation %s", b.Atom.Name.Name)
			}
		case b.Atom != nil:
			computedArgs(b.Atom)
			if c.query && b.Atom.Name.Name == r.Head.Name.Name {
				d := c.errf(b.Atom.Name.Sp, CodeQueryReadsData, "a query rule is evaluated once: %s here reads the data, not the rule's own results", b.Atom.Name.Name)
				d.Severity = syntax.SeverityWarning
			}
		case b.Cond != nil:
			for _, t := range []*Term{b.Cond.Left, b.Cond.Right} {
				if t.Kind == Var && !bound[t.Value] {
					c.errf(t.Sp, CodeUnsafe, "unsafe rule: variable %s in a condition is not bound by a positive body atom", t.Value)
				}
				if t.Kind == Wildcard {
					c.errf(t.Sp, CodeUnsafe, "'_' cannot appear in a condition")
				}
			}
		case b.If != nil:
			needBound(b.If.X, "a condition")
		case b.Let != nil:
			needBound(b.Let.X, "a let expression")
		case b.For != nil:
			needBound(b.For.Lo, "a range bound")
			needBound(b.For.Hi, "a range bound")
		case b.Agg != nil:
			c.aggregate(r, b.Agg, bound)
		}
	}
}

// aggregate checks an aggregate clause: its arguments are variables of
// its atom, as many as its function takes, and its group is bound.
func (c *checker) aggregate(r *Rule, g *Agg, bound map[string]bool) {
	inAtom := map[string]bool{}
	for _, t := range g.Atom.Args {
		if t.Kind == Var {
			inAtom[t.Value] = true
		}
		if t.Kind == Computed {
			c.errf(t.Sp, CodeUnsafe, "an aggregated atom takes variables, '_' and literals, not expressions")
		}
	}
	want := 1
	if g.Func.Name == AggCount || g.Func.Name == AggNot {
		want = 0
	}
	if len(g.Args) != want {
		c.errf(g.Func.Sp, CodeArity, "%s takes %d argument(s), given %d", g.Func.Name, want, len(g.Args))
	}
	for _, a := range g.Args {
		if !inAtom[a.Value] {
			c.errf(a.Sp, CodeUnsafe, "aggregated variable %s does not occur in %s", a.Value, g.Atom.Name.Name)
		}
	}
	if g.Func.Name == AggNot && g.Var != nil {
		c.errf(g.Var.Sp, CodeArity, "not() yields no value; write agg () = not() in ...")
	}
	if g.Func.Name != AggNot && g.Var == nil {
		c.errf(g.Agg, CodeArity, "%s yields a value; name it: agg v = %s(...) in ...", g.Func.Name, g.Func.Name)
	}
	for _, x := range aggOuter(r, g) {
		t := x.(*Term)
		if !bound[t.Value] {
			c.errf(t.Sp, CodeUnsafe, "unsafe rule: variable %s groups the aggregate but is not bound by a positive body atom", t.Value)
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
		out[i] = c.termType(r, t)
	}
	return out
}

// termType is the type of a head term: a literal's type, a variable's
// (see firstPositiveType), or an expression's.
func (c *checker) termType(r *Rule, t *Term) string {
	switch t.Kind {
	case Str:
		return "String"
	case Num:
		if strings.Contains(t.Value, ".") {
			return "Float"
		}
		return "Int"
	case Bool:
		return "Bool"
	case Var:
		return c.firstPositiveType(r, t.Value)
	case Computed:
		return exprType(t.X)
	}
	return ""
}

// exprType is "Bool" for a logical or comparison expression and "Int"
// for arithmetic.
func exprType(x Expr) string {
	switch x := x.(type) {
	case *Binary:
		if x.Op == "&&" || x.Op == "||" || isComparison(x.Op) {
			return "Bool"
		}
		return "Int"
	case *Unary:
		if x.Op == "!" {
			return "Bool"
		}
		return "Int"
	}
	return ""
}

func (c *checker) firstPositiveType(r *Rule, v string) string {
	if c.typing[v] {
		return "" // a let defined by itself: no type
	}
	if c.typing == nil {
		c.typing = map[string]bool{}
	}
	c.typing[v] = true
	defer delete(c.typing, v)
	for _, b := range r.Body {
		if t := boundVar(b); t != nil && t.Value == v {
			_, typ := boundType(c, r, b)
			return typ
		}
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

// boundVar returns the variable a let, for or aggregate binds, or nil.
func boundVar(b BodyItem) *Term {
	switch {
	case b.Let != nil:
		return b.Let.Var
	case b.For != nil:
		return b.For.Var
	case b.Agg != nil:
		return b.Agg.Var
	}
	return nil
}

// boundType returns the variable a let, for or aggregate binds, and its
// type: a let takes its expression's type, a generator's and a count's
// variable is "Int", sum, min and max take the aggregated column's type
// and mean gives "Float".
func boundType(c *checker, r *Rule, b BodyItem) (*Term, string) {
	switch {
	case b.Let != nil:
		if t, ok := b.Let.X.(*Term); ok {
			return b.Let.Var, c.termType(r, t)
		}
		return b.Let.Var, exprType(b.Let.X)
	case b.For != nil:
		return b.For.Var, "Int"
	case b.Agg != nil && b.Agg.Var != nil:
		switch b.Agg.Func.Name {
		case AggCount:
			return b.Agg.Var, "Int"
		case AggMean:
			return b.Agg.Var, "Float"
		}
		if len(b.Agg.Args) == 1 {
			types := c.relTypes(b.Agg.Atom)
			for j, t := range b.Agg.Atom.Args {
				if types != nil && t.Kind == Var && t.Value == b.Agg.Args[0].Value {
					return b.Agg.Var, types[j]
				}
			}
		}
		return b.Agg.Var, ""
	}
	return nil, ""
}

// types checks that every variable is used at positions of one declared
// type and records each occurrence's type for hover.
func (c *checker) types(rules []*Rule, srcIndex []int, headTypes [][]string) {
	for xi, r := range rules {
		ri := srcIndex[xi]
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
				if neg && b.Agg != nil {
					atoms = append(atoms, b.Agg.Atom)
				}
			}
		}
		for _, b := range r.Body {
			if v, typ := boundType(c, r, b); v != nil && v.Kind == Var && typ != "" {
				if _, ok := seen[v.Value]; !ok {
					seen[v.Value] = first{typ: typ, span: v.Sp, rel: "the " + firstWord(b)}
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
			if t.Kind == Var && i < len(headTypes[xi]) {
				for k := range occ {
					if occ[k].Span == t.Sp {
						occ[k].Type = headTypes[xi][i]
					}
				}
			}
		}
		c.info.Vars = append(c.info.Vars, occ...)
	}
	sort.SliceStable(c.info.Vars, func(i, j int) bool { return c.info.Vars[i].Span.Start < c.info.Vars[j].Span.Start })
	// A statement with several heads or alternatives lists each
	// occurrence once.
	c.info.Vars = slices.CompactFunc(c.info.Vars, func(a, b VarInfo) bool { return a.Span == b.Span })
}

// firstWord names a body item's clause for messages.
func firstWord(b BodyItem) string {
	switch {
	case b.Let != nil:
		return "let"
	case b.For != nil:
		return "for"
	case b.Agg != nil:
		return "agg"
	}
	return "item"
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
		agg *Agg
	}
	adj := make([][]edge, len(nodes))
	for _, r := range rules {
		if r.Head == nil {
			continue
		}
		h := index[r.Head.Name.Name]
		for _, b := range r.Body {
			if b.Agg != nil {
				if to, ok := index[b.Agg.Atom.Name.Name]; ok {
					adj[h] = append(adj[h], edge{to: to, agg: b.Agg})
				}
				continue
			}
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
	// path returns the relations from one node to another inside their
	// component, both ends included.
	path := func(from, to int) []string {
		prev := map[int]int{from: -1}
		queue := []int{from}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			if v == to {
				break
			}
			for _, e := range adj[v] {
				if _, ok := prev[e.to]; !ok && comp[e.to] == comp[from] {
					prev[e.to] = v
					queue = append(queue, e.to)
				}
			}
		}
		var out []string
		for v := to; v >= 0; v = prev[v] {
			out = append([]string{nodes[v]}, out...)
			if v == from {
				break
			}
		}
		return out
	}
	for v := range nodes {
		for _, e := range adj[v] {
			if e.agg != nil && comp[e.to] == comp[v] {
				// The cycle: v aggregates over e.to, which depends on v.
				cycle := append([]string{nodes[v]}, path(e.to, v)...)
				c.errf(e.agg.Sp, CodeUnstratifiable, "not stratifiable: the aggregate over %s in a rule for %s is part of a cycle (%s); an aggregate reads a relation that is complete, so it cannot depend on its own result", nodes[e.to], nodes[v], strings.Join(cycle, " -> "))
			}
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
