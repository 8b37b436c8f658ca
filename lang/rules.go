package lang

import (
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// Rule is a Datalog rule or fact as the tools look at it: what it derives
// and the items of its body.
type Rule struct {
	Span  syntax.Span
	Heads []Atom // every head, in source order
	Fact  bool   // no body: the heads are tuples
	Body  []BodyItem
}

// Atom is a relation applied to arguments.
type Atom struct {
	Relation string
	NameSpan syntax.Span // the relation name
	Span     syntax.Span // the whole atom
	Negated  bool
	// Args are the arguments as written: a constant's value (strings
	// unquoted), a variable's name.
	Args []string
	// Vars are the names of the arguments that are variables ("_"
	// excluded), in order, each once.
	Vars []string
}

// BodyItem is one item of a rule's body: an atom, a condition, a binding
// or a disjunction.
type BodyItem struct {
	Span syntax.Span
	Atom *Atom // nil when the item is not an atom
}

// Rules lists the rules and facts of a Datalog program in source order;
// other files have none.
func (p *Parsed) Rules() []Rule {
	prog, ok := p.AST.(*datalog.Program)
	if !ok {
		return nil
	}
	out := make([]Rule, 0, len(prog.Rules))
	for _, r := range prog.Rules {
		rule := Rule{Span: r.Sp, Fact: r.IsFact()}
		for _, h := range dlHeads(r) {
			rule.Heads = append(rule.Heads, dlAtom(h))
		}
		for _, b := range r.Body {
			item := BodyItem{Span: b.Span()}
			if b.Atom != nil {
				a := dlAtom(b.Atom)
				item.Atom = &a
			}
			rule.Body = append(rule.Body, item)
		}
		out = append(out, rule)
	}
	return out
}

func dlAtom(a *datalog.Atom) Atom {
	out := Atom{Relation: a.Name.Name, NameSpan: a.Name.Sp, Span: a.Sp, Negated: a.Negated, Args: make([]string, len(a.Args))}
	seen := map[string]bool{}
	for i, t := range a.Args {
		if t == nil {
			continue
		}
		out.Args[i] = t.Value
		if t.Kind == datalog.Var && t.Value != "_" && !seen[t.Value] {
			seen[t.Value] = true
			out.Vars = append(out.Vars, t.Value)
		}
	}
	return out
}
