package pact

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// StepCount is the size of the candidate set after one step or filter of
// a query: "^seq" 1, ".mt" 400, "> .cb" 99,062, "[role='assistant']" 0.
type StepCount struct {
	Span  syntax.Span `json:"span"`  // the step or filter in the query text
	Text  string      `json:"text"`  // that text
	Count int         `json:"count"` // candidates left after it
	// Time is the time the step took: since the step recorded before it,
	// or since the evaluation began.
	Time time.Duration `json:"-"`
}

// Explanation is the candidate count after each step and filter of a
// query over one snapshot, in evaluation order, with the result.
type Explanation struct {
	Cycle int64       `json:"cycle"` // the snapshot explained
	Steps []StepCount `json:"steps"`
	// Emptied is the index in Steps of the first step after which no
	// candidate was left, or -1 when the query matches something.
	Emptied int      `json:"emptied"`
	IDs     []string `json:"ids"`
}

// EmptiedBy returns the step that emptied the candidate set, if any.
func (e *Explanation) EmptiedBy() (StepCount, bool) {
	if e.Emptied < 0 || e.Emptied >= len(e.Steps) {
		return StepCount{}, false
	}
	return e.Steps[e.Emptied], true
}

// Explain evaluates the plan over the single snapshot it addresses and
// records the candidate count after each step and filter. The counts come
// from the same set-based steps Eval runs: a compound selector is applied
// part by part (its first part with the combinator, then each further
// type, key, tag, filter and pseudo-class), the trailing {...} and [...]
// filters one by one, then @skip and @limit. Explain returns the same ids
// as Eval. Snapshot ranges and @* have no single snapshot to explain and
// are errors.
func (p *Plan) Explain(ctx context.Context, d *Data) (*Explanation, error) {
	if d == nil || len(d.Snapshots) == 0 {
		return nil, fmt.Errorf("no snapshots")
	}
	t := p.q.Time
	if p.q.IsRange() || (t != nil && t.From != nil && t.From.Kind == syn.TimeAll) {
		return nil, errAt(t, "explain needs a single snapshot; %s addresses several", p.src[t.Sp.Start:t.Sp.End])
	}
	idx, err := resolveAtom(d, t, nil)
	if err != nil {
		return nil, err
	}
	s := d.Snapshots[idx]
	ev := &evaluator{ctx: ctx, p: p, trace: &[]StepCount{}, lastStep: time.Now()}
	defer ev.release()
	nodes, err := ev.evalSnapshot(s)
	if err != nil {
		return nil, err
	}
	e := &Explanation{Cycle: s.Cycle, Steps: *ev.trace, Emptied: -1, IDs: s.idsOf(nodes)}
	for i := ev.tried; i < len(e.Steps) && len(nodes) == 0; i++ {
		if e.Steps[i].Count == 0 {
			e.Emptied = i
			break
		}
	}
	return e, nil
}

// record appends a step count when the evaluation is explained.
func (ev *evaluator) record(sp syntax.Span, n int) {
	if ev.trace == nil {
		return
	}
	now := time.Now()
	*ev.trace = append(*ev.trace, StepCount{Span: sp, Text: ev.p.src[sp.Start:sp.End], Count: n, Time: now.Sub(ev.lastStep)})
	ev.lastStep = now
}

// part is one part of a compound selector with the function that adds it
// to a compound being rebuilt.
type part struct {
	sp   syntax.Span
	add  func(*syn.Compound)
	attr bool
}

// compoundParts lists the parts of c in source order.
func compoundParts(c *syn.Compound) []part {
	var ps []part
	if c.Universal {
		ps = append(ps, part{c.UnivSpan, func(x *syn.Compound) { x.Universal, x.UnivSpan = true, c.UnivSpan }, false})
	}
	if c.Root != nil {
		ps = append(ps, part{c.Root.Sp, func(x *syn.Compound) { x.Root = c.Root }, false})
	}
	if c.Depth != nil {
		ps = append(ps, part{c.Depth.Sp, func(x *syn.Compound) { x.Depth = c.Depth }, false})
	}
	for _, t := range c.Types {
		ps = append(ps, part{t.Sp, func(x *syn.Compound) { x.Types = append(x.Types, t) }, false})
	}
	for _, h := range c.Hashes {
		ps = append(ps, part{h.Sp, func(x *syn.Compound) { x.Hashes = append(x.Hashes, h) }, false})
	}
	for _, t := range c.Tags {
		ps = append(ps, part{t.Sp, func(x *syn.Compound) { x.Tags = append(x.Tags, t) }, false})
	}
	for _, a := range c.Attrs {
		ps = append(ps, part{a.Sp, func(x *syn.Compound) { x.Attrs = append(x.Attrs, a) }, true})
	}
	for _, ps2 := range c.Pseudos {
		ps = append(ps, part{ps2.Sp, func(x *syn.Compound) { x.Pseudos = append(x.Pseudos, ps2) }, false})
	}
	slices.SortStableFunc(ps, func(a, b part) int { return a.sp.Start - b.sp.Start })
	return ps
}

// explainStep evaluates one compound step part by part, recording the
// count after each part; the result is the step's set, as chain computes
// it.
func (ev *evaluator) explainStep(st *syn.Step, cur []int32, first bool, comb syn.Combinator) ([]int32, error) {
	parts := compoundParts(st.Sel)
	x := &syn.Compound{Sp: st.Sel.Sp}
	var set []int32
	for i, pt := range parts {
		pt.add(x)
		sub := *x // a snapshot of the parts so far: matchers are cached per compound
		sp := pt.sp
		if src := ev.p.src; pt.attr && sp.Start > 0 && sp.End < len(src) && src[sp.Start-1] == '[' && src[sp.End] == ']' {
			sp = syntax.Sp(sp.Start-1, sp.End+1) // "[k=v]" reads better than "k=v"
		}
		var err error
		if i == 0 {
			if st.CombSpan != (syntax.Span{}) {
				sp = syntax.Sp(st.CombSpan.Start, sp.End)
			}
			base, typed := ev.baseSetTyped(&sub)
			if first {
				set, err = ev.filter(&sub, base, nil, typed)
			} else {
				rel := ev.s.relateInto(nil, cur, base, comb)
				set, err = ev.filter(&sub, rel, nil, typed)
			}
		} else {
			set, err = ev.filter(&sub, set, nil, false)
		}
		if err != nil {
			return nil, err
		}
		ev.record(sp, len(set))
	}
	return set, nil
}
