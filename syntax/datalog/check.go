package datalog

import (
	"cmp"
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
	// DS is the data structure an attribute "#[ds(...)]" gives the
	// relation: DSEqrel, DSTrrel, or "" for an ordinary relation.
	DS string `json:"ds,omitempty"`
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
func Check(prog *Program, schema Schema) *Info { return CheckIn(nil, prog, schema) }

// CheckIn is Check for a caller that is done with the result before it
// checks the next program: the result (its relations, head types and
// variable occurrences) is recorded in ar's memory (nil: on the heap),
// with the checker's working memory, and must not be used once the arena
// is reset or checks another program.
func CheckIn(ar *Arena, prog *Program, schema Schema) *Info {
	// The program's identifiers bound its variable occurrences: the
	// checker records those in one allocation.
	idents := prog.idents
	if idents == 0 {
		for i := range prog.Tokens {
			if prog.Tokens[i].Kind == TokIdent {
				idents++
			}
		}
	}
	if ar == nil {
		return check(prog.Rules, prog.Decls, schema, false, idents, nil)
	}
	info := checkTyping(prog.Rules, prog.Decls, schema, false, idents, ar.vars, &ar.check, false)
	if cap(info.Vars) > cap(ar.vars) {
		ar.vars = info.Vars[:0]
	}
	return info
}

// CheckRule checks a single query rule against schema. The head names the
// query result: the rule is evaluated once over the data, so the head
// relation may not appear negated in the body.
func CheckRule(r *Rule, schema Schema) *Info {
	if r == nil {
		return &Info{Relations: map[string]*RelationInfo{}}
	}
	return check([]*Rule{r}, nil, schema, true, 0, nil)
}

type checker struct {
	info  *Info
	query bool
	// vars is the variable table ruleTypes fills, reused rule to rule;
	// bound is the same for the variables a rule binds.
	vars  varTab
	bound boundSet
	mem   *checkMem // working memory kept between checks; nil: none
	// strs and rels are the free parts of the blocks the checker takes
	// its type lists and relation entries from.
	strs []string
	rels []RelationInfo
	// last and lastName are the relation entry the last relation call
	// found (atoms of a rule often read the same relation).
	last     *RelationInfo
	lastName string
	// ran is set by ruleTypes; flagged when the rule it typed has a
	// finding to report (whether or not it reported it).
	ran, flagged bool
	// rel numbers the relations the rules name, once per check: the
	// passes over the rules look relations up by number, not by name.
	rel relIDs
}

// relIDs numbers the relations the checked rules name.
type relIDs struct {
	of    map[string]int
	names []string // by number
	// info is each relation's entry (nil: unknown), learnt the step at
	// which a relation defined by heads last learnt a type (see
	// checkTyping), headDefined whether heads define it.
	info        []*RelationInfo
	learnt      []int
	headDefined []bool
	anyLearnt   bool
	// at[i] is where rule i's numbers start in ids: its head's, then for
	// each body item that of its atom and that of its aggregate's atom
	// (-1: none).
	at  []int32
	ids []int32
}

// intern returns the number of relation name, numbering it if new.
func (c *checker) intern(name string) int32 {
	if id, ok := c.rel.of[name]; ok {
		return int32(id)
	}
	id := len(c.rel.names)
	c.rel.of[name] = id
	c.rel.names = append(c.rel.names, name)
	return int32(id)
}

// atomID returns the number of a's relation, -1 for no atom.
func (c *checker) atomID(a *Atom) int32 {
	if a == nil {
		return -1
	}
	return c.intern(a.Name.Name)
}

// number numbers the relations of rules (their heads and the atoms of
// their bodies) and records their entries in rels.
func (c *checker) number(rules []*Rule, rels map[string]*RelationInfo) {
	mem := c.mem
	m := mem
	if m == nil {
		m = &checkMem{}
	}
	slots := 0
	for _, r := range rules {
		if r.Head != nil {
			slots += 1 + 2*len(r.Body)
		}
	}
	c.rel.of = intMap(mem, &m.relOf, len(rules))
	c.rel.names = scratchEmpty(mem, &m.relNames, slots)
	c.rel.at = scratch(mem, &m.relAt, len(rules))
	ids := scratchEmpty(mem, &m.relIDs, slots)
	for i, r := range rules {
		c.rel.at[i] = int32(len(ids))
		if r.Head == nil {
			continue
		}
		ids = append(ids, c.intern(r.Head.Name.Name))
		for _, b := range r.Body {
			agg := int32(-1)
			if b.Agg != nil {
				agg = c.atomID(b.Agg.Atom)
			}
			ids = append(ids, c.atomID(b.Atom), agg)
		}
	}
	c.rel.ids = ids
	n := len(c.rel.names)
	c.rel.info = scratch(mem, &m.relInfo, n)
	for id, name := range c.rel.names {
		c.rel.info[id] = rels[name]
	}
	c.rel.learnt = scratch(mem, &m.relLearnt, n)
	c.rel.headDefined = scratch(mem, &m.relHeadDefined, n)
	c.rel.anyLearnt = false
}

// headID, bodyID and aggID return the number of rule i's head relation,
// of the relation of its body item j's atom and of that of its aggregate
// (-1: none).
func (c *checker) headID(i int) int32    { return c.rel.ids[c.rel.at[i]] }
func (c *checker) bodyID(i, j int) int32 { return c.rel.ids[int(c.rel.at[i])+1+2*j] }
func (c *checker) aggID(i, j int) int32  { return c.rel.ids[int(c.rel.at[i])+2+2*j] }

// relationID returns the entry of relation number id.
func (c *checker) relationID(id int32) (*RelationInfo, bool) {
	if id < 0 {
		return nil, false
	}
	ri := c.rel.info[id]
	return ri, ri != nil
}

// relation returns the entry of relation name. It is for the checks of
// the rules, once every relation has its entry.
func (c *checker) relation(name string) (*RelationInfo, bool) {
	if c.last != nil && c.lastName == name {
		return c.last, true
	}
	ri, ok := c.info.Relations[name]
	if ok {
		c.last, c.lastName = ri, name
	}
	return ri, ok
}

// checkBlock is the number of type names or relation entries the checker
// allocates at once.
const checkBlock = 128

// strings returns n empty type names, the list's capacity its length.
func (c *checker) strings(n int) []string {
	if n == 0 || n > checkBlock/4 {
		return make([]string, n) // never nil, as before
	}
	if len(c.strs) < n {
		c.strs = make([]string, checkBlock)
	}
	out := c.strs[:n:n]
	clear(out) // here rather than all at once: the names are used next
	c.strs = c.strs[n:]
	return out
}

// newRelation returns a relation entry for the caller to set in full: one
// from the arena's memory may hold an earlier check's entry.
func (c *checker) newRelation() *RelationInfo {
	if len(c.rels) == 0 {
		c.rels = make([]RelationInfo, checkBlock/4)
	}
	ri := &c.rels[0]
	c.rels = c.rels[1:]
	return ri
}

// typings keeps, per rule, the variable table its head types were
// inferred from, for the check of the rule's types to reuse when the
// relations the rule reads learnt no type since: the table is the same,
// and a rule without findings has nothing more to report. Tables are
// stored one after the other in all.
type typings struct {
	all []keptVar
	// at is the part of all holding rule i's table; a zero end: none.
	at [][2]int32
}

// keep records c.vars as rule i's table when the last ruleTypes run
// found nothing to report and the table needs no index.
func (ty *typings) keep(c *checker, i int) {
	if !c.ran || c.flagged || len(c.vars.list) >= varTabIndexed {
		ty.at[i] = [2]int32{}
		return
	}
	start := len(ty.all)
	for _, v := range c.vars.list {
		ty.all = append(ty.all, keptVar{v.name, v.typ})
	}
	ty.at[i] = [2]int32{int32(start), int32(len(ty.all))}
}

// keptVar is a variable of a rule and its type, as typings keeps them.
type keptVar struct{ name, typ string }

// keptType returns the type of variable name in a kept table.
func keptType(vars []keptVar, name string) string {
	for _, v := range vars {
		if v.name == name {
			return v.typ
		}
	}
	return ""
}

func (c *checker) errf(span syntax.Span, code, format string, args ...any) *syntax.Diagnostic {
	c.info.Diagnostics = append(c.info.Diagnostics, syntax.Diagnostic{Span: span, Severity: syntax.SeverityError, Code: code, Message: fmt.Sprintf(format, args...)})
	return &c.info.Diagnostics[len(c.info.Diagnostics)-1]
}

// untyped reports whether a relation of the data has no parameter types:
// at least one parameter, each of type "".
func untyped(types []string) bool {
	for _, t := range types {
		if t != "" {
			return false
		}
	}
	return len(types) > 0
}

// dataStructure records the data structure d's attribute gives ri and
// checks ri's columns fit it.
func (c *checker) dataStructure(ri *RelationInfo, d *Decl) {
	ri.DS = d.DS.Name
	types := d.TypeNames()
	n := len(types)
	switch {
	case n != 2 && n != 3:
		c.errf(d.Name.Sp, CodeArity, "%s relation %s has two columns (or a key column and two), not %d", d.DS.Name, d.Name.Name, n)
	case types[n-2] != types[n-1]:
		c.errf(d.Sp, CodeTypeMismatch, "the two related columns of %s relation %s have one type, not %s and %s", d.DS.Name, d.Name.Name, types[n-2], types[n-1])
	}
}

// check checks rules and declarations; varHint is the expected number of
// variable occurrences, 0 if unknown.
func check(rules []*Rule, decls []*Decl, schema Schema, query bool, varHint int, vars []VarInfo) *Info {
	return checkTyping(rules, decls, schema, query, varHint, vars, nil, false)
}

// checkTyping is check with working memory mem (nil: its own); with
// retype set it types every rule again for the check of its types instead
// of reusing the table its head types were inferred from (the tests
// compare both).
func checkTyping(rules []*Rule, decls []*Decl, schema Schema, query bool, varHint int, vars []VarInfo, mem *checkMem, retype bool) *Info {
	c := &checker{info: &Info{}, query: query, mem: mem}
	if mem != nil {
		// The relation entries and type lists of the rules' heads come
		// from the arena's memory, as much of them as it holds.
		c.info.Relations = relMap(&mem.relations, len(schema)+len(decls)+len(rules))
		c.rels = scratchDirty(mem, &mem.rels, len(rules)) // newRelation's callers set all of an entry
		heads := 0
		for _, r := range rules {
			if r != nil && r.Head != nil {
				heads += len(r.Head.Args)
			}
		}
		c.strs = scratchDirty(mem, &mem.strs, 2*heads) // strings clears what it hands out
	} else {
		c.info.Relations = make(map[string]*RelationInfo, len(schema)+len(decls)+len(rules))
	}
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
			case untyped(old.Types) && len(old.Types) == len(types):
				// Data without types (a facts file nothing declares)
				// takes the program's.
				old.Types, old.Decl = types, d.Sp
			case !slices.Equal(old.Types, types):
				c.errf(d.Sp, CodeDeclConflict, "relation %s is declared as %s(%s) but the data has %s(%s)", d.Name.Name, d.Name.Name, strings.Join(types, ", "), d.Name.Name, strings.Join(old.Types, ", "))
			default:
				old.Decl = d.Sp
			}
			if old.InData && d.DS != nil {
				// The data's tuples are the relation's: its attribute
				// applies to them.
				c.dataStructure(old, d)
			}
			if old.Decl == d.Sp && d.Lattice && len(old.Types) > 0 {
				// So does "lattice": the data's tuples keep, per key,
				// their best value as derived ones do.
				old.Lattice = true
				old.Dual = strings.HasPrefix(old.Types[len(old.Types)-1], "Dual<")
			}
			continue
		}
		ri := &RelationInfo{Name: d.Name.Name, Types: types, Decl: d.Sp, Lattice: d.Lattice}
		if d.DS != nil {
			c.dataStructure(ri, d)
		}
		if d.Lattice && len(types) > 0 {
			ri.Dual = strings.HasPrefix(types[len(types)-1], "Dual<")
		}
		rels[d.Name.Name] = ri
	}
	// Heads define relations; the first head fixes the arity of an
	// undeclared relation.
	srcRules := rules
	var srcIndex []int
	// A nil mem gives scratch new memory; any gives it a place to keep it.
	m := mem
	if m == nil {
		m = &checkMem{}
	}
	rules = scratchEmpty(mem, &m.rules, len(srcRules))
	srcIndex = scratchEmpty(mem, &m.srcIndex, len(srcRules))
	expanded := false // some statement stands for other rules than itself
	for i, r := range srcRules {
		if r != nil && simple(r) {
			rules = append(rules, r)
			srcIndex = append(srcIndex, i)
			continue
		}
		expanded = true
		for _, x := range Expand(r) {
			rules = append(rules, x)
			srcIndex = append(srcIndex, i)
		}
	}
	if c.query && len(srcRules) == 1 && srcRules[0] != nil && len(srcRules[0].Heads) > 1 {
		c.errf(srcRules[0].Heads[1].Sp, CodeOneRule, "a query has one head; write one rule per result")
	}
	c.number(rules, rels)
	for i, r := range rules {
		if r.Head == nil {
			continue
		}
		name := r.Head.Name.Name
		if c.query {
			// A query head names the result, never a data relation.
			continue
		}
		id := c.headID(i)
		if ri := c.rel.info[id]; ri != nil {
			ri.Derived = true
			continue
		}
		ri := c.newRelation()
		*ri = RelationInfo{Name: name, Types: c.strings(len(r.Head.Args)), Derived: true}
		rels[name] = ri
		c.rel.info[id] = ri
		c.rel.headDefined[id] = true
	}
	headTypes := scratch(mem, &m.headTypes, len(rules))
	for i, r := range rules {
		c.rule(i, r)
	}
	// Infer undeclared head types: repeat while rules over inferred
	// relations learn more.
	// A rule's head types depend only on the types of the relations its
	// body reads: a later pass recomputes them only when one of those
	// learnt a type since (c.rel.learnt is the step at which it last did,
	// computed[i] the step at which rule i's types were computed).
	learnt := c.rel.learnt
	var computed []int
	var ty typings
	if mem != nil {
		computed = scratch(mem, &mem.computed, len(rules))
		ty = typings{all: mem.kept[:0], at: scratch(mem, &mem.at, len(rules))}
	} else {
		computed = make([]int, len(rules))
		ty = typings{at: make([][2]int32, len(rules))}
	}
	step := 0
	for pass := 0; pass <= len(rules); pass++ {
		changed := false
		for i, r := range rules {
			if r.Head == nil {
				continue
			}
			if pass > 0 && !c.readsNewer(i, r, computed[i]) {
				// Same inputs, same types, already merged.
				continue
			}
			computed[i] = step
			c.ran = false
			types := c.headTypes(i, r)
			ty.keep(c, i)
			headTypes[i] = types
			if hid := c.headID(i); c.rel.info[hid] != nil && c.rel.headDefined[hid] && len(c.rel.info[hid].Types) == len(types) {
				ri := c.rel.info[hid]
				for j, t := range types {
					if ri.Types[j] == "" && t != "" {
						ri.Types[j] = t
						changed = true
						step++
						learnt[hid] = step
						c.rel.anyLearnt = true
					}
				}
			}
		}
		if !changed {
			break
		}
	}
	c.info.HeadTypes = scratch(mem, &m.infoHeadTypes, len(srcRules))
	for i := len(rules) - 1; i >= 0; i-- {
		c.info.HeadTypes[srcIndex[i]] = headTypes[i]
	}
	switch {
	case mem != nil && mem.omitVars:
	case varHint > 0 && cap(vars) >= varHint:
		c.info.Vars = vars[:0]
	case varHint > 0:
		c.info.Vars = make([]VarInfo, 0, varHint)
	}
	// The tables of rules whose inputs learnt a type after them are
	// stale.
	for i, r := range rules {
		if ty.at[i][1] > 0 && (retype || r.Head != nil && c.readsNewer(i, r, computed[i])) {
			ty.at[i] = [2]int32{}
		}
	}
	c.types(rules, srcIndex, headTypes, &ty, expanded)
	if mem != nil {
		mem.kept = ty.all[:0]
	}
	if len(c.info.Vars) == 0 {
		c.info.Vars = nil // as without the hint
	}
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

// readsNewer reports whether rule r reads a relation that learnt a type
// after step since (or has items whose relations it cannot tell).
// r is the checker's rule i.
func (c *checker) readsNewer(i int, r *Rule, since int) bool {
	if !c.rel.anyLearnt {
		return false
	}
	learnt := c.rel.learnt
	for j, b := range r.Body {
		switch {
		case b.Disj != nil || b.Macro != nil:
			return true
		case b.Atom != nil && learnt[c.bodyID(i, j)] > since:
			return true
		case b.Agg != nil && b.Agg.Atom != nil && learnt[c.aggID(i, j)] > since:
			return true
		}
	}
	return false
}

// lookup returns the entry of atom a's relation, number id, reporting an
// unknown relation or a wrong number of arguments.
func (c *checker) lookup(a *Atom, id int32) (*RelationInfo, bool) {
	ri, ok := c.relationID(id)
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
	var s boundSet
	ruleBound(r, &s)
	m := make(map[string]bool, len(s.list))
	for _, name := range s.list {
		m[name] = true
	}
	return m
}

// boundSet is the set of variables a rule binds: a short list (rules have
// few variables), with a map once it grows long.
type boundSet struct {
	list  []string
	index map[string]bool
}

func (s *boundSet) reset() {
	clear(s.list)
	s.list, s.index = s.list[:0], nil
}

// has reports whether name is in the set.
func (s *boundSet) has(name string) bool {
	if s.index != nil {
		return s.index[name]
	}
	for _, x := range s.list {
		if x == name {
			return true
		}
	}
	return false
}

// add adds name to the set and reports whether it was not there yet.
func (s *boundSet) add(name string) bool {
	if s.has(name) {
		return false
	}
	s.list = append(s.list, name)
	switch {
	case s.index != nil:
		s.index[name] = true
	case len(s.list) >= varTabIndexed:
		s.index = make(map[string]bool, 2*len(s.list))
		for _, x := range s.list {
			s.index[x] = true
		}
	}
	return true
}

// ruleBound is RuleBound filling the empty set bound.
func ruleBound(r *Rule, bound *boundSet) {
	for _, b := range r.Body {
		if b.Atom != nil && !b.Atom.Negated {
			for _, t := range b.Atom.Args {
				if t != nil && t.Kind == Var {
					bound.add(t.Value) // PatternVars' answer
					continue
				}
				PatternVars(t, func(v *Term) { bound.add(v.Value) })
			}
		}
	}
	allBound := func(xs ...Expr) bool {
		ok := true
		for _, x := range xs {
			ExprVars(x, func(t *Term) {
				if !bound.has(t.Value) {
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
			case b.For != nil && allBound(append([]Expr{b.For.Lo, b.For.Hi}, b.For.List...)...):
				v = b.For.Var
			case b.Agg != nil && allBound(aggOuter(r, b.Agg)...):
				v = b.Agg.Var
			}
			if v != nil {
				PatternVars(v, func(v *Term) {
					if bound.add(v.Value) {
						changed = true
					}
				})
			}
		}
	}
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

func (c *checker) rule(i int, r *Rule) {
	if r.Head == nil {
		return
	}
	if !c.query {
		c.lookup(r.Head, c.headID(i))
	}
	for j, b := range r.Body {
		a, id := b.Atom, c.bodyID(i, j)
		if b.Agg != nil {
			a, id = b.Agg.Atom, c.aggID(i, j)
		}
		if a == nil {
			continue
		}
		_, inData := c.relationID(id)
		if !(c.query && a.Negated && !inData && a.Name.Name == r.Head.Name.Name) {
			// A query negating its own head is reported once, as
			// unstratifiable, below.
			c.lookup(a, id)
		}
	}
	bound := &c.bound
	bound.reset()
	ruleBound(r, bound)
	// needBound reports the unbound variables and the wildcards of an
	// expression that must be computed.
	needBound := func(x Expr, where string) {
		Inspect(x, func(n Node) bool {
			t, ok := n.(*Term)
			switch {
			case !ok:
			case t.Kind == Var && !bound.has(t.Value):
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
		case t.Kind == Var && !bound.has(t.Value):
			c.errf(t.Sp, CodeUnsafe, "unsafe rule: head variable %s is not bound by a positive body atom", t.Value)
		case t.Kind == Computed:
			needBound(t.X, "a head expression")
		case t.Kind == Tuple:
			needBound(t, "a head tuple")
		}
	}
	// pattern checks a tuple pattern of a positive atom: its variables
	// and "_" match, its expressions are computed.
	var pattern func(t *Term)
	pattern = func(t *Term) {
		for _, e := range t.Elems {
			switch e.Kind {
			case Computed:
				needBound(e.X, "an argument expression")
			case Tuple:
				pattern(e)
			}
		}
	}
	computedArgs := func(a *Atom) {
		for _, t := range a.Args {
			switch {
			case t.Kind == Computed:
				needBound(t.X, "an argument expression")
			case t.Kind == Tuple && a.Negated:
				needBound(t, "a negated tuple")
			case t.Kind == Tuple:
				pattern(t)
			}
		}
	}
	for _, b := range r.Body {
		switch {
		case b.Atom != nil && b.Atom.Negated:
			for _, t := range b.Atom.Args {
				if t.Kind == Var && !bound.has(t.Value) {
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
				if t.Kind == Var && !bound.has(t.Value) {
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
			for _, x := range b.For.List {
				needBound(x, "a list")
			}
		case b.Agg != nil:
			c.aggregate(r, b.Agg, bound)
		}
	}
}

// aggregate checks an aggregate clause: its arguments are variables of
// its atom, as many as its function takes, and its group is bound.
func (c *checker) aggregate(r *Rule, g *Agg, bound *boundSet) {
	inAtom := map[string]bool{}
	for _, t := range g.Atom.Args {
		if t.Kind == Var {
			inAtom[t.Value] = true
		}
		if t.Kind == Computed || t.Kind == Tuple {
			c.errf(t.Sp, CodeUnsafe, "an aggregated atom takes variables, '_' and literals, not expressions or tuples")
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
		if !bound.has(t.Value) {
			c.errf(t.Sp, CodeUnsafe, "unsafe rule: variable %s groups the aggregate but is not bound by a positive body atom", t.Value)
		}
	}
}

func (c *checker) relTypes(a *Atom) []string {
	ri, ok := c.relation(a.Name.Name)
	if !ok || len(ri.Types) != len(a.Args) {
		return nil
	}
	return ri.Types
}

// relTypesID is relTypes for atom a of relation number id.
func (c *checker) relTypesID(a *Atom, id int32) []string {
	ri, ok := c.relationID(id)
	if !ok || len(ri.Types) != len(a.Args) {
		return nil
	}
	return ri.Types
}

// headTypes infers the head argument types of the checker's rule i, r: a
// variable takes the type of its first occurrence in a positive body
// atom, a literal its literal type.
func (c *checker) headTypes(i int, r *Rule) []string {
	out := c.strings(len(r.Head.Args))
	if !c.query {
		if ri, ok := c.relationID(c.headID(i)); ok && !ri.Decl.IsZero() && len(ri.Types) == len(out) {
			copy(out, ri.Types)
			return out
		}
		if ri, ok := c.relationID(c.headID(i)); ok && ri.InData && len(ri.Types) == len(out) {
			copy(out, ri.Types)
			return out
		}
	}
	vars := c.ruleTypes(i, r, false)
	for i, t := range r.Head.Args {
		out[i] = c.valueType(t, vars).typ
	}
	return out
}

// vtype is a type the checker infers. A flexible type is that of a
// literal, an arithmetic result, a generator or a count: like Rust's
// integer literals it takes the type of the first column it meets
// (an integer literal the column's integer type), and only a column of
// another kind is a mismatch.
type vtype struct {
	typ  string // the type's name; for a flexible type Int, Float, String or Bool
	flex bool
}

// typeKind classifies a type name: "int", "float", "number" (either),
// "string", "bool", or "" for a name the checker cannot classify (a
// program's own type, a type parameter), which any literal fits.
func typeKind(t string) string {
	if inner, ok := strings.CutPrefix(t, "Dual<"); ok && strings.HasSuffix(inner, ">") {
		t = strings.TrimSuffix(inner, ">")
	}
	switch strings.ToLower(t) {
	case "int", "integer", "i8", "i16", "i32", "i64", "i128", "isize",
		"u8", "u16", "u32", "u64", "u128", "usize":
		return "int"
	case "float", "f32", "f64":
		return "float"
	case "number":
		return "number"
	case "string", "str", "&str", "&'static str", "rc<str>", "arc<str>", "symbol":
		return "string"
	case "bool":
		return "bool"
	}
	if IsTupleType(t) {
		return "tuple"
	}
	return ""
}

// fits reports whether a flexible type can take the column type col.
func fits(flex, col string) bool {
	k := typeKind(col)
	switch typeKind(flex) {
	case "int":
		return k == "int" || k == "number" || k == ""
	case "float":
		return k == "float" || k == "number" || k == ""
	case "string":
		return k == "string" || k == ""
	case "bool":
		return k == "bool" || k == ""
	case "tuple":
		if k == "" {
			return true
		}
		fs, cs := TupleTypes(flex), TupleTypes(col)
		if k != "tuple" || len(fs) != len(cs) {
			return false
		}
		for i := range fs {
			if fs[i] != cs[i] && !fits(fs[i], cs[i]) {
				return false
			}
		}
		return true
	}
	return true
}

// describe names a type for messages: a declared type by its name, a
// flexible one by what it is (the program never wrote its name).
func (t vtype) describe() string {
	if !t.flex {
		return t.typ
	}
	switch typeKind(t.typ) {
	case "int":
		return "an integer"
	case "float":
		return "a decimal number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "tuple":
		return "a tuple " + t.typ
	}
	return t.typ
}

// verb says what a value of the type is: "has type i32", "is an integer".
func (t vtype) verb() string {
	if t.flex {
		return "is " + t.describe()
	}
	return "has type " + t.typ
}

// valueType is the type of a term or expression given the rule's
// variable types: an arithmetic result takes the type of its typed
// operands (as in Rust, x + 1 is x's type), else it is a flexible
// integer (a decimal when an operand is a decimal literal).
func (c *checker) valueType(x Expr, vars *varTab) vtype {
	switch x := x.(type) {
	case *Term:
		switch x.Kind {
		case Str:
			return vtype{"String", true}
		case Num:
			if strings.Contains(x.Value, ".") {
				return vtype{"Float", true}
			}
			return vtype{"Int", true}
		case Bool:
			return vtype{"Bool", true}
		case Var:
			return vars.typeOf(x.Value)
		case Computed:
			return c.valueType(x.X, vars)
		case Tuple:
			elems := make([]string, len(x.Elems))
			flex := false
			for i, e := range x.Elems {
				v := c.valueType(e, vars)
				if v.typ == "" {
					return vtype{}
				}
				elems[i], flex = v.typ, flex || v.flex
			}
			return vtype{tupleTypeName(elems), flex}
		}
	case *Binary:
		if x.Op == "&&" || x.Op == "||" || isComparison(x.Op) {
			return vtype{"Bool", true}
		}
		l, r := c.valueType(x.L, vars), c.valueType(x.R, vars)
		switch {
		case l.typ != "" && !l.flex:
			return l
		case r.typ != "" && !r.flex:
			return r
		case l.typ == "Float" || r.typ == "Float":
			return vtype{"Float", true}
		}
		return vtype{"Int", true}
	case *Call:
		fn, _ := LookupFunction(x.Name.Name)
		switch fn.Result {
		case "bool":
			return vtype{"Bool", true}
		case "String":
			return vtype{"String", true}
		case "usize":
			return vtype{"Int", true}
		case "T":
			if x.Type != nil {
				return vtype{typ: x.Type.Name}
			}
		case "Self":
			if x.Recv != nil {
				if v := c.valueType(x.Recv, vars); v.typ != "" && !v.flex {
					return v
				}
			}
			for _, a := range x.Args {
				if v := c.valueType(a, vars); v.typ != "" && !v.flex {
					return v
				}
			}
			if x.Recv != nil {
				return c.valueType(x.Recv, vars)
			}
		}
		return vtype{}
	case *Unary:
		if x.Op == "!" {
			return vtype{"Bool", true}
		}
		if v := c.valueType(x.X, vars); v.typ != "" {
			return v
		}
		return vtype{"Int", true}
	}
	return vtype{}
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

// boundType returns the type of the variable a let, for or aggregate
// binds: a let takes its expression's type, a generator its bounds'
// (a flexible integer for literal bounds), a count a flexible integer,
// sum, min and max the aggregated column's type and mean a flexible
// decimal.
func (c *checker) boundType(b BodyItem, vars *varTab) vtype {
	switch {
	case b.Let != nil:
		return c.valueType(b.Let.X, vars)
	case b.For != nil && b.For.List != nil:
		// A list's values: the type of its first typed element.
		var flex vtype
		for _, x := range b.For.List {
			switch t := c.valueType(x, vars); {
			case t.typ != "" && !t.flex:
				return t
			case t.typ != "" && flex.typ == "":
				flex = t
			}
		}
		return flex
	case b.For != nil:
		for _, x := range []Expr{b.For.Lo, b.For.Hi} {
			if t := c.valueType(x, vars); t.typ != "" && !t.flex {
				return t
			}
		}
		return vtype{"Int", true}
	case b.Agg != nil && b.Agg.Var != nil:
		switch b.Agg.Func.Name {
		case AggCount:
			return vtype{"Int", true}
		case AggMean:
			return vtype{"Float", true}
		}
		if len(b.Agg.Args) == 1 {
			types := c.relTypes(b.Agg.Atom)
			for j, t := range b.Agg.Atom.Args {
				if types != nil && t.Kind == Var && t.Value == b.Agg.Args[0].Value && types[j] != "" {
					return vtype{typ: types[j]}
				}
			}
		}
	}
	return vtype{}
}

// varFirst is what the checker knows of a variable of a rule: its type
// and where it first got it.
type varFirst struct {
	name string
	vtype
	span syntax.Span
	rel  string
}

// varTab holds the variables of one rule in the order they got a type.
// Rules have few variables: a lookup scans the list, and an index map is
// built only for long rules.
type varTab struct {
	list  []varFirst
	index map[string]int
}

// varTabIndexed is the length from which a varTab keeps an index map.
const varTabIndexed = 16

func (t *varTab) reset() {
	clear(t.list)
	t.list = t.list[:0]
	t.index = nil
}

// find returns the position of variable name, or -1.
func (t *varTab) find(name string) int {
	if t.index != nil {
		if i, ok := t.index[name]; ok {
			return i
		}
		return -1
	}
	for i := range t.list {
		if t.list[i].name == name {
			return i
		}
	}
	return -1
}

func (t *varTab) add(f varFirst) {
	t.list = append(t.list, f)
	switch {
	case t.index != nil:
		t.index[f.name] = len(t.list) - 1
	case len(t.list) >= varTabIndexed:
		t.index = make(map[string]int, 2*len(t.list))
		for i := range t.list {
			t.index[t.list[i].name] = i
		}
	}
}

// typeOf returns the type of variable name, the zero vtype if unknown.
func (t *varTab) typeOf(name string) vtype {
	if i := t.find(name); i >= 0 {
		return t.list[i].vtype
	}
	return vtype{}
}

// ruleTyper infers the variable types of one rule (see ruleTypes).
type ruleTyper struct {
	c      *checker
	report bool
	seen   *varTab
}

func (rt *ruleTyper) mismatch(t *Term, here vtype, where string, f varFirst) {
	rt.c.flagged = true
	if !rt.report {
		return
	}
	rt.c.errf(t.Sp, CodeTypeMismatch, "variable %s %s here (%s) but %s at its first positive use (%s)", t.Value, here.verb(), where, f.describe(), f.rel).Related = []syntax.RelatedInfo{{Span: f.span, Message: fmt.Sprintf("%s first bound as %s here", t.Value, f.describe())}}
}

// meet records that variable t is used at a column of type col.
func (rt *ruleTyper) meet(t *Term, col, rel string) {
	i := rt.seen.find(t.Value)
	if i < 0 {
		rt.seen.add(varFirst{t.Value, vtype{typ: col}, t.Sp, rel})
		return
	}
	f := rt.seen.list[i]
	switch {
	case f.flex && fits(f.typ, col):
		rt.seen.list[i].vtype = vtype{typ: col}
	case f.typ != col:
		rt.mismatch(t, vtype{typ: col}, rel, f)
	}
}

// meetPattern meets the variables of a tuple pattern with the element
// types of col.
func (rt *ruleTyper) meetPattern(t *Term, col, rel string) {
	elems := TupleTypes(col)
	if len(elems) != len(t.Elems) {
		if typeKind(col) != "" {
			rt.c.flagged = true
		}
		if rt.report && typeKind(col) != "" {
			rt.c.errf(t.Sp, CodeTypeMismatch, "a tuple of %d element(s) where %s has type %s", len(t.Elems), rel, col)
		}
		return
	}
	for i, e := range t.Elems {
		switch {
		case e.Kind == Var && elems[i] != "":
			rt.meet(e, elems[i], rel)
		case e.Kind == Tuple:
			rt.meetPattern(e, elems[i], rel)
		}
	}
}

// atom meets the variables and patterns of an atom, of relation number
// id, with its columns.
func (rt *ruleTyper) atom(a *Atom, id int32) {
	types := rt.c.relTypesID(a, id)
	if types == nil {
		return
	}
	for j, t := range a.Args {
		switch {
		case t.Kind == Var && types[j] != "":
			rt.meet(t, types[j], a.Name.Name)
		case t.Kind == Tuple:
			rt.meetPattern(t, types[j], a.Name.Name)
		}
	}
}

// ruleTypes infers the type of each variable of a (disjunction-free)
// rule: positive atoms fix the types of their variables (the first one
// wins), lets, generators and aggregates give theirs, and a flexible
// type takes the column type of the first atom, negated or aggregated,
// that it meets. With report set, a variable used at columns of two
// kinds is a type mismatch. The table returned is the checker's own,
// valid until the next call.
func (c *checker) ruleTypes(ri int, r *Rule, report bool) *varTab {
	c.vars.reset()
	c.ran, c.flagged = true, false
	rt := &ruleTyper{c: c, report: report, seen: &c.vars}
	seen := rt.seen
	for j, b := range r.Body {
		if b.Atom != nil && !b.Atom.Negated {
			rt.atom(b.Atom, c.bodyID(ri, j))
		}
	}
	// Lets, generators and aggregates, repeated while one learns a type
	// from another; a variable an atom typed is then checked against
	// the value bound to it.
	for pass := 0; pass <= len(r.Body); pass++ {
		changed := false
		for _, b := range r.Body {
			v := boundVar(b)
			if v != nil && v.Kind == Tuple {
				// let (a, b) = EXPR: the pattern's variables take the
				// element types of the expression's.
				news := len(seen.list)
				switch t := c.boundType(b, seen); {
				case t.typ == "":
				case typeKind(t.typ) != "tuple" && typeKind(t.typ) != "":
					c.flagged = true
					if report {
						c.errf(v.Sp, CodeTypeMismatch, "a tuple pattern where the %s's value %s", firstWord(b), t.verb())
					}
				case !t.flex:
					rt.meetPattern(v, t.typ, theWord(b))
				default:
					for i, et := range TupleTypes(t.typ) {
						if e := v.Elems[min(i, len(v.Elems)-1)]; i < len(v.Elems) && e.Kind == Var {
							if seen.find(e.Value) < 0 {
								seen.add(varFirst{e.Value, vtype{et, typeKind(et) != "tuple"}, e.Sp, theWord(b)})
							}
						}
					}
				}
				changed = changed || len(seen.list) > news
				continue
			}
			if v == nil || v.Kind != Var {
				continue
			}
			if seen.find(v.Value) >= 0 {
				continue
			}
			if t := c.boundType(b, seen); t.typ != "" {
				seen.add(varFirst{v.Value, t, v.Sp, theWord(b)})
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for _, b := range r.Body {
		v := boundVar(b)
		if v == nil || v.Kind != Var {
			continue
		}
		i := seen.find(v.Value)
		t := c.boundType(b, seen)
		if i < 0 {
			continue
		}
		f := seen.list[i]
		if t.typ == "" || f.span == v.Sp || f.typ == t.typ {
			continue
		}
		switch {
		case t.flex && !f.flex && fits(t.typ, f.typ):
		case f.flex && !t.flex && fits(f.typ, t.typ):
			seen.list[i].vtype = t
		case t.flex && f.flex && typeKind(t.typ) == typeKind(f.typ):
		default:
			rt.mismatch(v, t, theWord(b), f)
		}
	}
	for j, b := range r.Body {
		if b.Atom != nil && b.Atom.Negated {
			rt.atom(b.Atom, c.bodyID(ri, j))
		}
		if b.Agg != nil && b.Agg.Atom != nil {
			rt.atom(b.Agg.Atom, c.aggID(ri, j))
		}
	}
	return seen
}

// types checks that every variable is used at positions of one type
// and records each occurrence's type for hover. A rule with a table in
// ty is not typed again.
func (c *checker) types(rules []*Rule, srcIndex []int, headTypes [][]string, ty *typings, expanded bool) {
	var vars *varTab
	var kept []keptVar
	typeOf := func(name string) string {
		if vars == nil {
			return keptType(kept, name)
		}
		return vars.typeOf(name).typ
	}
	if c.mem != nil && c.mem.omitVars {
		// Only the rules without a table have findings to report.
		for xi, r := range rules {
			if r.Head != nil && ty.at[xi][1] == 0 {
				c.ruleTypes(xi, r, true)
			}
		}
		return
	}
	ri := 0 // the statement of the rule being recorded
	record := func(t *Term) {
		c.info.Vars = append(c.info.Vars, VarInfo{Name: t.Value, Type: typeOf(t.Value), Span: t.Sp, Rule: ri})
	}
	for xi, r := range rules {
		ri = srcIndex[xi]
		if r.Head == nil {
			continue
		}
		if at := ty.at[xi]; at[1] > 0 {
			vars, kept = nil, ty.all[at[0]:at[1]:at[1]]
		} else {
			vars = c.ruleTypes(xi, r, true)
		}
		// Record every occurrence, body and head, with its type.
		start := len(c.info.Vars)
		EachVar(r, record)
		occ := c.info.Vars[start:]
		// Head variables take the head column's type.
		for i, t := range r.Head.Args {
			if t.Kind == Var && i < len(headTypes[xi]) {
				for k := range occ {
					if occ[k].Span == t.Sp {
						occ[k].Type = headTypes[xi][i]
					}
				}
			}
		}
	}
	byStart := func(a, b VarInfo) int { return cmp.Compare(a.Span.Start, b.Span.Start) }
	if !slices.IsSortedFunc(c.info.Vars, byStart) {
		slices.SortStableFunc(c.info.Vars, byStart)
	}
	// A statement with several heads or alternatives lists each
	// occurrence once.
	if !expanded {
		return
	}
	c.info.Vars = slices.CompactFunc(c.info.Vars, func(a, b VarInfo) bool { return a.Span == b.Span })
}

// theWord names a body item's clause where a variable got its type:
// "the let".
func theWord(b BodyItem) string {
	switch {
	case b.Let != nil:
		return "the let"
	case b.For != nil:
		return "the for"
	case b.Agg != nil:
		return "the agg"
	}
	return "the item"
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

// depEdge is an edge of the dependency graph stratify builds: the
// relation a rule's head depends on, and the negated atom or aggregate
// that reads it, if any.
type depEdge struct {
	to  int
	neg *Atom
	agg *Agg
}

// stratify orders the derived relations into strata and reports negation
// through recursion.
func (c *checker) stratify(rules []*Rule) {
	mem := c.mem
	if mem == nil {
		mem = &checkMem{}
	}
	nodes := scratchEmpty(c.mem, &mem.nodes, len(rules))
	// index is the node number of each relation number (-1: none).
	index := scratch(c.mem, &mem.index, len(c.rel.names))
	for i := range index {
		index[i] = -1
	}
	for i, r := range rules {
		if r.Head != nil {
			if id := c.headID(i); index[id] < 0 {
				index[id] = len(nodes)
				nodes = append(nodes, r.Head.Name.Name)
			}
		}
	}
	node := func(id int32) (int, bool) {
		if id < 0 || index[id] < 0 {
			return 0, false
		}
		return index[id], true
	}
	type edge = depEdge
	adj := scratch(c.mem, &mem.adj, len(nodes))
	for i, r := range rules {
		if r.Head == nil {
			continue
		}
		h := index[c.headID(i)]
		for j, b := range r.Body {
			if b.Agg != nil {
				if to, ok := node(c.aggID(i, j)); ok {
					adj[h] = append(adj[h], edge{to: to, agg: b.Agg})
				}
				continue
			}
			if b.Atom == nil {
				continue
			}
			if to, ok := node(c.bodyID(i, j)); ok {
				e := edge{to: to}
				if b.Atom.Negated {
					e.neg = b.Atom
				}
				adj[h] = append(adj[h], e)
			}
		}
	}
	// Tarjan's algorithm emits components dependencies-first.
	tarjan := scratch(c.mem, &mem.tarjan, 3*len(nodes))
	idx, low, comp := tarjan[:len(nodes)], tarjan[len(nodes):2*len(nodes)], tarjan[2*len(nodes):]
	on := scratch(c.mem, &mem.on, len(nodes))
	for i := range idx {
		idx[i] = -1
	}
	stack := scratchEmpty(c.mem, &mem.stack, len(nodes))
	counter := 0
	strata := scratchEmpty(c.mem, &mem.strata, len(nodes))
	// The components' members, one after the other: a component is a
	// part of it (capped, so that appending to one copies it).
	members := scratchEmpty(c.mem, &mem.members, len(nodes))
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
			start := len(members)
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				comp[w] = len(strata)
				members = append(members, w)
				if w == v {
					break
				}
			}
			cs := members[start:len(members):len(members)]
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
	if len(strata) > 0 {
		c.info.Strata = scratchEmpty(c.mem, &mem.infoStrata, len(strata))
	}
	all := scratch(c.mem, &mem.strataNames, len(members))
	for _, cs := range strata {
		names := all[:len(cs):len(cs)]
		all = all[len(cs):]
		for i, v := range cs {
			names[i] = nodes[v]
		}
		c.info.Strata = append(c.info.Strata, names)
	}
}
