package datalog

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Result is the outcome of evaluating a single query rule.
type Result struct {
	Rule *syn.Rule
	Info *syn.Info
	// Tuples are the head tuples, deduplicated and sorted.
	Tuples [][]string
	// Diagnostics are the parse and check findings; when any has error
	// severity the rule was not evaluated. An expression that cannot be
	// computed (a division by zero, an overflow, text where a number is
	// needed) stops the evaluation with an error of code CodeEval here.
	Diagnostics []syntax.Diagnostic
}

// DefaultMaxTuples bounds the tuples an evaluation derives when Options
// leave MaxTuples unset; its intermediate join results are then bounded
// by memory (DefaultMaxBytes) rather than by a count, so that a join of
// millions of narrow rows runs.
const DefaultMaxTuples = 5_000_000

// DefaultMaxBytes bounds the memory an intermediate join result holds
// (4 bytes per value of each row) unless Options set another bound or
// none.
const DefaultMaxBytes = 512 << 20

// Options bound an evaluation. The zero value is the default budget.
type Options struct {
	// MaxTuples bounds every intermediate join result and the tuples an
	// evaluation derives (all relations together). 0 means the default:
	// DefaultMaxTuples derived tuples, and intermediate results bounded
	// by memory only (MaxBytes). A negative value means no bound.
	// Exceeding it stops the evaluation with a *LimitError.
	MaxTuples int
	// MaxBytes bounds the memory of each intermediate join result, at 4
	// bytes per value of each row: 0 means DefaultMaxBytes (no bound
	// when MaxTuples is negative), a negative value no bound. A join of
	// millions of narrow rows fits; one of as many wide rows stops.
	MaxBytes int64
	// Profile, when set, receives the time each rule of a program took
	// and the tuples it derived.
	Profile *Profile
	// Workers is the number of goroutines each round of an evaluation
	// splits its work across (0 or 1: none): in the first round, the rows
	// of one atom of each rule, whole relations; later, the new tuples.
	// The result is the same for any number. WebAssembly runs one
	// thread: there rounds are never split.
	Workers int
	// splitMin, when set, replaces splitRows: the tests split rounds of
	// a few tuples.
	splitMin int
	// general keeps every rule on the general path of the last join (no
	// fused tail): the tests compare the two.
	general bool
	// skipFlatten leaves the equivalence relations in their union-finds
	// at the end of a fixpoint (the tests measure them).
	skipFlatten bool
}

// Profile is what each rule of a program cost: the time spent joining its
// body and the new tuples it derived, summed over the rounds of the
// fixpoint. Rules holds one entry per rule of the program (by index into
// Program.Rules; facts and declarations stay zero).
type Profile struct {
	Rules []RuleProfile
}

// RuleProfile is one rule's share of an evaluation.
type RuleProfile struct {
	Time    time.Duration
	Derived int // the new tuples it added
	Runs    int // the joins it ran (once per round and recursive atom)
}

// measure runs f as the work of program rule i, adding its time and the
// tuples it derives (the growth of *derived) to the profile, if any.
func (p *Profile) measure(i int, derived *int, f func() error) error {
	if p == nil {
		return f()
	}
	t0, d0 := time.Now(), *derived
	err := f()
	r := &p.Rules[i]
	r.Time += time.Since(t0)
	r.Derived += *derived - d0
	r.Runs++
	return err
}

// maxRows is the bound of an intermediate join result's rows (0: none).
func (o Options) maxRows() int {
	if o.MaxTuples == 0 {
		return 0
	}
	return o.maxTuples()
}

func (o Options) maxTuples() int {
	switch {
	case o.MaxTuples == 0:
		return DefaultMaxTuples
	case o.MaxTuples < 0:
		return 0
	}
	return o.MaxTuples
}

func (o Options) maxBytes() int64 {
	switch {
	case o.MaxBytes < 0, o.MaxBytes == 0 && o.MaxTuples < 0:
		return 0
	case o.MaxBytes == 0:
		return DefaultMaxBytes
	}
	return o.MaxBytes
}

// ErrBudget is the error a *LimitError matches with errors.Is.
var ErrBudget = errors.New("tuple budget exceeded")

// LimitError reports an evaluation stopped by its tuple budget.
type LimitError struct {
	// Max is the budget (Options.MaxTuples) that was exceeded.
	Max int
	// Bytes, when set, is the memory bound (Options.MaxBytes) that an
	// intermediate join result exceeded instead.
	Bytes int64
}

func (e *LimitError) Error() string {
	if e.Bytes > 0 {
		return fmt.Sprintf("evaluation stopped: an intermediate join result holds more than %d MiB (the memory bound of a join); narrow the rule", e.Bytes>>20)
	}
	return fmt.Sprintf("evaluation stopped: more than %d tuples (an intermediate join result or the derived tuples) exceed the max-tuples budget; narrow the rule or raise the limit with --max-tuples", e.Max)
}

// Is makes errors.Is(err, ErrBudget) hold.
func (e *LimitError) Is(target error) bool { return target == ErrBudget }

// EvalRule parses, checks and evaluates one query rule over db with the
// default budget. Parse and check errors come back in Result.Diagnostics;
// the returned error is only set when ctx ends or the budget is exceeded.
func EvalRule(ctx context.Context, db *DB, src string) (*Result, error) {
	return EvalRuleWith(ctx, db, src, Options{})
}

// EvalRuleWith is EvalRule with explicit options.
func EvalRuleWith(ctx context.Context, db *DB, src string, opts Options) (*Result, error) {
	res, rows, err := EvalRuleRows(ctx, db, src, opts)
	if rows != nil {
		if res.Tuples, err = rows.TuplesContext(ctx); err != nil {
			return res, err
		}
	}
	return res, err
}

// EvalRuleRows is EvalRuleWith with the head tuples returned as Rows
// (nil when the rule was not evaluated) and Result.Tuples left nil.
func EvalRuleRows(ctx context.Context, db *DB, src string, opts Options) (*Result, *Rows, error) {
	r, diags := syn.ParseRule(src)
	res := &Result{Rule: r, Diagnostics: diags}
	if syntax.HasErrors(diags) {
		return res, nil, nil
	}
	res.Info = syn.CheckRule(r, db.Schema())
	res.Diagnostics = append(res.Diagnostics, res.Info.Diagnostics...)
	syntax.SortDiagnostics(res.Diagnostics)
	if syntax.HasErrors(res.Diagnostics) {
		return res, nil, nil
	}
	t, err := runRule(ctx, db, r, opts)
	if exprDiagnostic(err, &res.Diagnostics) {
		return res, nil, nil
	}
	if err != nil {
		return res, nil, err
	}
	return res, &Rows{db: db, t: t}, nil
}

// CodeEval marks an error computing an expression during evaluation
// (see ExprError).
const CodeEval = "datalog/eval"

// exprDiagnostic turns an *ExprError into a diagnostic appended to
// diags, and reports whether it did.
func exprDiagnostic(err error, diags *[]syntax.Diagnostic) bool {
	var ee *ExprError
	if !errors.As(err, &ee) {
		return false
	}
	*diags = append(*diags, syntax.Diagnostic{Span: ee.Span, Severity: syntax.SeverityError, Code: CodeEval, Message: ee.Msg})
	return true
}

// Run evaluates a checked query rule once over db and returns the sorted,
// deduplicated head tuples. Body atoms read the data, even one that names
// the head relation.
func Run(ctx context.Context, db *DB, r *syn.Rule) ([][]string, error) {
	return RunWith(ctx, db, r, Options{})
}

// RunWith is Run with explicit options.
func RunWith(ctx context.Context, db *DB, r *syn.Rule, opts Options) ([][]string, error) {
	t, err := runRule(ctx, db, r, opts)
	if err != nil {
		return nil, err
	}
	return db.stringsStop(t, ctx.Err)
}

// runRule evaluates a checked query rule and returns its distinct head
// rows; a rule with disjunctions is the union of its alternatives.
func runRule(ctx context.Context, db *DB, r *syn.Rule, opts Options) (*table, error) {
	if r == nil || r.Head == nil {
		return nil, fmt.Errorf("no rule to evaluate")
	}
	ev := newEvaluator(ctx, db, opts)
	base := func(name string) source {
		t := db.rels[name].tab
		return source{t: t, n: t.len(), kind: srcBase}
	}
	ev.lower = base
	res := newTable(len(r.Head.Args))
	set := newTupleSetFor(len(r.Head.Args), len(db.strs))
	// A rule with disjunctions is the union of its alternatives.
	for _, alt := range syn.Expand(r) {
		cr, err := compile(db, alt, func(name string) []string {
			if rel, ok := db.rels[name]; ok {
				return rel.types
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, a := range append(slices.Clone(cr.pos), cr.negs...) {
			if _, ok := db.rels[a.name]; !ok {
				return nil, fmt.Errorf("unknown relation %s", a.name)
			}
		}
		for _, st := range cr.steps {
			if st.agg != nil {
				if _, ok := db.rels[st.agg.atom.name]; !ok {
					return nil, fmt.Errorf("unknown relation %s", st.agg.atom.name)
				}
			}
		}
		err = ev.run(cr,
			func(i int) source { return base(cr.pos[i].name) },
			func(j int) source { return base(cr.negs[j].name) },
			nil, nil,
			func(row []uint32) error {
				if set.add(row) {
					res.append(row)
					return ev.over(res.len())
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// ProgramResult is the outcome of evaluating a program.
type ProgramResult struct {
	Program *syn.Program
	Info    *syn.Info
	// Relations maps each relation a rule or fact derives to its sorted
	// tuples (data tuples of that relation included).
	Relations map[string][][]string
	// Diagnostics are the parse and check findings; when any has error
	// severity the program was not evaluated.
	Diagnostics []syntax.Diagnostic
}

// EvalProgram parses, checks and evaluates a program over db with the
// default budget.
func EvalProgram(ctx context.Context, db *DB, name, src string) (*ProgramResult, error) {
	return EvalProgramWith(ctx, db, name, src, Options{})
}

// EvalProgramWith is EvalProgram with explicit options.
func EvalProgramWith(ctx context.Context, db *DB, name, src string, opts Options) (*ProgramResult, error) {
	res, rels, err := EvalProgramRows(ctx, db, name, src, opts)
	if rels != nil {
		res.Relations = map[string][][]string{}
		for n, r := range rels {
			tuples, err := r.TuplesContext(ctx)
			if err != nil {
				res.Relations = nil
				return res, err
			}
			res.Relations[n] = tuples
		}
	}
	return res, err
}

// EvalProgramRows is EvalProgramWith with each derived relation's tuples
// returned as Rows (nil when the program was not evaluated) and
// ProgramResult.Relations left nil.
func EvalProgramRows(ctx context.Context, db *DB, name, src string, opts Options) (*ProgramResult, map[string]*Rows, error) {
	prog := syn.ParseProgram(name, src)
	res := &ProgramResult{Program: prog, Diagnostics: slices.Clone(prog.Diagnostics)}
	res.Info = syn.Check(prog, db.Schema())
	res.Diagnostics = append(res.Diagnostics, res.Info.Diagnostics...)
	syntax.SortDiagnostics(res.Diagnostics)
	if syntax.HasErrors(res.Diagnostics) {
		return res, nil, nil
	}
	st, err := fixpoint(ctx, db, prog, res.Info, opts)
	if exprDiagnostic(err, &res.Diagnostics) {
		return res, nil, nil
	}
	if err != nil {
		return res, nil, err
	}
	rels := map[string]*Rows{}
	for n, t := range st.full {
		rels[n] = &Rows{db: db, t: t}
	}
	return res, rels, nil
}

// RunProgram evaluates a checked program: stratum by stratum in the order
// info.Strata gives, each by semi-naive fixpoint. Negated atoms read lower
// strata only, which the check guarantees.
func RunProgram(ctx context.Context, db *DB, prog *syn.Program, info *syn.Info) (map[string][][]string, error) {
	return RunProgramWith(ctx, db, prog, info, Options{})
}

// RunProgramWith is RunProgram with explicit options.
func RunProgramWith(ctx context.Context, db *DB, prog *syn.Program, info *syn.Info, opts Options) (map[string][][]string, error) {
	st, err := fixpoint(ctx, db, prog, info, opts)
	if err != nil {
		return nil, err
	}
	out := map[string][][]string{}
	for name, t := range st.full {
		tuples, err := db.stringsStop(t, ctx.Err)
		if err != nil {
			return nil, err
		}
		out[name] = tuples
	}
	return out, nil
}

// progState is an evaluated program: every derived relation's tuples in
// the order they were derived, and where each round ended.
type progState struct {
	db      *DB
	prog    *syn.Program
	info    *syn.Info
	full    map[string]*table
	stratum map[string]int // derived relation -> index into info.Strata
	// rounds[name][k] is the number of rows of full[name] after round k;
	// round 0 holds the data's tuples.
	rounds map[string][]int
	// xrules are the simple rules the program's statements stand for
	// (see syn.Expand); xsrc[i] indexes prog.Rules.
	xrules []*syn.Rule
	xsrc   []int
	rules  []*crule // compiled, by index into xrules (nil: not a rule)
	// eq holds the equivalence relations of the strata done; once flat
	// is set (the fixpoint is over), full holds their tuples as rows too,
	// and reads (explanations) see those.
	eq   map[string]*eqStore
	flat bool
	// synth marks the rules of xrules that close an eqrel or trrel (no
	// rule of the program).
	synth []bool
}

func (st *progState) types(name string) []string {
	if ri, ok := st.info.Relations[name]; ok {
		return ri.Types
	}
	return nil
}

// source returns the table a body atom naming name reads.
func (st *progState) source(name string) source {
	if s, ok := st.eq[name]; ok && !st.flat {
		return source{t: newTable(s.arity), n: s.size(), kind: srcTemp, eq: s}
	}
	if t, ok := st.full[name]; ok {
		return source{t: t, n: t.len(), kind: srcGrow}
	}
	if rel, ok := st.db.rels[name]; ok {
		return source{t: rel.tab, n: rel.tab.len(), kind: srcBase}
	}
	return source{t: newTable(len(st.types(name))), kind: srcTemp}
}

// fixpoint evaluates the program: stratum by stratum, each by semi-naive
// evaluation. In each round, a rule with k atoms over its own stratum runs
// k times, the i-th time with atom i reading the previous round's new
// tuples, the atoms before it the tuples known before that round and the
// atoms after it all tuples known; the join order is chosen for each of
// these versions. The fixpoint's relations keep indexes that grow with
// them.
func fixpoint(ctx context.Context, db *DB, prog *syn.Program, info *syn.Info, opts Options) (*progState, error) {
	st := &progState{db: db, prog: prog, info: info, full: map[string]*table{}, stratum: map[string]int{},
		rounds: map[string][]int{}, eq: map[string]*eqStore{}}
	for i, r := range prog.Rules {
		for _, x := range syn.Expand(r) {
			st.xrules = append(st.xrules, x)
			st.xsrc = append(st.xsrc, i)
		}
	}
	building, err := st.dsRules()
	if err != nil {
		return nil, err
	}
	st.rules = make([]*crule, len(st.xrules))
	// Intern the head constants first: a body constant that only a rule
	// head produces (not the data) must resolve to its id in every rule,
	// whichever is compiled first.
	for _, r := range st.xrules {
		if r.Head != nil {
			for _, t := range r.Head.Args {
				if t.IsConst() {
					db.intern(t.Value)
				}
			}
		}
	}
	ev := newEvaluator(ctx, db, opts)
	ev.lower = st.source
	if err := st.closeDataDS(ev); err != nil {
		return nil, err
	}
	workers := opts.workers()
	prof := opts.Profile
	if prof != nil {
		prof.Rules = make([]RuleProfile, len(prog.Rules))
	}
	sets := map[string]*tupleSet{}
	lats := map[string]*latticeSet{}
	derived := 0
	for si, stratum := range info.Strata {
		for _, name := range stratum {
			st.stratum[name] = si
			ar := len(st.types(name))
			t := newTable(ar)
			s := newTupleSetFor(ar, len(db.strs))
			if rel, ok := db.rels[name]; ok {
				for i := 0; i < rel.tab.len(); i++ {
					if err := ev.check(); err != nil {
						return nil, err
					}
					if s.add(rel.tab.row(i)) {
						t.append(rel.tab.row(i))
					}
				}
			}
			if eqs := building[name]; eqs != nil {
				eqs.fromTable(t)
				t = newTable(ar)
			}
			st.full[name], sets[name] = t, s
			st.rounds[name] = []int{t.len()}
			if ri := info.Relations[name]; ri != nil && ri.Lattice && ar > 0 {
				lats[name] = newLatticeSet(db, ar, ri.Dual)
				for i := 0; i < t.len(); i++ {
					if err := ev.check(); err != nil {
						return nil, err
					}
					lats[name].add(t.row(i))
				}
			}
		}
	}
	for _, stratum := range info.Strata {
		in := map[string]bool{}
		for _, n := range stratum {
			in[n] = true
		}
		type rrule struct {
			cr  *crule
			rec []int // positive atoms reading this stratum
			src int   // the program rule it comes from
		}
		var rules []rrule
		for ri, r := range st.xrules {
			if r.Head == nil || !in[r.Head.Name.Name] {
				continue
			}
			cr, err := compile(db, r, st.types)
			if err != nil {
				return nil, err
			}
			st.rules[ri] = cr
			rr := rrule{cr: cr, src: st.xsrc[ri]}
			for i, a := range cr.pos {
				if in[a.name] {
					rr.rec = append(rr.rec, i)
				}
			}
			rules = append(rules, rr)
		}
		tc := transitiveRule(stratum, rules, func(r rrule) (*crule, []int) { return r.cr, r.rec })
		if len(stratum) > 0 && lats[stratum[0]] != nil {
			tc = -1
		}
		delta := map[string]*table{}
		for _, n := range stratum {
			delta[n] = newTable(len(st.types(n)))
		}
		addTo := func(next map[string]*table, head string) func([]uint32) error {
			set, tab := sets[head], next[head]
			if eqs := building[head]; eqs != nil {
				// An equivalence relation nothing in its stratum
				// reads grows in its union-find only.
				return func(row []uint32) error {
					if eqs.add(row) {
						derived++
						return ev.over(derived)
					}
					return nil
				}
			}
			if lat := lats[head]; lat != nil {
				// A lattice keeps one value per key: a row is new when
				// its value improves on the key's.
				return func(row []uint32) error {
					if lat.add(row) {
						tab.append(row)
						derived++
						return ev.over(derived)
					}
					return nil
				}
			}
			return func(row []uint32) error {
				if set.add(row) {
					tab.append(row)
					derived++
					return ev.over(derived)
				}
				return nil
			}
		}
		// sinkTo is what addTo(next, head) does, for a streamed plan
		// to do itself (nil for an equivalence relation or a lattice).
		sinkTo := func(next map[string]*table, head string) *headSink {
			if lats[head] != nil || building[head] != nil {
				return nil
			}
			limit := math.MaxInt
			if ev.max > 0 {
				limit = ev.max
			}
			return &headSink{seen: sets[head], set: sets[head], tab: next[head], count: &derived, over: ev.over, limit: limit}
		}
		// seen is the set addTo keeps for a head, which a run may read to
		// drop rows derived before (none for a lattice).
		seen := func(head string) *tupleSet {
			if lats[head] != nil || building[head] != nil {
				return nil
			}
			return sets[head]
		}
		endRound := func(add map[string]*table) error {
			for _, n := range stratum {
				t := st.full[n]
				if err := t.appendTables([]*table{add[n]}, workers, ctx.Err); err != nil {
					return err
				}
				st.rounds[n] = append(st.rounds[n], t.len())
			}
			return nil
		}
		// First round: every rule over the full relations. New tuples
		// go to delta and the set only; the full relations this round
		// reads do not change under it.
		for _, rr := range rules {
			cr := rr.cr
			err := prof.measure(rr.src, &derived, func() error {
				ev.sink = sinkTo(delta, cr.headRel)
				defer func() { ev.sink = nil }()
				src := func(i int) source { return st.source(cr.pos[i].name) }
				neg := func(j int) source { return st.source(cr.negs[j].name) }
				if splitting && workers > 1 && lats[cr.headRel] == nil {
					// Split on the atom a streamed join would drive
					// from, as a later round splits on its new tuples.
					if di := firstDriver(cr, src); di >= 0 {
						if ok, err := ev.runSplit(workers, cr, di, src(di).t, src, neg, seen(cr.headRel), addTo(delta, cr.headRel)); ok {
							return err
						}
					}
				}
				return ev.runInto(cr, src, neg, nil, nil, seen(cr.headRel), addTo(delta, cr.headRel))
			})
			if err != nil {
				return nil, err
			}
		}
		if err := endRound(delta); err != nil {
			return nil, err
		}
		if tc >= 0 {
			// The relation is the transitive closure of what it holds
			// now: continue with the linear rule "r(x, z) <-- r(x, y),
			// base(y, z)" over a snapshot base of those tuples, from all
			// of them as the first delta.
			name := stratum[0]
			full := st.full[name]
			base := full.clone()
			all := full.clone()
			cr := *rules[tc].cr
			cr.pos = []*catom{cr.pos[0], cr.pos[1]}
			if cr.pos[1].args[0].slot != cr.pos[0].args[1].slot {
				cr.pos[0], cr.pos[1] = cr.pos[1], cr.pos[0]
			}
			lin := &crule{nvars: cr.nvars, head: cr.head, headRel: cr.headRel, conds: cr.conds, negs: cr.negs,
				pos: []*catom{cr.pos[0], {name: "", args: cr.pos[1].args, at: cr.pos[1].at}}}
			baseSrc := source{t: base, n: base.n, kind: srcGrow}
			for {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if all.len() == 0 {
					break
				}
				next := map[string]*table{name: newTable(2)}
				d := all
				err := prof.measure(rules[tc].src, &derived, func() error {
					src := func(i int) source {
						if i == 0 {
							return source{t: d, n: d.len(), kind: srcTemp}
						}
						return baseSrc
					}
					ev.sink = sinkTo(next, name)
					defer func() { ev.sink = nil }()
					if splitting {
						if ok, err := ev.runSplit(workers, lin, 0, d, src, nil, seen(name), addTo(next, name)); ok {
							return err
						}
					}
					return ev.runInto(lin, src, nil, nil, nil, seen(name), addTo(next, name))
				})
				if err != nil {
					return nil, err
				}
				if err := endRound(next); err != nil {
					return nil, err
				}
				all = next[name]
			}
			continue
		}
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			more := false
			for _, n := range stratum {
				if delta[n].len() > 0 {
					more = true
				}
			}
			if !more {
				break
			}
			next := map[string]*table{}
			for _, n := range stratum {
				next[n] = newTable(len(st.types(n)))
			}
			for _, rr := range rules {
				cr := rr.cr
				for k, di := range rr.rec {
					if delta[cr.pos[di].name].len() == 0 {
						continue
					}
					before := map[int]bool{}
					for _, i := range rr.rec[:k] {
						before[i] = true
					}
					err := prof.measure(rr.src, &derived, func() error {
						src := func(i int) source {
							name := cr.pos[i].name
							switch {
							case i == di:
								d := delta[name]
								return source{t: d, n: d.len(), kind: srcTemp}
							case before[i]:
								s := st.source(name)
								s.n -= delta[name].len()
								return s
							}
							return st.source(name)
						}
						neg := func(j int) source { return st.source(cr.negs[j].name) }
						ev.sink = sinkTo(next, cr.headRel)
						defer func() { ev.sink = nil }()
						if lats[cr.headRel] == nil {
							if splitting {
								if ok, err := ev.runSplit(workers, cr, di, delta[cr.pos[di].name], src, neg, seen(cr.headRel), addTo(next, cr.headRel)); ok {
									return err
								}
							}
						}
						return ev.runInto(cr, src, neg, nil, nil, seen(cr.headRel), addTo(next, cr.headRel))
					})
					if err != nil {
						return nil, err
					}
				}
			}
			if err := endRound(next); err != nil {
				return nil, err
			}
			delta = next
		}
		for _, n := range stratum {
			if lat := lats[n]; lat != nil {
				full, err := lat.compact(st.full[n], ctx.Err)
				if err != nil {
					return nil, err
				}
				st.full[n] = full
				st.rounds[n] = []int{0, st.full[n].len()}
			}
		}
		st.freezeEq(stratum, building)
	}
	if opts.skipFlatten {
		return st, nil
	}
	if err := st.flattenEq(ev); err != nil {
		return nil, err
	}
	return st, nil
}

// transitiveRule returns the index in rules of the rule that makes the
// stratum's only relation transitive, "r(x, z) <-- r(x, y), r(y, z)" (x,
// y, z distinct variables, nothing else in the body), when every other
// rule of the stratum is non-recursive; -1 otherwise. Such a relation is
// the transitive closure of what the other rules and the data give it, so
// it can be evaluated by the linear rule instead.
func transitiveRule[R any](stratum []string, rules []R, get func(R) (*crule, []int)) int {
	if len(stratum) != 1 {
		return -1
	}
	found := -1
	for i, r := range rules {
		cr, rec := get(r)
		if len(rec) == 0 {
			continue
		}
		if found >= 0 || len(cr.head) != 2 || len(cr.pos) != 2 || len(rec) != 2 || len(cr.negs) > 0 || len(cr.conds) > 0 || len(cr.steps) > 0 {
			return -1
		}
		var v [6]int
		for j, g := range []carg{cr.head[0], cr.head[1], cr.pos[0].args[0], cr.pos[0].args[1], cr.pos[1].args[0], cr.pos[1].args[1]} {
			if g.kind != aVar {
				return -1
			}
			v[j] = g.slot
		}
		hx, hz, a, b, c, d := v[0], v[1], v[2], v[3], v[4], v[5]
		ok := (b == c && hx == a && hz == d) || (d == a && hx == c && hz == b)
		x, y, z := a, b, d
		if d == a {
			x, y, z = c, d, b
		}
		if !ok || x == y || y == z || x == z {
			return -1
		}
		found = i
	}
	return found
}
