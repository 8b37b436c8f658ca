package dllint

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

var singletonVariable = &analysis.Analyzer{
	Code: "DL008", Name: "singleton-variable", Category: "suspicious", Language: analysis.Datalog,
	Severity: syntax.SeverityWarning, Fix: analysis.SafeFix, Tags: []syntax.Tag{syntax.TagUnnecessary},
	Doc: analysis.Doc{
		Summary: "A variable occurs only once in its rule",
		Details: "A variable that occurs once in a positive body atom joins with nothing and is not returned: it means " +
			"\"any value\", like `_`, and is often a misspelling of another variable. Variables whose name starts " +
			"with `_` are exempt. The fix renames the variable to `_name` (adding underscores until the name is " +
			"fresh in the rule), which keeps the rule's meaning and the name for the reader; a second fix replaces " +
			"it with `_`. Singletons in the head, in a negation or in a " +
			"condition are unbound and reported as unsafe instead.",
		Bad:  "relation edge(Proc, Proc);\nsource(x) <-- edge(x, y);",
		Good: "relation edge(Proc, Proc);\nsource(x) <-- edge(x, _y);",
	},
	Run: runSingleton,
}

func runSingleton(p *analysis.Pass) error {
	prog := program(p)
	if prog == nil {
		return nil
	}
	f := p.File
	if f == nil {
		f = prog.File
	}
	if f == nil {
		return nil
	}
	var count varCount // a rule's variable occurrences, reused rule to rule
	add := count.add
	for _, r := range prog.Rules {
		if r == nil || r.Head == nil || r.IsFact() {
			continue
		}
		count.reset()
		eachRuleVar(r, add)
		for _, b := range r.Body {
			if b.Atom == nil || b.Atom.Negated {
				continue
			}
			for _, t := range b.Atom.Args {
				if t == nil || t.Kind != datalog.Var || count.of(t.Value) != 1 || strings.HasPrefix(t.Value, "_") {
					continue
				}
				if !t.Sp.Valid(f.Len()) || f.Slice(t.Sp) != t.Value {
					continue
				}
				name := "_" + t.Value
				for count.of(name) > 0 {
					name = "_" + name
				}
				p.Report(syntax.Diagnostic{
					Span:    t.Sp,
					Message: fmt.Sprintf("variable %s occurs only once in the rule; write _ or %s if any value will do", t.Value, name),
					SuggestedFixes: []syntax.SuggestedFix{{
						Message:   fmt.Sprintf("rename %s to %s", t.Value, name),
						TextEdits: []syntax.TextEdit{{Span: t.Sp, NewText: name}},
					}, {
						Message:   fmt.Sprintf("replace %s with _", t.Value),
						TextEdits: []syntax.TextEdit{{Span: t.Sp, NewText: "_"}},
					}},
				})
			}
		}
	}
	return nil
}

// varCount counts the occurrences of a rule's variables. Rules have few:
// a lookup scans a list, and a map takes over for long rules.
type varCount struct {
	names []string
	n     []int
	index map[string]int
}

// varCountIndexed is the number of variables from which a varCount keeps
// a map.
const varCountIndexed = 32

func (c *varCount) reset() {
	clear(c.names)
	c.names, c.n, c.index = c.names[:0], c.n[:0], nil
}

func (c *varCount) find(name string) int {
	if c.index != nil {
		if i, ok := c.index[name]; ok {
			return i
		}
		return -1
	}
	for i, x := range c.names {
		if x == name {
			return i
		}
	}
	return -1
}

// add counts an occurrence of variable t.
func (c *varCount) add(t *datalog.Term) {
	if i := c.find(t.Value); i >= 0 {
		c.n[i]++
		return
	}
	c.names, c.n = append(c.names, t.Value), append(c.n, 1)
	switch {
	case c.index != nil:
		c.index[t.Value] = len(c.names) - 1
	case len(c.names) >= varCountIndexed:
		c.index = make(map[string]int, 2*len(c.names))
		for i, x := range c.names {
			c.index[x] = i
		}
	}
}

// of returns the number of occurrences of variable name.
func (c *varCount) of(name string) int {
	if i := c.find(name); i >= 0 {
		return c.n[i]
	}
	return 0
}

// eachRuleVar calls f for every variable occurrence of a rule, head
// included, in source order, then for those of its macro uses'
// expansions.
func eachRuleVar(r *datalog.Rule, f func(*datalog.Term)) {
	datalog.EachVar(r, f)
	// The variables a macro use passes are in its expansion.
	var visit func(n datalog.Node) bool
	for _, b := range r.Body {
		if b.Macro == nil {
			continue
		}
		if visit == nil {
			visit = func(n datalog.Node) bool {
				if t, ok := n.(*datalog.Term); ok && t.Kind == datalog.Var {
					f(t)
				}
				return true
			}
		}
		for _, it := range b.Macro.Items {
			datalog.Inspect(it.Node(), visit)
		}
	}
}

// eachHead calls f for each head of a rule (AllHeads without its list).
func eachHead(r *datalog.Rule, f func(*datalog.Atom)) {
	if len(r.Heads) > 0 {
		for _, h := range r.Heads {
			f(h)
		}
	} else if r.Head != nil {
		f(r.Head)
	}
}

var unusedRelation = &analysis.Analyzer{
	Code: "DL009", Name: "unused-relation", Category: "suspicious", Language: analysis.Datalog,
	Severity: syntax.SeverityWarning, Fix: analysis.NoFix, Tags: []syntax.Tag{syntax.TagUnnecessary},
	Doc: analysis.Doc{
		Summary: "A relation is declared but no rule or fact uses it",
		Details: "A declaration that no rule head, rule body or fact mentions has no effect on the program; it is " +
			"either left over or its uses are misspelled. A relation counts as used when any atom of the program, " +
			"head or body, names it.",
		Bad:  "relation edge(Proc, Proc);\nrelation label(Proc, Name);\npath(x, y) <-- edge(x, y);",
		Good: "relation edge(Proc, Proc);\npath(x, y) <-- edge(x, y);",
	},
	Run: func(p *analysis.Pass) error {
		prog := program(p)
		if !complete(prog) {
			return nil
		}
		// used holds the declared relations, true once an atom names
		// them; the walk stops when every one is.
		used := make(map[string]bool, len(prog.Decls))
		for _, d := range prog.Decls {
			used[d.Name.Name] = false
		}
		left := len(used)
		for _, r := range prog.Rules {
			if left == 0 {
				break
			}
			for _, x := range datalog.Expand(r) { // macro uses included
				for _, a := range x.Atoms() {
					if u, ok := used[a.Name.Name]; ok && !u {
						used[a.Name.Name] = true
						left--
					}
				}
			}
		}
		for _, d := range prog.Decls {
			if !used[d.Name.Name] {
				p.Reportf(d.Name.Sp, "relation %s is declared but never used", d.Name.Name)
			}
		}
		return nil
	},
}

var ruleNeverFires = &analysis.Analyzer{
	Code: "DL010", Name: "rule-never-fires", Category: "suspicious", Language: analysis.Datalog,
	Severity: syntax.SeverityWarning, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A rule can never derive a tuple",
		Details: "A rule never fires when its body can never hold. The rule reports two causes.\n\n" +
			"An empty relation: a positive body atom reads a relation that can never hold a tuple. Relations the " +
			"data provides can hold tuples; when the data's schema is not known, so can every declared relation " +
			"(a declaration marks an input the data may fill). So " +
			"can relations with a fact; a relation defined only by rules can hold tuples when one of its rules " +
			"can fire. This is a least fixpoint, so a recursive relation without a base case is empty. Unknown " +
			"relations are left to unknown-relation.\n\n" +
			"A contradiction: a condition between two constants that is false (`if 1 > 2`), a variable compared with " +
			"itself by `!=`, `<` or `>`, a variable required to equal two different constants (`if x == \"a\", " +
			"if x == \"b\"`) or to equal and differ from the same constant, or a negated atom that excludes every " +
			"tuple a positive atom of the same rule matches (`p(x, y), !p(x, _)`). Constants compare as the " +
			"evaluator compares them: as numbers when both parse as numbers, otherwise bytewise.",
		Bad:  "relation edge(Proc, Proc);\nreach(x, y) <-- reach(x, z), edge(z, y);",
		Good: "relation edge(Proc, Proc);\nreach(x, y) <-- edge(x, y);\nreach(x, y) <-- reach(x, z), edge(z, y);",
	},
	Run: runNeverFires,
}

func runNeverFires(p *analysis.Pass) error {
	prog := program(p)
	in := info(p)
	if in == nil {
		return nil
	}
	// Without a schema a declaration marks an input the data may fill; with
	// one, only the data's relations are inputs.
	withSchema := false
	nonEmpty := make(map[string]bool, len(in.Relations))
	for name, ri := range in.Relations {
		if ri.InData {
			withSchema = true
			nonEmpty[name] = true
		}
	}
	if !withSchema {
		for _, d := range prog.Decls {
			nonEmpty[d.Name.Name] = true
		}
	}
	type why struct {
		span syntax.Span
		msg  string
	}
	contra := make([]*why, len(prog.Rules))
	for i, r := range prog.Rules {
		if r.IsFact() {
			eachHead(r, func(h *datalog.Atom) { nonEmpty[h.Name.Name] = true })
			continue
		}
		if span, msg, ok := contradiction(r); ok {
			contra[i] = &why{span, msg}
		}
	}
	known := func(name string) bool { _, ok := in.Relations[name]; return ok }
	// emptyAtom returns the first positive body atom of r over a relation
	// that holds no tuple (so far).
	emptyAtom := func(r *datalog.Rule) *datalog.Atom {
		for _, b := range r.Body {
			if b.Atom != nil && !b.Atom.Negated && !nonEmpty[b.Atom.Name.Name] && known(b.Atom.Name.Name) {
				return b.Atom
			}
		}
		return nil
	}
	fired := make([]bool, len(prog.Rules))
	for changed := true; changed; {
		changed = false
		for i, r := range prog.Rules {
			if fired[i] || r.IsFact() || contra[i] != nil || emptyAtom(r) != nil {
				continue
			}
			fired[i] = true
			eachHead(r, func(h *datalog.Atom) {
				if !nonEmpty[h.Name.Name] {
					nonEmpty[h.Name.Name] = true
					changed = true
				}
			})
		}
	}
	for i, r := range prog.Rules {
		switch {
		case r.IsFact() || fired[i]:
		case contra[i] != nil:
			p.Reportf(contra[i].span, "rule for %s never fires: %s", r.Head.Name.Name, contra[i].msg)
		default:
			if a := emptyAtom(r); a != nil {
				source := "it is not declared"
				if withSchema {
					source = "the data does not provide it"
				}
				p.Reportf(a.Name.Sp, "rule for %s never fires: %s never holds a tuple (%s, it has no facts and no rule for it can fire)", r.Head.Name.Name, a.Name.Name, source)
			}
		}
	}
	return nil
}

// contradiction finds a part of a rule body that can never hold.
func contradiction(r *datalog.Rule) (syntax.Span, string, bool) {
	type eq struct {
		c    *datalog.Term
		cond *datalog.Cond
	}
	var eqs map[string]eq // made at the first equality with a constant
	negated := false      // some body atom is negated
	for _, b := range r.Body {
		c := b.Cond
		if c == nil {
			negated = negated || b.Atom != nil && b.Atom.Negated
			continue
		}
		l, rt := c.Left, c.Right
		switch {
		case l.IsConst() && rt.IsConst():
			if !holds(compareConsts(l, rt), c.Op) {
				return c.Sp, fmt.Sprintf("the condition %s %s %s is always false", l.Text, c.Op, rt.Text), true
			}
		case l.Kind == datalog.Var && rt.Kind == datalog.Var && l.Value == rt.Value:
			if c.Op == "!=" || c.Op == "<" || c.Op == ">" {
				return c.Sp, fmt.Sprintf("%s %s %s is always false", l.Text, c.Op, rt.Text), true
			}
		}
		v, k := l, rt
		if k.Kind == datalog.Var && v.IsConst() {
			v, k = k, v
		}
		if v.Kind != datalog.Var || !k.IsConst() || c.Op != "==" {
			continue
		}
		if old, ok := eqs[v.Value]; ok {
			if distinct(old.c, k) {
				return c.Sp, fmt.Sprintf("%s cannot equal both %s and %s", v.Value, old.c.Text, k.Text), true
			}
			continue
		}
		if eqs == nil {
			eqs = map[string]eq{}
		}
		eqs[v.Value] = eq{c: k, cond: c}
	}
	for _, b := range r.Body {
		if eqs == nil {
			break // nothing equals a constant: nothing can also differ from it
		}
		c := b.Cond
		if c == nil || c.Op != "!=" {
			continue
		}
		v, k := c.Left, c.Right
		if k.Kind == datalog.Var && v.IsConst() {
			v, k = k, v
		}
		if v.Kind != datalog.Var || !k.IsConst() {
			continue
		}
		if old, ok := eqs[v.Value]; ok && old.c.Kind == k.Kind && old.c.Value == k.Value {
			return c.Sp, fmt.Sprintf("%s must both equal and differ from %s", v.Value, k.Text), true
		}
	}
	for _, nb := range r.Body {
		if !negated {
			break
		}
		n := nb.Atom
		if n == nil || !n.Negated {
			continue
		}
		for _, pb := range r.Body {
			if pb.Atom != nil && !pb.Atom.Negated && covers(n, pb.Atom) {
				return n.Sp, fmt.Sprintf("the negation excludes every tuple %s matches", pb.Atom.Name.Name), true
			}
		}
	}
	return syntax.Span{}, "", false
}

// covers reports whether the negated atom n matches every tuple the positive
// atom pos matches: same relation and arity, and at each position a
// wildcard or the same variable or constant.
func covers(n, pos *datalog.Atom) bool {
	if n.Name.Name != pos.Name.Name || len(n.Args) != len(pos.Args) {
		return false
	}
	for i, a := range n.Args {
		b := pos.Args[i]
		switch {
		case a.Kind == datalog.Wildcard:
		case a.Kind == datalog.Var && b.Kind == datalog.Var && a.Value == b.Value:
		case a.IsConst() && a.Kind == b.Kind && a.Value == b.Value:
		default:
			return false
		}
	}
	return true
}

// number parses a constant's value as the evaluator does for numeric
// comparisons; NaN never counts as a number here, since it compares equal
// to everything.
func number(t *datalog.Term) (float64, bool) {
	f, err := strconv.ParseFloat(t.Value, 64)
	return f, err == nil && !math.IsNaN(f)
}

// compareConsts compares two constants as the evaluator does: as numbers
// when one is a number literal and both parse as numbers, else bytewise.
func compareConsts(a, b *datalog.Term) int {
	return datalog.CompareValues(a.Value, b.Value, a.Kind == datalog.Num || b.Kind == datalog.Num)
}

// holds reports whether a comparison with result cmp satisfies op; an
// unknown operator is assumed to be able to hold.
func holds(cmp int, op string) bool {
	h, ok := datalog.Holds(op, cmp)
	return h || !ok
}

// distinct reports whether no value can equal both constants a and b under
// any of the evaluator's comparisons. When both parse as numbers a value
// may compare numerically with either, so only different numbers are
// distinct; when one does not, equality with it is bytewise, so different
// texts are distinct.
func distinct(a, b *datalog.Term) bool {
	x, ok1 := number(a)
	y, ok2 := number(b)
	if ok1 && ok2 {
		return x != y
	}
	_, nan1 := strconv.ParseFloat(a.Value, 64)
	_, nan2 := strconv.ParseFloat(b.Value, 64)
	if (nan1 == nil && !ok1) || (nan2 == nil && !ok2) {
		return false // a NaN constant compares equal to every number
	}
	return a.Value != b.Value
}

var numericTextComparison = &analysis.Analyzer{
	Code: "DL011", Name: "numeric-text-comparison", Category: "suspicious", Language: analysis.Datalog,
	Severity: syntax.SeverityWarning, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "An ordering comparison of two columns compares numbers as text",
		Details: "`<`, `<=`, `>` and `>=` compare values as numbers only when an operand is a number literal, an " +
			"arithmetic result or a variable whose column has a numeric type (`i64`, `u32`, `f64`, `Int`, ...); " +
			"otherwise they compare the text byte by byte, and `\"10\" < \"9\"` holds. The rule reports a " +
			"comparison of two variables whose columns are declared with other types while every value of both " +
			"columns in the sample data is a number: the comparison almost certainly means the numbers. It runs " +
			"only when the sample data is known. Declare the columns with a numeric type, or compare an " +
			"arithmetic value (`if x + 0 < y`).",
		Bad:  "relation edge(Node, Node);\nforward(x, y) <-- edge(x, y), if x < y;",
		Good: "relation edge(u32, u32);\nforward(x, y) <-- edge(x, y), if x < y;",
	},
	Run: runNumericText,
}

func runNumericText(p *analysis.Pass) error {
	sample, _ := p.Data.(*Sample)
	if sample == nil {
		return nil
	}
	prog := program(p)
	in := info(p)
	if in == nil {
		return nil
	}
	for _, r := range prog.Rules {
		for _, x := range datalog.Expand(r) {
			// The column of each variable: its first positive use.
			type col struct {
				rel string
				i   int
			}
			cols := map[string]col{}
			for _, b := range x.Body {
				if b.Atom == nil || b.Atom.Negated {
					continue
				}
				for i, t := range b.Atom.Args {
					if t.Kind == datalog.Var {
						if _, ok := cols[t.Value]; !ok {
							cols[t.Value] = col{b.Atom.Name.Name, i}
						}
					}
				}
			}
			numeric := func(t *datalog.Term) (string, bool) {
				c, ok := cols[t.Value]
				if t.Kind != datalog.Var || !ok {
					return "", false
				}
				ri := in.Relations[c.rel]
				if ri == nil || c.i >= len(ri.Types) || datalog.NumericType(ri.Types[c.i]) {
					return "", false
				}
				nc := sample.Numeric[c.rel]
				return ri.Types[c.i], c.i < len(nc) && nc[c.i]
			}
			for _, b := range x.Body {
				c := b.Cond
				if c == nil || c.Op == "==" || c.Op == "!=" {
					continue
				}
				lt, lok := numeric(c.Left)
				rt, rok := numeric(c.Right)
				if lok && rok {
					p.Reportf(c.OpSpan, "%s %s %s compares text (the columns have types %s and %s), but every value of both in the sample data is a number, so \"10\" %s \"9\" compares as text; declare the columns with a numeric type such as i64", c.Left.Value, c.Op, c.Right.Value, lt, rt, c.Op)
				}
			}
		}
	}
	return nil
}
