package datalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Explanations: why a tuple is derived (a proof tree) and why not (for
// each rule of its relation, the first body item nothing satisfies).
//
// An explain run evaluates the program as usual; the only record it needs
// is where each semi-naive round ended in each relation, which every run
// keeps (a few integers per round). A tuple derived in round k has a
// derivation whose body tuples of its own stratum come from rounds before
// k, so a proof found by re-running a rule with its head bound, reading
// only those rounds, is well-founded. Explanations are bounded: in depth,
// in nodes, by the tuple budget and by the context.

// ExplainOptions bound an explanation.
type ExplainOptions struct {
	Options
	// MaxDepth is the depth of the proof tree shown below the root;
	// deeper tuples are marked Truncated. 0 means DefaultExplainDepth.
	MaxDepth int
	// MaxNodes bounds the nodes of a proof; 0 means DefaultExplainNodes.
	MaxNodes int
}

// Defaults of ExplainOptions.
const (
	DefaultExplainDepth = 6
	DefaultExplainNodes = 500
)

// ErrNotDerived is returned by Why for a tuple the program does not derive.
var ErrNotDerived = errors.New("tuple is not derived")

// Proof explains one tuple.
type Proof struct {
	Relation string   `json:"relation"`
	Tuple    []string `json:"tuple"`
	// Data is set when the tuple comes from the data.
	Data bool `json:"data,omitempty"`
	// Rule is the rule that derived it (nil for data); RuleIndex indexes
	// Program.Rules.
	Rule      *syn.Rule `json:"-"`
	RuleIndex int       `json:"rule"`
	// Body holds, for each positive body atom in source order, the tuple
	// it matched with its own proof.
	Body []*Proof `json:"body,omitempty"`
	// Held lists the negations and conditions of the rule that held, with
	// the variables replaced by their values, in source order.
	Held []Held `json:"held,omitempty"`
	// Truncated is set when the depth or node limit stopped the
	// explanation of this tuple.
	Truncated bool `json:"truncated,omitempty"`
	// Closure, when set, is the data structure (syn.DSEqrel or
	// syn.DSTrrel) whose closure holds the tuple, Rule being nil: a
	// trrel pair with the two pairs it joins as Body, an eqrel pair as
	// a leaf (the equivalence the rules' pairs generate).
	Closure string `json:"closure,omitempty"`
}

// Held is a negation or condition that held in a derivation.
type Held struct {
	Text string      `json:"text"`
	Span syntax.Span `json:"span"`
}

// WhyNot explains why a tuple is not derived.
type WhyNot struct {
	Relation string   `json:"relation"`
	Tuple    []string `json:"tuple"`
	// Holds is set when the tuple is derived after all.
	Holds bool `json:"holds,omitempty"`
	// Rules has one entry per rule whose head is the relation, in
	// source order; empty when no rule derives the relation.
	Rules []RuleFailure `json:"rules"`
}

// RuleFailure names the first part of a rule that rules the tuple out.
type RuleFailure struct {
	Rule      *syn.Rule `json:"-"`
	RuleIndex int       `json:"rule"`
	// Item is the index of the failing body item, or -1 when the head
	// itself cannot produce the tuple (a constant or a repeated variable
	// that disagrees with it). For a statement with a disjunction, each
	// choice of alternatives is reported as a rule of its own, whose body
	// has the chosen alternative's items in the disjunction's place;
	// Item indexes that body, and Span locates the item in the source.
	Item int `json:"item"`
	// Span is the span of the failing item (or of the head).
	Span syntax.Span `json:"span"`
	// Text is the failing item with the variables the tuple and the
	// earlier items bind replaced by a value (the first binding found).
	Text string `json:"text"`
	// Reason says what failed, in words.
	Reason string `json:"reason"`
}

// Explainer answers why and why-not questions over an evaluated program.
type Explainer struct {
	st   *progState
	opts ExplainOptions
}

// NewExplainer evaluates a checked program over db for explanations.
func NewExplainer(ctx context.Context, db *DB, prog *syn.Program, info *syn.Info, opts ExplainOptions) (*Explainer, error) {
	// One worker: a proof reads the order in which tuples were derived.
	o := opts.Options
	o.Workers = 1
	st, err := fixpoint(ctx, db, prog, info, o)
	if err != nil {
		return nil, err
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultExplainDepth
	}
	if opts.MaxNodes <= 0 {
		opts.MaxNodes = DefaultExplainNodes
	}
	return &Explainer{st: st, opts: opts}, nil
}

// Relations returns the derived relations' tuples, as RunProgram does.
func (x *Explainer) Relations() map[string][][]string {
	out := map[string][][]string{}
	for name, t := range x.st.full {
		out[name] = x.st.db.strings(t)
	}
	return out
}

// ParseTuple parses a ground atom such as `q("a", 1)` into its relation
// and values (constants in canonical form).
func ParseTuple(src string) (string, []string, error) {
	prog := syn.ParseProgram("tuple", src)
	if len(prog.Diagnostics) > 0 {
		return "", nil, fmt.Errorf("tuple %q: %s; write it as rel(\"a\", 1)", src, prog.Diagnostics[0].Message)
	}
	if len(prog.Rules) != 1 || len(prog.Decls) > 0 || !prog.Rules[0].IsFact() {
		return "", nil, fmt.Errorf("tuple %q: give one atom such as rel(\"a\", 1)", src)
	}
	head := prog.Rules[0].Head
	vals := make([]string, len(head.Args))
	for i, t := range head.Args {
		if !t.IsConst() {
			return "", nil, fmt.Errorf("tuple %q: argument %d is %s; give a string or number constant", src, i+1, t.Text)
		}
		vals[i] = t.Value
	}
	return head.Name.Name, vals, nil
}

// lookup returns the row of rel holding vals, the table and whether the
// relation is known.
func (x *Explainer) lookup(rel string, vals []string) (row int, t *table, known bool) {
	st := x.st
	if ft, ok := st.full[rel]; ok {
		t = ft
	} else if r, ok := st.db.rels[rel]; ok {
		t = r.tab
	} else {
		return -1, nil, false
	}
	if len(vals) != t.arity {
		return -1, t, true
	}
	ids := make([]uint32, len(vals))
	for i, v := range vals {
		id, ok := st.db.lookup(v)
		if !ok {
			return -1, t, true
		}
		ids[i] = id
	}
	if t.arity == 0 {
		if t.len() > 0 {
			return 0, t, true
		}
		return -1, t, true
	}
	for i := 0; i < t.len(); i++ {
		if slices.Equal(t.row(i), ids) {
			return i, t, true
		}
	}
	return -1, t, true
}

// round returns the semi-naive round that derived row i of a derived
// relation (0: the data).
func (x *Explainer) round(rel string, i int) int {
	for k, end := range x.st.rounds[rel] {
		if i < end {
			return k
		}
	}
	return len(x.st.rounds[rel])
}

// Why explains how the program derives rel(vals...). It returns
// ErrNotDerived when the tuple is not among the relation's tuples.
func (x *Explainer) Why(ctx context.Context, rel string, vals []string) (*Proof, error) {
	row, _, known := x.lookup(rel, vals)
	if !known {
		return nil, fmt.Errorf("unknown relation %s", rel)
	}
	if row < 0 {
		return nil, fmt.Errorf("%s: %w", FormatTuple(rel, vals), ErrNotDerived)
	}
	nodes := 0
	return x.prove(ctx, rel, vals, row, 0, &nodes)
}

func (x *Explainer) prove(ctx context.Context, rel string, vals []string, row, depth int, nodes *int) (*Proof, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	*nodes++
	p := &Proof{Relation: rel, Tuple: vals, RuleIndex: -1}
	st := x.st
	_, derived := st.full[rel]
	k := 0
	if derived {
		k = x.round(rel, row)
	}
	if !derived || k == 0 {
		p.Data = true
		return p, nil
	}
	if depth >= x.opts.MaxDepth || *nodes >= x.opts.MaxNodes {
		p.Truncated = true
		return p, nil
	}
	si := st.stratum[rel]
	for ri, cr := range st.rules {
		if cr == nil || cr.headRel != rel {
			continue
		}
		// Sources: the rule's own stratum up to the end of round k-1.
		src := func(name string) source {
			s := st.source(name)
			// A lattice keeps only its best tuples, not the rounds
			// that derived them: its proofs read all of them (and are
			// bounded by the depth limit).
			if ri := st.info.Relations[rel]; ri != nil && ri.Lattice {
				return s
			}
			if sj, ok := st.stratum[name]; ok && sj == si {
				s.n = st.rounds[name][k-1]
			}
			return s
		}
		b, err := x.firstBinding(ctx, cr, vals, src, len(st.xrules[ri].Body), nil)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		r := st.xrules[ri]
		if ri < len(st.synth) && st.synth[ri] {
			p.Closure = st.info.Relations[rel].DS
		} else {
			p.Rule, p.RuleIndex = st.prog.Rules[st.xsrc[ri]], st.xsrc[ri]
		}
		for _, a := range cr.pos {
			tv, trow, err := x.atomTuple(a, b, src(a.name))
			if err != nil {
				return nil, err
			}
			child, err := x.prove(ctx, a.name, tv, trow, depth+1, nodes)
			if err != nil {
				return nil, err
			}
			p.Body = append(p.Body, child)
		}
		for _, item := range r.Body {
			switch {
			case item.Atom != nil && item.Atom.Negated:
				p.Held = append(p.Held, Held{Text: x.substAtom(cr, item.Atom, b), Span: item.Atom.Sp})
			case item.Cond != nil:
				p.Held = append(p.Held, Held{Text: "if " + x.substTerm(cr, item.Cond.Left, b) + " " + item.Cond.Op + " " + x.substTerm(cr, item.Cond.Right, b), Span: item.Cond.Sp})
			case item.Atom == nil:
				p.Held = append(p.Held, Held{Text: x.substItem(cr, item, b), Span: item.Span()})
			}
		}
		return p, nil
	}
	if ri := st.info.Relations[rel]; ri != nil && ri.DS == syn.DSEqrel {
		// A pair the equivalence closes (reflexive, symmetric or
		// transitive), not one a rule derived.
		p.Closure = syn.DSEqrel
		return p, nil
	}
	// Not reachable for a tuple the fixpoint derived; say so rather than
	// invent a proof.
	return nil, fmt.Errorf("no derivation of %s found", FormatTuple(rel, vals))
}

func (x *Explainer) substTerm(cr *crule, t *syn.Term, b []uint32) string {
	if t.Kind != syn.Var {
		return t.Text
	}
	s := slices.Index(cr.names, t.Value)
	if s >= 0 && s < len(b) && b[s] != noValue {
		return strconv.Quote(x.st.db.strs[b[s]])
	}
	return t.Text
}

func (x *Explainer) substAtom(cr *crule, a *syn.Atom, b []uint32) string {
	var sb strings.Builder
	if a.Negated {
		sb.WriteByte('!')
	}
	sb.WriteString(a.Name.Name)
	sb.WriteByte('(')
	for i, t := range a.Args {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(x.substTerm(cr, t, b))
	}
	sb.WriteByte(')')
	return sb.String()
}

// substItem renders a let, if, for or agg item with the variables bound
// in b replaced by their values.
func (x *Explainer) substItem(cr *crule, item syn.BodyItem, b []uint32) string {
	src := x.st.prog.File.Text()
	sp := item.Span()
	var out strings.Builder
	last := sp.Start
	syn.Inspect(item.Node(), func(n syn.Node) bool {
		t, ok := n.(*syn.Term)
		if !ok || t.Kind != syn.Var {
			return true
		}
		out.WriteString(src[last:t.Sp.Start])
		out.WriteString(x.substTerm(cr, t, b))
		last = t.Sp.End
		return true
	})
	out.WriteString(src[last:sp.End])
	return out.String()
}

// stepReason says why a computing body item rules a tuple out.
func stepReason(item syn.BodyItem) string {
	switch {
	case item.Let != nil:
		return "the let's value disagrees with the tuple"
	case item.For != nil:
		return "the range holds no matching value"
	case item.Agg != nil && item.Agg.Func.Name == syn.AggNot:
		return "a matching tuple exists, so not() fails"
	case item.Agg != nil:
		return "the aggregate yields no matching value"
	}
	return "the condition does not hold"
}

// noValue marks a slot no binding has set (why-not texts).
const noValue = ^uint32(0)

// atomTuple returns the tuple a positive atom matched under binding b
// (looking up a matching row for wildcard positions) and its row.
func (x *Explainer) atomTuple(a *catom, b []uint32, s source) ([]string, int, error) {
	t := s.t
	want := make([]int64, len(a.args))
	for i, g := range a.args {
		switch g.kind {
		case aVar:
			want[i] = int64(b[g.slot])
		case aConst:
			want[i] = int64(g.id)
		default:
			want[i] = -1
		}
	}
	for r := 0; r < s.n; r++ {
		row := t.row(r)
		ok := true
		for i, w := range want {
			if w >= 0 && uint32(w) != row[i] {
				ok = false
				break
			}
		}
		if ok {
			vals := make([]string, len(row))
			for i, id := range row {
				vals[i] = x.st.db.strs[id]
			}
			return vals, r, nil
		}
	}
	if t.arity == 0 && s.n > 0 {
		return []string{}, 0, nil
	}
	return nil, -1, fmt.Errorf("internal: no tuple of %s matches its binding", a.name)
}

// firstBinding runs the body items of cr with index below upto (all
// items when upto covers the body), the head bound to vals, and returns
// the first complete binding row, or nil. keep, when set, limits the
// items to those it accepts.
func (x *Explainer) firstBinding(ctx context.Context, cr *crule, vals []string, src func(string) source, upto int, keep func(at int) bool) ([]uint32, error) {
	init := make([]uint32, cr.nvars)
	for i := range init {
		init[i] = noValue
	}
	bound := make([]bool, cr.nvars)
	if len(cr.head) != len(vals) {
		return nil, nil
	}
	db := x.st.db
	for i, h := range cr.head {
		id, ok := db.lookup(vals[i])
		switch h.kind {
		case aConst:
			if !ok || id != h.id {
				return nil, nil
			}
		case aVar:
			if !ok {
				id = db.intern(vals[i])
			}
			if bound[h.slot] && init[h.slot] != id {
				return nil, nil
			}
			init[h.slot], bound[h.slot] = id, true
		}
		// A computed head argument is checked on each binding found.
	}
	sub := &crule{nvars: cr.nvars, headRel: cr.headRel}
	in := func(at int) bool { return at < upto && (keep == nil || keep(at)) }
	for _, a := range cr.pos {
		if in(a.at) {
			sub.pos = append(sub.pos, a)
		}
	}
	avail := slices.Clone(bound)
	for _, a := range sub.pos {
		for _, g := range a.args {
			if g.kind == aVar {
				avail[g.slot] = true
			}
		}
	}
	// Steps in range whose inputs something binds, in order: each may
	// bind what a later one reads.
	for changed := true; changed; {
		changed = false
		for _, st := range cr.steps {
			if !in(st.at) || slices.Contains(sub.steps, st) || !st.ready(avail) {
				continue
			}
			sub.steps = append(sub.steps, st)
			if st.slot >= 0 {
				avail[st.slot] = true
			}
			for _, b := range st.binds {
				avail[b] = true
			}
			changed = true
		}
	}
	for _, a := range cr.negs {
		if in(a.at) && allBound(a, avail) {
			sub.negs = append(sub.negs, a)
		}
	}
	for _, c := range cr.conds {
		if in(c.at) && (!c.l.isVar || avail[c.l.slot]) && (!c.r.isVar || avail[c.r.slot]) {
			sub.conds = append(sub.conds, c)
		}
	}
	ev := newEvaluator(ctx, db, x.opts.Options)
	ev.keepAll = true
	ev.lower = x.st.source
	var found []uint32
	err := ev.run(sub,
		func(i int) source { return src(sub.pos[i].name) },
		func(j int) source { return src(sub.negs[j].name) },
		init, bound,
		func(row []uint32) error {
			for i, h := range cr.head {
				if h.kind != aExpr || !allSet(row, h.x.slots(nil)) {
					continue
				}
				v, err := ev.eval(h.x, row)
				if err == errNoValue {
					return nil
				}
				if err != nil {
					return err
				}
				if !equalValues(v, vals[i]) {
					return nil
				}
			}
			found = slices.Clone(row)
			return errStop
		})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// allSet reports whether every slot of row is set.
func allSet(row []uint32, slots []int) bool {
	for _, s := range slots {
		if row[s] == noValue {
			return false
		}
	}
	return true
}

// WhyNot explains why rel(vals...) is not derived: for each rule of rel,
// the first body item (in source order) after which no binding is left.
func (x *Explainer) WhyNot(ctx context.Context, rel string, vals []string) (*WhyNot, error) {
	row, t, known := x.lookup(rel, vals)
	if !known {
		return nil, fmt.Errorf("unknown relation %s", rel)
	}
	if len(vals) != t.arity {
		return nil, fmt.Errorf("%s has %d parameter(s), the tuple has %d value(s)", rel, t.arity, len(vals))
	}
	w := &WhyNot{Relation: rel, Tuple: vals, Rules: []RuleFailure{}}
	if row >= 0 {
		w.Holds = true
		return w, nil
	}
	st := x.st
	for ri, cr := range st.rules {
		if cr == nil || cr.headRel != rel || ri < len(st.synth) && st.synth[ri] {
			// The closure of an eqrel or trrel is no rule of the
			// program: its failures are those of the rules it closes.
			continue
		}
		r := st.xrules[ri]
		f := RuleFailure{Rule: st.prog.Rules[st.xsrc[ri]], RuleIndex: st.xsrc[ri], Item: -1, Span: r.Head.Sp, Text: r.Head.Name.Name}
		b, err := x.firstBinding(ctx, cr, vals, st.source, 0, nil)
		if err != nil {
			return nil, err
		}
		if b == nil {
			f.Reason = "the head cannot produce this tuple (a constant or a repeated variable disagrees with it)"
			f.Text = x.substAtom(cr, r.Head, nil)
			w.Rules = append(w.Rules, f)
			continue
		}
		prev := b
		failed := false
		for k := range r.Body {
			nb, err := x.firstBinding(ctx, cr, vals, st.source, k+1, nil)
			if err != nil {
				return nil, err
			}
			if nb == nil {
				item := r.Body[k]
				f.Item, f.Span = k, item.Span()
				switch {
				case item.Atom != nil && item.Atom.Negated:
					f.Text = x.substAtom(cr, item.Atom, prev)
					f.Reason = "a matching tuple exists, so the negation fails"
				case item.Atom != nil:
					f.Text = x.substAtom(cr, item.Atom, prev)
					f.Reason = "no tuple of " + item.Atom.Name.Name + " matches"
				case item.Cond != nil:
					f.Text = "if " + x.substTerm(cr, item.Cond.Left, prev) + " " + item.Cond.Op + " " + x.substTerm(cr, item.Cond.Right, prev)
					f.Reason = "the condition does not hold"
				default:
					f.Text = x.substItem(cr, item, prev)
					f.Reason = stepReason(item)
				}
				failed = true
				break
			}
			prev = nb
		}
		if !failed {
			f.Reason = "every body item is satisfied"
		}
		w.Rules = append(w.Rules, f)
	}
	return w, nil
}

// FormatTuple writes a tuple as a Datalog atom, rel("a", "b"): the one
// printing of a tuple, which ParseTuple reads back.
func FormatTuple(rel string, vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return rel + "(" + strings.Join(q, ", ") + ")"
}

// ruleText is the rule's source text on one line.
func ruleText(f *syntax.File, r *syn.Rule) string {
	return strings.Join(strings.Fields(f.Text()[r.Sp.Start:r.Sp.End]), " ")
}

// Format writes the proof as an indented tree: each derived tuple with
// the rule (FILE:line:col and text) that derived it, its body tuples one
// level deeper, then the negations and conditions that held.
func (p *Proof) Format(w io.Writer, f *syntax.File) error {
	return p.format(w, f, "")
}

func (p *Proof) format(w io.Writer, f *syntax.File, indent string) error {
	var line string
	switch {
	case p.Data:
		line = FormatTuple(p.Relation, p.Tuple) + "  from the data"
	case p.Truncated:
		line = FormatTuple(p.Relation, p.Tuple) + "  … (depth or size limit of the explanation)"
	case p.Closure == syn.DSEqrel:
		line = FormatTuple(p.Relation, p.Tuple) + "  by the equivalence (eqrel) its pairs generate"
	case p.Closure != "":
		line = FormatTuple(p.Relation, p.Tuple) + "  by transitivity (" + p.Closure + ")"
	default:
		line = fmt.Sprintf("%s  by rule %s:%s  %s", FormatTuple(p.Relation, p.Tuple), f.Name(), f.Position(p.Rule.Sp.Start), ruleText(f, p.Rule))
	}
	if _, err := fmt.Fprintf(w, "%s%s\n", indent, line); err != nil {
		return err
	}
	for _, c := range p.Body {
		if err := c.format(w, f, indent+"  "); err != nil {
			return err
		}
	}
	for _, h := range p.Held {
		if _, err := fmt.Fprintf(w, "%s  %s  holds\n", indent, h.Text); err != nil {
			return err
		}
	}
	return nil
}

// Format writes the explanation: one line per rule of the relation with
// the first body item that fails.
func (wn *WhyNot) Format(w io.Writer, f *syntax.File) error {
	t := FormatTuple(wn.Relation, wn.Tuple)
	if wn.Holds {
		_, err := fmt.Fprintf(w, "%s is derived (see --why)\n", t)
		return err
	}
	if len(wn.Rules) == 0 {
		_, err := fmt.Fprintf(w, "%s is not derived: no rule derives %s and the data does not hold it\n", t, wn.Relation)
		return err
	}
	if _, err := fmt.Fprintf(w, "%s is not derived:\n", t); err != nil {
		return err
	}
	for _, r := range wn.Rules {
		if _, err := fmt.Fprintf(w, "  rule %s:%s  %s\n", f.Name(), f.Position(r.Rule.Sp.Start), ruleText(f, r.Rule)); err != nil {
			return err
		}
		where := "head"
		if r.Item >= 0 {
			where = fmt.Sprintf("body item %d at %s", r.Item+1, f.Position(r.Span.Start))
		}
		if _, err := fmt.Fprintf(w, "    %s: %s: %s\n", where, r.Text, r.Reason); err != nil {
			return err
		}
	}
	return nil
}
