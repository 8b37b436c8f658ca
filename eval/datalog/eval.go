package datalog

import (
	"context"
	"fmt"
	"slices"

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
	// severity the rule was not evaluated.
	Diagnostics []syntax.Diagnostic
}

// EvalRule parses, checks and evaluates one query rule over db. Parse and
// check errors come back in Result.Diagnostics; the returned error is only
// set when ctx is cancelled.
func EvalRule(ctx context.Context, db *DB, src string) (*Result, error) {
	r, diags := syn.ParseRule(src)
	res := &Result{Rule: r, Diagnostics: diags}
	if syntax.HasErrors(diags) {
		return res, nil
	}
	res.Info = syn.CheckRule(r, db.Schema())
	res.Diagnostics = append(res.Diagnostics, res.Info.Diagnostics...)
	syntax.SortDiagnostics(res.Diagnostics)
	if syntax.HasErrors(res.Diagnostics) {
		return res, nil
	}
	tuples, err := Run(ctx, db, r)
	res.Tuples = tuples
	return res, err
}

// Run evaluates a checked query rule once over db and returns the sorted,
// deduplicated head tuples. Body atoms read the data, even one that names
// the head relation.
func Run(ctx context.Context, db *DB, r *syn.Rule) ([][]string, error) {
	cr, err := compile(db, r, func(name string) []string {
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
	ev := &evaluator{ctx: ctx, db: db, cache: map[cacheKey]*index{}}
	res := newTable(len(cr.head))
	set := newTupleSet(len(cr.head))
	err = ev.run(cr,
		func(i int) *table { return db.rels[cr.pos[i].name].tab },
		func(j int) *table { return db.rels[cr.negs[j].name].tab },
		func(row []uint32) {
			if set.add(row) {
				res.append(row)
			}
		})
	if err != nil {
		return nil, err
	}
	return db.strings(res), nil
}

// strings converts a table of distinct rows to sorted string tuples.
func (db *DB) strings(t *table) [][]string {
	rank := db.ranks()
	ar := t.arity
	flat := make([]string, t.len()*ar)
	out := make([][]string, t.len())
	if ar == 1 || ar == 2 {
		// Sort packed ranks, then map ranks back to ids.
		keys := make([]uint64, t.len())
		for i := range keys {
			r := t.row(i)
			if ar == 1 {
				keys[i] = uint64(rank[r[0]])
			} else {
				keys[i] = uint64(rank[r[0]])<<32 | uint64(rank[r[1]])
			}
		}
		slices.Sort(keys)
		for i, k := range keys {
			tup := flat[i*ar : (i+1)*ar : (i+1)*ar]
			if ar == 1 {
				tup[0] = db.strs[db.order[k]]
			} else {
				tup[0], tup[1] = db.strs[db.order[k>>32]], db.strs[db.order[uint32(k)]]
			}
			out[i] = tup
		}
		return out
	}
	order := make([]int, t.len())
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := t.row(a), t.row(b)
		for k := range ra {
			if ra[k] != rb[k] {
				if rank[ra[k]] < rank[rb[k]] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	for i, r := range order {
		tup := flat[i*ar : (i+1)*ar : (i+1)*ar]
		for k, id := range t.row(r) {
			tup[k] = db.strs[id]
		}
		out[i] = tup
	}
	return out
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

// EvalProgram parses, checks and evaluates a program over db.
func EvalProgram(ctx context.Context, db *DB, name, src string) (*ProgramResult, error) {
	prog := syn.ParseProgram(name, src)
	res := &ProgramResult{Program: prog, Diagnostics: slices.Clone(prog.Diagnostics)}
	res.Info = syn.Check(prog, db.Schema())
	res.Diagnostics = append(res.Diagnostics, res.Info.Diagnostics...)
	syntax.SortDiagnostics(res.Diagnostics)
	if syntax.HasErrors(res.Diagnostics) {
		return res, nil
	}
	rels, err := RunProgram(ctx, db, prog, res.Info)
	res.Relations = rels
	return res, err
}

// RunProgram evaluates a checked program: stratum by stratum in the order
// info.Strata gives, each by semi-naive fixpoint. Negated atoms read lower
// strata only, which the check guarantees.
func RunProgram(ctx context.Context, db *DB, prog *syn.Program, info *syn.Info) (map[string][][]string, error) {
	full := map[string]*table{}
	sets := map[string]*tupleSet{}
	types := func(name string) []string {
		if ri, ok := info.Relations[name]; ok {
			return ri.Types
		}
		return nil
	}
	for _, stratum := range info.Strata {
		for _, name := range stratum {
			ar := len(types(name))
			t, s := newTable(ar), newTupleSet(ar)
			if rel, ok := db.rels[name]; ok {
				for i := 0; i < rel.tab.len(); i++ {
					if s.add(rel.tab.row(i)) {
						t.append(rel.tab.row(i))
					}
				}
			}
			full[name], sets[name] = t, s
		}
	}
	source := func(name string) *table {
		if t, ok := full[name]; ok {
			return t
		}
		if rel, ok := db.rels[name]; ok {
			return rel.tab
		}
		return newTable(len(types(name)))
	}
	ev := &evaluator{ctx: ctx, db: db, cache: map[cacheKey]*index{}}
	for _, stratum := range info.Strata {
		in := map[string]bool{}
		for _, n := range stratum {
			in[n] = true
		}
		type rrule struct {
			cr  *crule
			rec []int // positive atoms reading this stratum
		}
		var rules []rrule
		for _, r := range prog.Rules {
			if r.Head == nil || !in[r.Head.Name.Name] {
				continue
			}
			cr, err := compile(db, r, types)
			if err != nil {
				return nil, err
			}
			rr := rrule{cr: cr}
			for i, a := range cr.pos {
				if in[a.name] {
					rr.rec = append(rr.rec, i)
				}
			}
			rules = append(rules, rr)
		}
		delta := map[string]*table{}
		for _, n := range stratum {
			delta[n] = newTable(len(types(n)))
		}
		addTo := func(next map[string]*table, head string) func([]uint32) {
			return func(row []uint32) {
				if sets[head].add(row) {
					next[head].append(row)
				}
			}
		}
		// First round: every rule over the full relations.
		for _, rr := range rules {
			h := rr.cr.headRel
			// New tuples go to delta and the set only; the full
			// relations this round reads do not change under it.
			err := ev.run(rr.cr,
				func(i int) *table { return source(rr.cr.pos[i].name) },
				func(j int) *table { return source(rr.cr.negs[j].name) },
				addTo(delta, h))
			if err != nil {
				return nil, err
			}
		}
		for _, n := range stratum {
			for i := 0; i < delta[n].len(); i++ {
				full[n].append(delta[n].row(i))
			}
		}
		// Semi-naive rounds: each recursive rule once per recursive atom,
		// that atom reading the last round's new tuples.
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
				next[n] = newTable(len(types(n)))
			}
			for _, rr := range rules {
				for _, di := range rr.rec {
					if delta[rr.cr.pos[di].name].len() == 0 {
						continue
					}
					err := ev.run(rr.cr,
						func(i int) *table {
							if i == di {
								return delta[rr.cr.pos[i].name]
							}
							return source(rr.cr.pos[i].name)
						},
						func(j int) *table { return source(rr.cr.negs[j].name) },
						addTo(next, rr.cr.headRel))
					if err != nil {
						return nil, err
					}
				}
			}
			for _, n := range stratum {
				for i := 0; i < next[n].len(); i++ {
					full[n].append(next[n].row(i))
				}
			}
			delta = next
		}
	}
	out := map[string][][]string{}
	for name, t := range full {
		out[name] = db.strings(t)
	}
	return out, nil
}
