package pact

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// Error is an evaluation or compilation error caused by the query; Span
// locates the offending part of the selector text.
type Error struct {
	Span syntax.Span
	Msg  string
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }

func errAt(n syn.Node, format string, args ...any) *Error {
	var sp syntax.Span
	if n != nil {
		sp = n.Span()
	}
	return &Error{Span: sp, Msg: fmt.Sprintf(format, args...)}
}

// Plan is a compiled query, ready to be evaluated over any Data.
type Plan struct {
	q       *syn.Query
	src     string
	keyed   bool // the query selects by key: §3.5.2 default ordering applies
	limit   int  // @limit, -1 when absent
	skip    int  // @skip
	order   string
	hasMode bool
}

// Query returns the compiled query's AST.
func (p *Plan) Query() *syn.Query { return p.q }

// Compile checks a parsed query and turns it into a plan. src is the
// selector text, echoed in range results. Errors carry the span of the
// offending part.
func Compile(q *syn.Query, src string) (*Plan, error) {
	if q == nil || q.Expr == nil {
		return nil, &Error{Msg: "empty selector"}
	}
	if q.Bad {
		return nil, &Error{Span: q.Sp, Msg: "invalid selector"}
	}
	if ds := syn.Validate(q); len(ds) > 0 {
		return nil, &Error{Span: ds[0].Span, Msg: ds[0].Message}
	}
	p := &Plan{q: q, src: src, limit: -1, order: "", keyed: q.Dialect != syn.V1 && sameKey(q)}
	for _, c := range q.Controls {
		switch c.Name {
		case "limit", "skip":
			n, _ := strconv.Atoi(c.Value)
			if c.Name == "limit" {
				p.limit = n
			} else {
				p.skip = n
			}
		case "order":
			p.order = c.Value
		case "mode":
			p.hasMode = true
		}
	}
	return p, nil
}

// Options are the ctx.select options; they affect range results only.
type Options struct {
	IncludeContent        bool     `json:"includeContent,omitempty"`
	ContentMode           string   `json:"contentMode,omitempty"`
	ContextLines          *int     `json:"contextLines,omitempty"`
	Materialize           []string `json:"materialize,omitempty"`
	MaxSnapshots          *int     `json:"maxSnapshots,omitempty"`
	MaxChangesPerSnapshot *int     `json:"maxChangesPerSnapshot,omitempty"`

	// Nodes, when not nil, makes a selection of one snapshot return its
	// nodes (Result.Nodes) rather than their ids, for a caller that keeps
	// the ids of a snapshot's nodes itself: they are written over
	// *Nodes's storage, which the caller reuses from one evaluation to
	// the next (*Nodes is left holding them). It is not read from JSON.
	Nodes *[]int32 `json:"-"`
}

// ParseOptions decodes options from JSON, rejecting unknown keys.
func ParseOptions(b []byte) (Options, error) {
	var o Options
	if len(strings.TrimSpace(string(b))) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, fmt.Errorf("invalid options: %w", err)
	}
	switch o.ContentMode {
	case "", "unified", "jsonpatch", "tokens":
	default:
		return o, fmt.Errorf("invalid options: contentMode must be unified, jsonpatch or tokens")
	}
	if o.ContextLines != nil && *o.ContextLines < 0 {
		return o, fmt.Errorf("invalid options: contextLines must not be negative")
	}
	if o.MaxSnapshots != nil && *o.MaxSnapshots < 1 {
		return o, fmt.Errorf("invalid options: maxSnapshots must be at least 1")
	}
	if o.MaxChangesPerSnapshot != nil && *o.MaxChangesPerSnapshot < 0 {
		return o, fmt.Errorf("invalid options: maxChangesPerSnapshot must not be negative")
	}
	return o, nil
}

// Result is an evaluation result: IDs for a single snapshot or @*, Range for
// a snapshot range. It marshals to a JSON array of ids or to the
// RangeDiffLatestResult object.
type Result struct {
	IDs   []string
	Range *RangeDiffLatestResult

	// Nodes, when Options.Nodes asked for them, are the nodes of a
	// selection of one snapshot that have an id, in the order of their
	// ids, and Snapshot is that snapshot's index in Data.Snapshots; IDs
	// is then nil (the result marshals to the same ids all the same).
	Nodes    []int32
	Snapshot int
	snap     *Snapshot

	// plain says every id is printable ASCII without quotes and
	// backslashes (known from the load), so that it is written into the
	// JSON as it is.
	plain bool
}

// MarshalJSON implements json.Marshaler.
func (r Result) MarshalJSON() ([]byte, error) {
	if r.Range != nil {
		return jsonenc.Marshal(r.Range)
	}
	if r.snap != nil {
		r.IDs = r.snap.idsOf(r.Nodes)
	}
	if r.IDs == nil {
		return []byte("[]"), nil
	}
	if r.plain {
		return jsonenc.PlainStrings(r.IDs), nil
	}
	return jsonenc.Marshal(r.IDs)
}

// Select parses, compiles and evaluates src in one call.
func Select(ctx context.Context, d *Data, src string, dialect syn.Dialect, opts Options) (Result, error) {
	q, diags := syn.ParseQuery(src, dialect)
	for _, dg := range diags {
		if dg.Severity == syntax.SeverityError {
			return Result{}, &Error{Span: dg.Span, Msg: dg.Message}
		}
	}
	p, err := Compile(q, src)
	if err != nil {
		return Result{}, err
	}
	return p.Eval(ctx, d, opts)
}

// Eval evaluates the plan over d. It stops with ctx.Err() when ctx is
// cancelled.
func (p *Plan) Eval(ctx context.Context, d *Data, opts Options) (Result, error) {
	if d == nil || len(d.Snapshots) == 0 {
		return Result{}, fmt.Errorf("no snapshots")
	}
	ev := &evaluator{ctx: ctx, p: p}
	defer ev.release()
	if p.q.IsRange() {
		r, err := ev.evalRange(d, opts)
		if err != nil {
			return Result{}, err
		}
		return Result{Range: r}, nil
	}
	t := p.q.Time
	if t != nil && t.From.Kind == syn.TimeAll {
		ids := []string{}
		seen := map[string]bool{}
		plain := true
		for i := len(d.Snapshots) - 1; i >= 0; i-- {
			nodes, err := ev.evalSnapshot(d.Snapshots[i])
			if err != nil {
				return Result{}, err
			}
			s := d.Snapshots[i]
			plain = plain && s.jsonIDs == 0
			for _, n := range nodes {
				if id := s.nodeID(n); id != "" && !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		return Result{IDs: ids, plain: plain}, nil
	}
	idx, err := resolveAtom(d, t, nil)
	if err != nil {
		return Result{}, err
	}
	s := d.Snapshots[idx]
	nodes, err := ev.evalSnapshot(s)
	if err != nil {
		return Result{}, err
	}
	if opts.Nodes != nil {
		*opts.Nodes = s.withIDs((*opts.Nodes)[:0], nodes)
		return Result{Nodes: *opts.Nodes, Snapshot: idx, snap: s, plain: s.jsonIDs == 0}, nil
	}
	return Result{IDs: s.idsOf(nodes), plain: s.jsonIDs == 0}, nil
}

// withIDs appends to out the nodes of a set that have an id: the nodes of
// idsOf's ids.
func (s *Snapshot) withIDs(out, nodes []int32) []int32 {
	for _, n := range nodes {
		// An id with an escape is not empty.
		if sp := s.id[n]; sp.hi > sp.lo || s.flags[n]&flagIDEsc != 0 {
			out = append(out, n)
		}
	}
	return out
}

// idsOf returns the ids of a set of nodes, leaving out nodes without one.
func (s *Snapshot) idsOf(nodes []int32) []string {
	ids := make([]string, 0, len(nodes))
	for _, n := range nodes {
		// nodeID, written out: a call per node costs most where nothing
		// is inlined (WebAssembly).
		var id string
		if s.flags[n]&flagIDEsc != 0 {
			id = s.escIDs[n]
		} else {
			sp := s.id[n]
			id = s.src[sp.lo:sp.hi]
		}
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// resolveAtom returns the index in d.Snapshots of a single snapshot
// reference (nil time means @t0). kindFrom is the range start for bare ends.
func resolveAtom(d *Data, t *syn.Time, a *syn.TimeAtom) (int, error) {
	if a == nil {
		if t == nil {
			return len(d.Snapshots) - 1, nil
		}
		a = t.From
	}
	kind := a.Kind
	if a.Bare && t != nil && t.From != nil {
		kind = t.From.Kind
	}
	switch kind {
	case syn.TimeRelative:
		if a.Oldest {
			return 0, nil
		}
		if a.Value > 0 {
			return 0, errAt(a, "snapshot @t+%d is in the future; relative snapshots are @t0, @t-1, ...", a.Value)
		}
		i := len(d.Snapshots) - 1 + a.Value
		if i < 0 {
			return 0, errAt(a, "snapshot @t%d does not exist: the data has %d snapshot(s)", a.Value, len(d.Snapshots))
		}
		return i, nil
	case syn.TimeCycle:
		for i, s := range d.Snapshots {
			if s.Cycle == int64(a.Value) {
				return i, nil
			}
		}
		return 0, errAt(a, "no snapshot with cycle %d", a.Value)
	}
	return 0, errAt(a, "@* is not a single snapshot")
}

// evaluator carries one evaluation.
type evaluator struct {
	ctx      context.Context
	stopped  error // ctx's error, seen by a step that cannot return it
	p        *Plan
	s        *Snapshot
	steps    int
	matchers map[*syn.Compound]*matcher
	held     []heldBuf    // scratch sets to give back when the evaluation ends
	trace    *[]StepCount // step counts, recorded only by Explain
	tried    int          // trace entries of fallback sides that matched nothing
	lastStep time.Time    // when the last step count was recorded (Explain)
}

// heldBuf is a scratch set taken from a snapshot's pool.
type heldBuf struct {
	s *Snapshot
	b []int32
}

// release gives every scratch set back to its pool; nothing of the
// evaluation may refer to them afterwards.
func (ev *evaluator) release() {
	for _, h := range ev.held {
		h.s.putBuf(h.b)
	}
	ev.held = nil
}

func (ev *evaluator) check() error {
	ev.steps++
	if ev.steps&1023 == 0 {
		return ev.err()
	}
	return nil
}

// err is ctx.Err(), and also context.DeadlineExceeded once the context's
// deadline has passed: a busy machine may deliver the deadline's timer late,
// and an evaluation must stop at its deadline all the same.
func (ev *evaluator) err() error {
	if ev.stopped != nil {
		return ev.stopped
	}
	if err := ev.ctx.Err(); err != nil {
		return err
	}
	if d, ok := ev.ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// evalSnapshot evaluates the whole query over one snapshot and returns the
// matched nodes in result order.
func (ev *evaluator) evalSnapshot(s *Snapshot) ([]int32, error) {
	if err := ev.err(); err != nil {
		return nil, err
	}
	ev.s = s
	set, err := ev.expr(ev.p.q.Expr)
	if err != nil {
		return nil, err
	}
	q := ev.p.q
	if ev.trace != nil {
		if _, ok := q.Expr.(*syn.Chain); !ok {
			if _, ok := q.Expr.(*syn.Fallback); !ok {
				ev.record(q.Expr.Span(), len(set))
			}
		}
	}
	for _, b := range []*syn.Block{q.Props, q.Behavior} {
		if b == nil {
			continue
		}
		if ev.trace != nil {
			// One filter at a time, to count after each.
			for _, a := range b.Items {
				out := set[:0:0]
				for _, n := range set {
					if ev.matchAttrs(Node{s, n}, []*syn.Attr{a}) {
						out = append(out, n)
					}
				}
				set = out
				ev.record(a.Sp, len(set))
			}
			continue
		}
		out := set[:0:0]
		for _, n := range set {
			if ev.matchAttrs(Node{s, n}, b.Items) {
				out = append(out, n)
			}
		}
		set = out
	}
	if err := ev.err(); err != nil {
		return nil, err
	}
	if ev.p.order == "id" {
		sort.SliceStable(set, func(i, j int) bool { return s.nodeID(set[i]) < s.nodeID(set[j]) })
	} else if ev.p.order == "key" || (ev.p.keyed && ev.p.order == "") {
		s.keyOrder(set)
	}
	if ev.p.skip > 0 {
		if ev.p.skip >= len(set) {
			set = nil
		} else {
			set = set[ev.p.skip:]
		}
	}
	if ev.p.limit >= 0 && len(set) > ev.p.limit {
		set = set[:ev.p.limit]
	}
	if ev.trace != nil {
		for _, c := range q.Controls {
			if c.Name == "skip" || c.Name == "limit" {
				ev.record(c.Sp, len(set))
			}
		}
	}
	return set, nil
}

// keyOrder sorts a key-selected set per v2 §3.5.2: region depth DESC, then
// created_at_ns DESC, then creation_index DESC, then id ASC.
func (s *Snapshot) keyOrder(set []int32) {
	sort.SliceStable(set, func(i, j int) bool {
		a, b := Node{s, set[i]}, Node{s, set[j]}
		if da, db := s.regionDepth(a.i), s.regionDepth(b.i); da != db {
			return da > db
		}
		if c := cmpNum(b.attr("created_at_ns"), a.attr("created_at_ns")); c != 0 {
			return c < 0
		}
		if c := cmpNum(b.attr("creation_index"), a.attr("creation_index")); c != 0 {
			return c < 0
		}
		return a.ID() < b.ID()
	})
}

// cmpNum compares two optional numbers; a missing number sorts lowest.
func cmpNum(a, b any) int {
	x, okx := numOf(a)
	y, oky := numOf(b)
	switch {
	case !okx && !oky:
		return 0
	case !okx:
		return -1
	case !oky:
		return 1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// regionDepth is the structural depth of the region holding n: -1 in ^sys,
// 0 in ^ah, N under the turn at depth N, and -2 elsewhere.
func (s *Snapshot) regionDepth(n int32) int {
	for m := n; m >= 0; m = s.parent[m] {
		if t := s.turn(m); t > 0 {
			return int(t)
		}
		if s.kind(m)&kindSys != 0 {
			return -1
		}
		if s.kind(m)&kindAh != 0 {
			return 0
		}
	}
	return -2
}

// expr evaluates a selector body to a node set in document order.
func (ev *evaluator) expr(e syn.Expr) ([]int32, error) {
	switch x := e.(type) {
	case *syn.Chain:
		return ev.chain(x)
	case *syn.Union:
		var sets [][]int32
		for _, it := range x.Items {
			s, err := ev.expr(it)
			if err != nil {
				return nil, err
			}
			sets = append(sets, s)
		}
		return union(sets...), nil
	case *syn.Fallback:
		l, err := ev.expr(x.Left)
		if err != nil || len(l) > 0 {
			return l, err
		}
		if ev.trace != nil {
			ev.tried = len(*ev.trace) // the left side's counts no longer decide
		}
		return ev.expr(x.Right)
	case *syn.Paren:
		return ev.expr(x.Inner)
	case *syn.Position:
		return ev.position(x)
	case *syn.CoordSet:
		var sets [][]int32
		for _, c := range x.Coords {
			s, err := ev.position(c)
			if err != nil {
				return nil, err
			}
			sets = append(sets, s)
		}
		return union(sets...), nil
	case *syn.PropSearch:
		var out []int32
		for n := range int32(ev.s.Len()) {
			if err := ev.check(); err != nil {
				return nil, err
			}
			if ev.matchAttrs(Node{ev.s, n}, x.Block.Items) {
				out = append(out, n)
			}
		}
		return out, nil
	case nil:
		return nil, &Error{Msg: "empty selector"}
	}
	return nil, errAt(e, "unsupported selector form")
}

// union merges node sets into one de-duplicated set in document order.
func union(sets ...[]int32) []int32 {
	var all []int32
	for _, s := range sets {
		all = append(all, s...)
	}
	slices.Sort(all)
	out := all[:0]
	for i, n := range all {
		if i == 0 || n != all[i-1] {
			out = append(out, n)
		}
	}
	return out
}

// depthNodes returns the nodes at structural depths from..to: d-1 is ^sys,
// d0 ^ah, dN the turn at depth N under ^seq.
func (ev *evaluator) depthNodes(from, to int) []int32 {
	var out []int32
	if from <= -1 && to >= -1 {
		out = append(out, ev.rootNodes("sys")...)
	}
	if from <= 0 && to >= 0 {
		out = append(out, ev.rootNodes("ah")...)
	}
	if to >= 1 {
		for _, sq := range ev.rootNodes("seq") {
			for c := range ev.s.children(sq) {
				if t := int(ev.s.turn(c)); t >= from && t <= to {
					out = append(out, c)
				}
			}
		}
	}
	return union(out)
}

func (ev *evaluator) rootNodes(name string) []int32 {
	out := append([]int32(nil), ev.s.byType["^"+name]...)
	out = append(out, ev.s.byType[name]...)
	if name == "root" {
		out = append(out, 0)
	}
	return union(out)
}

// position evaluates a v2 position "(d1, 0, seg, cont[offset=0])": a depth
// hop followed by child hops; an integer hop selects the children with
// that offset.
func (ev *evaluator) position(p *syn.Position) ([]int32, error) {
	var cur []int32
	for i, h := range p.Hops {
		switch h.Kind {
		case syn.HopDepth:
			ds := ev.depthNodes(h.Depth.From, h.Depth.To)
			if i == 0 {
				cur = ds
			} else {
				cur = ev.s.relate(cur, ds, syn.CombChild)
			}
		case syn.HopOffset:
			var next []int32
			src := cur
			if i == 0 {
				src = []int32{0}
			}
			for _, n := range src {
				for c := range ev.s.children(n) {
					if v, ok := numOf(Node{ev.s, c}.attr("offset")); ok && v == float64(h.Offset) {
						next = append(next, c)
					}
				}
			}
			cur = union(next)
		case syn.HopStep:
			cands, err := ev.compoundSet(h.Step)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				cur = cands
			} else {
				cur = ev.s.relate(cur, cands, syn.CombChild)
			}
		default:
			return nil, errAt(h, "insertion positions are for mutations, not selection")
		}
	}
	return cur, nil
}

// chain evaluates steps left to right over node sets: each step keeps the
// candidates related to the previous step's set by its combinator.
func (ev *evaluator) chain(c *syn.Chain) ([]int32, error) {
	// Steps alternate between two scratch sets from the snapshot's pool;
	// they go back to the pool when the whole evaluation ends, so the
	// result may live in one of them.
	bufs := [2][]int32{ev.s.getBuf(), ev.s.getBuf()}
	defer func() { ev.held = append(ev.held, heldBuf{ev.s, bufs[0]}, heldBuf{ev.s, bufs[1]}) }()
	k := 0
	var cur []int32
	first := true
	if c.Scope != nil {
		cur = ev.depthNodes(c.Scope.From, c.Scope.To)
		first = false
		ev.record(c.Scope.Sp, len(cur))
	}
	for _, st := range c.Steps {
		if err := ev.err(); err != nil {
			return nil, err
		}
		comb := st.Comb
		if comb == syn.CombNone {
			comb = syn.CombDescendant
		}
		if st.Sel != nil && ev.trace != nil {
			set, err := ev.explainStep(st, cur, first, comb)
			if err != nil {
				return nil, err
			}
			cur, first = set, false
		} else if st.Sel != nil {
			// Structural filtering first over the narrowest index, then the
			// compound's own tests on the survivors only, into a scratch
			// buffer that is not the one cur lives in.
			base, typed := ev.baseSetTyped(st.Sel)
			dst := bufs[k][:0]
			var err error
			switch {
			case first:
				dst, err = ev.filter(st.Sel, base, dst, typed)
			case comb == syn.CombChild && ev.s.childCount(cur) <= len(base):
				dst, err = ev.filterChildren(st.Sel, cur, dst)
			default:
				dst = ev.s.relateInto(dst, cur, base, comb)
				dst, err = ev.filter(st.Sel, dst, dst[:0], typed)
			}
			bufs[k] = dst
			if err != nil {
				return nil, err
			}
			first = false
			cur = dst
			k ^= 1
		} else if st.Group != nil {
			cands, err := ev.expr(st.Group)
			if err != nil {
				return nil, err
			}
			if first {
				cur = cands
				first = false
			} else {
				cur = ev.s.relate(cur, cands, comb)
			}
			ev.record(st.Sp, len(cur))
		} else {
			return nil, errAt(st, "empty step")
		}
		if len(cur) == 0 {
			return nil, nil
		}
	}
	return cur, nil
}

// filter appends to dst the nodes of src that match c; dst may be src[:0].
// typed reports that every node of src has c's first type.
func (ev *evaluator) filter(c *syn.Compound, src, dst []int32, typed bool) ([]int32, error) {
	m := ev.matcher(c)
	skip := 0
	if typed {
		skip = 1
	}
	if t := m.soleNumeric(skip); t != nil {
		return ev.filterNumeric(t, src, dst)
	}
	if t, typ := m.soleString(ev, skip); t != nil {
		return ev.filterString(t, typ, src, dst)
	}
	for _, n := range src {
		if err := ev.check(); err != nil {
			return dst, err
		}
		if m.matchFrom(ev, n, skip) {
			dst = append(dst, n)
		}
	}
	return dst, nil
}

// filterString is filter for a compound that soleString answers: the
// loop tests the type and reads the header's column itself, and only
// nodes whose value is not cached take the general comparison. A call per
// node costs most where nothing is inlined (WebAssembly).
func (ev *evaluator) filterString(t *attrTest, typ int32, src, dst []int32) ([]int32, error) {
	s := ev.s
	col, bit := s.strs[t.strIdx], uint16(flagStrOK<<t.strIdx)
	text, eq := t.a.Value.Text, t.a.Op == syn.OpEq
	for k, n := range src {
		if k&1023 == 0 {
			if err := ev.err(); err != nil {
				return dst, err
			}
		}
		if typ != -2 && s.typ[n] != typ {
			continue
		}
		if s.flags[n]&bit != 0 {
			r := col[n]
			lo := s.obj[n].lo + uint32(r.rel)
			if (s.src[lo:lo+uint32(r.n)] == text) == eq {
				dst = append(dst, n)
			}
		} else if t.match(s, n) {
			dst = append(dst, n)
		}
	}
	return dst, nil
}

// filterNumeric is filter for a compound that is one numeric filter on a
// cached header (".cb[ttl<=1]" over the cb index): the comparison reads
// the header's column directly, and only nodes whose value is not cached
// take the general comparison.
func (ev *evaluator) filterNumeric(t *attrTest, src, dst []int32) ([]int32, error) {
	s := ev.s
	col, bit := s.nums[t.numIdx], uint16(flagNumOK<<t.numIdx)
	// Each comparison is x in [lo, hi], or not in it for !=, with the
	// same answer for every x and y (NaN too): x < y is x <= the
	// largest float below y. A test in the loop rather than a function
	// value called per node, which costs most where nothing is inlined
	// (WebAssembly).
	y := t.a.Value.Num
	lo, hi, out := math.Inf(-1), math.Inf(1), false
	switch t.a.Op {
	case syn.OpEq:
		lo, hi = y, y
	case syn.OpNe:
		lo, hi, out = y, y, true
	case syn.OpLt:
		hi = math.Nextafter(y, math.Inf(-1))
	case syn.OpLe:
		hi = y
	case syn.OpGt:
		lo = math.Nextafter(y, math.Inf(1))
	default:
		lo = y
	}
	for k, n := range src {
		if k&1023 == 0 {
			if err := ev.err(); err != nil {
				return dst, err
			}
		}
		if s.flags[n]&bit != 0 {
			if x := float64(col[n]); (x >= lo && x <= hi) != out {
				dst = append(dst, n)
			}
		} else if matchAttr(Node{s, n}, t.a) {
			dst = append(dst, n)
		}
	}
	return dst, nil
}

// filterChildren appends to dst the children of the document-ordered set
// parents that match c, in document order.
func (ev *evaluator) filterChildren(c *syn.Compound, parents, dst []int32) ([]int32, error) {
	m := ev.matcher(c)
	from := len(dst)
	sorted := true
	s := ev.s
	if k, ok := m.childPos(); ok {
		// Only the child at position k (0: the last) can match: test it
		// alone instead of every child.
		for _, p := range parents {
			if err := ev.check(); err != nil {
				return dst, err
			}
			n, ok := s.nthChild(p, k)
			if ok && m.match(ev, n) {
				if len(dst) > from && dst[len(dst)-1] > n {
					sorted = false
				}
				dst = append(dst, n)
			}
		}
		if !sorted {
			slices.Sort(dst[from:])
		}
		return dst, nil
	}
	if t, typ := m.soleString(ev, 0); t != nil {
		return ev.filterChildrenString(t, typ, parents, dst)
	}
	for _, p := range parents {
		n := p + 1
		for k := s.nkids[p]; k > 0; k-- {
			if err := ev.check(); err != nil {
				return dst, err
			}
			if m.match(ev, n) {
				if len(dst) > from && dst[len(dst)-1] > n {
					sorted = false
				}
				dst = append(dst, n)
			}
			n = s.end[n] + 1
		}
	}
	if !sorted {
		slices.Sort(dst[from:])
	}
	return dst, nil
}

// filterChildrenString is filterChildren for a compound that soleString
// answers, tested as filterString tests it.
func (ev *evaluator) filterChildrenString(t *attrTest, typ int32, parents, dst []int32) ([]int32, error) {
	s := ev.s
	col, bit := s.strs[t.strIdx], uint16(flagStrOK<<t.strIdx)
	text, eq := t.a.Value.Text, t.a.Op == syn.OpEq
	from := len(dst)
	sorted := true
	for _, p := range parents {
		n := p + 1
		for k := s.nkids[p]; k > 0; k-- {
			if ev.steps++; ev.steps&1023 == 0 {
				if err := ev.err(); err != nil {
					return dst, err
				}
			}
			match := false
			switch {
			case typ != -2 && s.typ[n] != typ:
			case s.flags[n]&bit != 0:
				r := col[n]
				lo := s.obj[n].lo + uint32(r.rel)
				match = (s.src[lo:lo+uint32(r.n)] == text) == eq
			default:
				match = t.match(s, n)
			}
			if match {
				if len(dst) > from && dst[len(dst)-1] > n {
					sorted = false
				}
				dst = append(dst, n)
			}
			n = s.end[n] + 1
		}
	}
	if !sorted {
		slices.Sort(dst[from:])
	}
	return dst, nil
}

// nthChild returns node p's k-th child (1-based; 0 for the last one); ok
// is false when p has fewer than k children.
func (s *Snapshot) nthChild(p int32, k int32) (int32, bool) {
	nk := s.nkids[p]
	if k == 0 {
		k = nk
	}
	if k < 1 || k > nk {
		return 0, false
	}
	if k == nk && k > 8 {
		return s.lastChild(p), true
	}
	c := p + 1
	for ; k > 1; k-- {
		c = s.end[c] + 1
	}
	return c, true
}

// childCount returns the number of children of the nodes of set.
func (s *Snapshot) childCount(set []int32) int {
	n := 0
	for _, p := range set {
		n += int(s.nkids[p])
	}
	return n
}

// relate keeps the candidates (document order) that are children
// (CombChild) or descendants of some node of prev (document order). It runs
// in O((|prev| + |cands|) log |prev|).
func (s *Snapshot) relate(prev, cands []int32, comb syn.Combinator) []int32 {
	return s.relateInto(nil, prev, cands, comb)
}

// relateInto is relate appending to out.
func (s *Snapshot) relateInto(out, prev, cands []int32, comb syn.Combinator) []int32 {
	if len(prev) == 0 || len(cands) == 0 {
		return out
	}
	if comb == syn.CombChild {
		for _, c := range cands {
			if p := s.parent[c]; p >= 0 && contains(prev, p) {
				out = append(out, c)
			}
		}
		return out
	}
	// Merge prev into disjoint subtree intervals (nested ones are absorbed).
	type iv struct{ lo, hi int32 }
	ivs := make([]iv, 0, len(prev))
	for _, p := range prev {
		if len(ivs) > 0 && p <= ivs[len(ivs)-1].hi {
			continue
		}
		ivs = append(ivs, iv{p, s.end[p]})
	}
	for _, v := range ivs {
		i, _ := slices.BinarySearch(cands, v.lo+1)
		for ; i < len(cands) && cands[i] <= v.hi; i++ {
			out = append(out, cands[i])
		}
	}
	return out
}

// contains reports whether the document-ordered set holds n.
func contains(set []int32, n int32) bool {
	_, ok := slices.BinarySearch(set, n)
	return ok
}

// compoundSet returns the nodes matching a compound selector, in document
// order, starting from the narrowest index.
func (ev *evaluator) compoundSet(c *syn.Compound) ([]int32, error) {
	base := ev.baseSet(c)
	out := make([]int32, 0, min(len(base), 64))
	for _, n := range base {
		if err := ev.check(); err != nil {
			return nil, err
		}
		if ev.matchCompound(c, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// baseSet is the narrowest index list holding every node that can match c.
func (ev *evaluator) baseSet(c *syn.Compound) []int32 {
	base, _ := ev.baseSetTyped(c)
	return base
}

// baseSetTyped is baseSet that also reports whether every node of the set
// has c's first type (the set is that type's index).
func (ev *evaluator) baseSetTyped(c *syn.Compound) (base []int32, typed bool) {
	switch {
	case ev.p.q.Dialect == syn.V1 && len(c.Hashes) > 0:
		// When ctx is done while the index is built, nothing is found and
		// the evaluation reports ctx's error before it returns.
		ids, err := ev.s.ids(ev.ctx)
		if err != nil {
			ev.stopped = err
		}
		n, ok := ids[c.Hashes[0].Value]
		if !ok {
			return nil, false
		}
		base = []int32{n}
	case len(c.Types) > 0:
		base, typed = ev.s.byType[ev.typeName(c.Types[0])], true
	case c.Root != nil:
		base = ev.rootNodes(c.Root.Name)
	case c.Depth != nil:
		base = ev.depthNodes(c.Depth.From, c.Depth.To)
	default:
		base = ev.s.all()
	}
	return base, typed
}

// typeName is the nodeType a type anchor requires: the full name in v1
// (".cb:summary" is nodeType "cb:summary"), the part after ":" in v2
// (".block:summary" is nodeType "summary").
func (ev *evaluator) typeName(t *syn.TypeSel) string {
	if ev.p.q.Dialect != syn.V1 && t.Sub != "" {
		return t.Sub
	}
	return t.Name
}

func (ev *evaluator) matchCompound(c *syn.Compound, n int32) bool {
	return ev.matcher(c).match(ev, n)
}

// matchRest applies the tests of m's compound other than types and
// attributes.
func (ev *evaluator) matchRest(m *matcher, n int32) bool {
	s, c := ev.s, m.c
	if c.Root != nil && !s.isRoot(n, c.Root.Name) {
		return false
	}
	if c.Depth != nil && !s.inDepth(n, c.Depth.From, c.Depth.To) {
		return false
	}
	for _, h := range c.Hashes {
		if ev.p.q.Dialect == syn.V1 {
			if s.nodeID(n) != h.Value {
				return false
			}
		} else if k, ok := s.keyAttr(n); !ok || k != h.Value {
			return false
		}
	}
	for _, t := range c.Tags {
		if !hasTag(Node{s, n}, t.Name) {
			return false
		}
	}
	for i, ps := range c.Pseudos {
		if !s.matchPseudo(n, ps, m.pseudos[i]) {
			return false
		}
	}
	return true
}

func (s *Snapshot) inDepth(n int32, from, to int) bool {
	switch {
	case s.kind(n)&kindSys != 0:
		return from <= -1 && -1 <= to
	case s.kind(n)&kindAh != 0:
		return from <= 0 && 0 <= to
	}
	if t := int(s.turn(n)); t > 0 {
		return from <= t && t <= to
	}
	return false
}

func hasTag(n Node, tag string) bool {
	switch v := n.attr("tags").(type) {
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok && s == tag {
				return true
			}
		}
	case string:
		return v == tag
	}
	if s, ok := n.attr("tag").(string); ok && s == tag {
		return true
	}
	return false
}

// Pseudo-class kinds, resolved once per matcher.
const (
	pseudoOther = iota
	pseudoPre
	pseudoCore
	pseudoPost
	pseudoFirst
	pseudoLast
	pseudoNth
	pseudoDepth
)

// pseudoKind returns the kind of a pseudo-class name.
func pseudoKind(name string) uint8 {
	switch name {
	case "pre":
		return pseudoPre
	case "core":
		return pseudoCore
	case "post":
		return pseudoPost
	case "first":
		return pseudoFirst
	case "last":
		return pseudoLast
	case "nth":
		return pseudoNth
	case "depth":
		return pseudoDepth
	}
	return pseudoOther
}

// matchPseudo tests node n against the pseudo-class p of kind k.
func (s *Snapshot) matchPseudo(n int32, p *syn.Pseudo, k uint8) bool {
	parent := s.parent[n]
	switch k {
	case pseudoPre, pseudoCore, pseudoPost:
		v, ok := numOf(Node{s, n}.attr("offset"))
		if !ok {
			return false
		}
		return (k == pseudoPre && v < 0) || (k == pseudoCore && v == 0) || (k == pseudoPost && v > 0)
	case pseudoFirst:
		return parent >= 0 && s.pos[n] == 1
	case pseudoLast:
		return parent >= 0 && s.pos[n] == s.nkids[parent]
	case pseudoNth:
		return parent >= 0 && float64(s.pos[n]) == p.Args[0].Value.Num
	case pseudoDepth:
		t := s.turn(n)
		if t == 0 {
			return false
		}
		d := float64(t)
		for _, a := range p.Args {
			hi := a.Value.Num
			if a.Hi != nil {
				hi = a.Hi.Num
			}
			if d >= a.Value.Num && d <= hi {
				return true
			}
		}
	}
	return false
}
