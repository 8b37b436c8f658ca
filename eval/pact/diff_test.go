package pact

// Differential tests: v1 selectors against cascadia on an HTML rendering of
// the same tree (the subset where PACT v1 and CSS mean the same thing), and
// v2 queries against refEval below, a deliberately simple tree walker
// written from the specification and docs/spec-notes.md. Neither shares
// code with the evaluator. Trees and queries are generated from a fixed
// seed; -pactdiff=10m (scripts/fuzz) runs them for longer with fresh seeds.

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

var pactDiff = flag.Duration("pactdiff", 0, "run the PACT differential tests for this long with time-based seeds (0: a short fixed-seed run)")

// gnode is a generated tree node.
type gnode struct {
	id, typ string
	attrs   []gattr // in JSON key order
	kids    []*gnode
	parent  *gnode
}

type gattr struct {
	k string
	v any // string or int
}

func (n *gnode) get(k string) (any, bool) {
	for _, a := range n.attrs {
		if a.k == k {
			return a.v, true
		}
	}
	return nil, false
}

var (
	genTypes = []string{"seg", "cont", "block", "note"}
	genRoles = []string{"user", "assistant", "tool"}
	genKeys  = []string{"a", "b", "c"}
)

// genTree builds root → ^sys, ^seq (turns), ^ah with random subtrees.
func genTree(r *rand.Rand) (*gnode, []*gnode) {
	var all []*gnode
	next := 0
	mk := func(typ string, parent *gnode) *gnode {
		n := &gnode{id: fmt.Sprintf("n%d", next), typ: typ, parent: parent}
		next++
		if parent != nil {
			parent.kids = append(parent.kids, n)
		}
		all = append(all, n)
		return n
	}
	addAttrs := func(n *gnode) {
		if r.Intn(3) > 0 {
			n.attrs = append(n.attrs, gattr{"role", genRoles[r.Intn(3)]})
		}
		if r.Intn(3) == 0 {
			n.attrs = append(n.attrs, gattr{"kind", "text"})
		}
		if r.Intn(2) == 0 {
			n.attrs = append(n.attrs, gattr{"key", genKeys[r.Intn(3)]})
		}
		if r.Intn(2) == 0 {
			n.attrs = append(n.attrs, gattr{"ttl", r.Intn(4)})
		}
		if r.Intn(3) > 0 {
			n.attrs = append(n.attrs, gattr{"offset", r.Intn(3) - 1})
		}
		if r.Intn(2) == 0 {
			n.attrs = append(n.attrs, gattr{"created_at_ns", r.Intn(4)})
		}
		if r.Intn(3) == 0 {
			n.attrs = append(n.attrs, gattr{"author", []string{"xa", "yb"}[r.Intn(2)]})
		}
	}
	var grow func(p *gnode, depth int)
	grow = func(p *gnode, depth int) {
		if depth == 0 {
			return
		}
		for i := r.Intn(4); i > 0; i-- {
			c := mk(genTypes[r.Intn(len(genTypes))], p)
			addAttrs(c)
			grow(c, depth-1)
		}
	}
	root := mk("", nil)
	root.id = "root"
	sys := mk("^sys", root)
	grow(sys, 2)
	seq := mk("^seq", root)
	for i := r.Intn(5); i > 0; i-- {
		t := mk(genTypes[r.Intn(2)], seq)
		addAttrs(t)
		grow(t, 3)
	}
	ah := mk("^ah", root)
	grow(ah, 3)
	return root, all
}

func (n *gnode) writeJSON(b *strings.Builder) {
	fmt.Fprintf(b, `{"id":%q`, n.id)
	if n.typ != "" {
		fmt.Fprintf(b, `,"nodeType":%q`, n.typ)
	}
	for _, a := range n.attrs {
		switch v := a.v.(type) {
		case string:
			fmt.Fprintf(b, `,%q:%q`, a.k, v)
		case int:
			fmt.Fprintf(b, `,%q:%d`, a.k, v)
		}
	}
	if len(n.kids) > 0 {
		b.WriteString(`,"children":[`)
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.writeJSON(b)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

func treeData(t testing.TB, root *gnode) *Data {
	var b strings.Builder
	b.WriteString(`{"root":`)
	root.writeJSON(&b)
	b.WriteString(`}`)
	d, err := LoadString(b.String())
	if err != nil {
		t.Fatalf("load: %v\n%s", err, b.String())
	}
	return d
}

// htmlOf renders the tree as elements: class = nodeType, id = id, and the
// string attributes as attributes.
func htmlOf(root *gnode) *html.Node {
	doc := &html.Node{Type: html.DocumentNode}
	var build func(n *gnode) *html.Node
	build = func(n *gnode) *html.Node {
		e := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		e.Attr = append(e.Attr, html.Attribute{Key: "id", Val: n.id})
		if n.typ != "" {
			e.Attr = append(e.Attr, html.Attribute{Key: "class", Val: n.typ})
		}
		for _, a := range n.attrs {
			e.Attr = append(e.Attr, html.Attribute{Key: a.k, Val: fmt.Sprint(a.v)})
		}
		for _, k := range n.kids {
			e.AppendChild(build(k))
		}
		return e
	}
	doc.AppendChild(build(root))
	return doc
}

// genV1 returns a v1 selector and the CSS selector that means the same.
// Pseudo-classes appear only with a type, so that the tree's root (which
// has a parent in HTML, the document, but none in PACT) never matches one.
func genV1(r *rand.Rand) (pact, css string) {
	var pb, cb strings.Builder
	groups := 1 + r.Intn(2)
	for g := 0; g < groups; g++ {
		if g > 0 {
			pb.WriteString(", ")
			cb.WriteString(", ")
		}
		steps := 1 + r.Intn(3)
		for s := 0; s < steps; s++ {
			if s > 0 {
				c := []string{" ", " > "}[r.Intn(2)]
				pb.WriteString(c)
				cb.WriteString(c)
			}
			typed := false
			switch r.Intn(4) {
			case 0, 1:
				ty := genTypes[r.Intn(len(genTypes))]
				pb.WriteString("." + ty)
				cb.WriteString("." + ty)
				typed = true
			case 2:
				pb.WriteString("*")
				cb.WriteString("*")
			case 3:
				id := fmt.Sprintf("n%d", r.Intn(30))
				pb.WriteString("#" + id)
				cb.WriteString("#" + id)
			}
			for f := r.Intn(3); f > 0; f-- {
				switch r.Intn(8) {
				case 0:
					v := genRoles[r.Intn(3)]
					fmt.Fprintf(&pb, "[role='%s']", v)
					fmt.Fprintf(&cb, "[role='%s']", v)
				case 1:
					v := genRoles[r.Intn(3)]
					fmt.Fprintf(&pb, "[role!='%s']", v)
					fmt.Fprintf(&cb, ":not([role='%s'])", v)
				case 2:
					pb.WriteString("[kind]")
					cb.WriteString("[kind]")
				case 3:
					v := genKeys[r.Intn(3)]
					fmt.Fprintf(&pb, "[key=\"%s\"]", v)
					fmt.Fprintf(&cb, "[key=\"%s\"]", v)
				case 4:
					id := fmt.Sprintf("n%d", r.Intn(30))
					fmt.Fprintf(&pb, "[id='%s']", id)
					fmt.Fprintf(&cb, "[id='%s']", id)
				case 5:
					id := fmt.Sprintf("n%d", r.Intn(30))
					fmt.Fprintf(&pb, "[id!='%s']", id)
					fmt.Fprintf(&cb, ":not([id='%s'])", id)
				default:
					if !typed {
						continue
					}
					switch r.Intn(3) {
					case 0:
						pb.WriteString(":first")
						cb.WriteString(":first-child")
					case 1:
						pb.WriteString(":last")
						cb.WriteString(":last-child")
					case 2:
						k := 1 + r.Intn(3)
						fmt.Fprintf(&pb, ":nth(%d)", k)
						fmt.Fprintf(&cb, ":nth-child(%d)", k)
					}
				}
			}
		}
	}
	return pb.String(), cb.String()
}

// diffRounds runs round(seed) for a fixed number of seeds, or with
// -pactdiff for that long, and reports how many ran.
func diffRounds(t *testing.T, short int, round func(seed int64) error) {
	t.Helper()
	n := 0
	if *pactDiff == 0 {
		for seed := int64(1); seed <= int64(short); seed++ {
			if err := round(seed); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			n++
		}
	} else {
		deadline := time.Now().Add(*pactDiff)
		base := time.Now().UnixNano()
		for seed := base; time.Now().Before(deadline); seed++ {
			if err := round(seed); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			n++
		}
	}
	t.Logf("%d rounds agreed", n)
}

// TestDiffV1Cascadia compares v1 selectors with cascadia on the HTML
// rendering of generated trees.
func TestDiffV1Cascadia(t *testing.T) {
	diffRounds(t, 150, func(seed int64) error {
		r := rand.New(rand.NewSource(seed))
		root, _ := genTree(r)
		d := treeData(t, root)
		doc := htmlOf(root)
		for i := 0; i < 20; i++ {
			p, css := genV1(r)
			res, err := Select(context.Background(), d, p, syn.V1, Options{})
			if err != nil {
				return fmt.Errorf("%s: %v", p, err)
			}
			sel, err := cascadia.Compile(css)
			if err != nil {
				return fmt.Errorf("cascadia %s: %v", css, err)
			}
			var want []string
			for _, n := range sel.MatchAll(doc) {
				for _, a := range n.Attr {
					if a.Key == "id" {
						want = append(want, a.Val)
					}
				}
			}
			if !eq(res.IDs, want) {
				return fmt.Errorf("%s (css %s):\n ctxql    %v\n cascadia %v", p, css, res.IDs, want)
			}
		}
		return nil
	})
}

// ---- v2: a simple reference evaluator ----

// rq is a generated v2 query: its text and its meaning for refEval.
type rq struct {
	body  rbody
	props []rprop // trailing {...}
	behav []rprop // trailing [...]
	skip  int
	limit int // -1: none
}

type rbody struct {
	kind   string // chain, coord, coords, search, fallback
	scope  *[2]int
	steps  []rstep
	coords [][]int // depth, offsets...
	props  []rprop
	left   *rbody
	right  *rbody
}

type rstep struct {
	child bool
	typ   string // "" for none, "*" universal
	key   string
}

type rprop struct {
	k, op string
	v     any   // string or int
	vs    []any // in
}

func (p rprop) text() string {
	lit := func(v any) string {
		if s, ok := v.(string); ok {
			return strconv.Quote(s)
		}
		return fmt.Sprint(v)
	}
	if p.op == "in" {
		var parts []string
		for _, v := range p.vs {
			parts = append(parts, lit(v))
		}
		return p.k + " in [" + strings.Join(parts, ", ") + "]"
	}
	return p.k + p.op + lit(p.v)
}

func (b *rbody) text() string {
	switch b.kind {
	case "chain":
		var s strings.Builder
		if b.scope != nil {
			if b.scope[0] == b.scope[1] {
				fmt.Fprintf(&s, "d%d ", b.scope[0])
			} else {
				fmt.Fprintf(&s, "d%d..d%d ", b.scope[0], b.scope[1])
			}
		}
		for i, st := range b.steps {
			if i > 0 {
				if st.child {
					s.WriteString(" > ")
				} else {
					s.WriteString(" ")
				}
			}
			switch st.typ {
			case "":
			case "*":
				s.WriteString("*")
			default:
				s.WriteString("." + st.typ)
			}
			if st.key != "" {
				s.WriteString("#" + st.key)
			}
		}
		return s.String()
	case "coord":
		return coordText(b.coords[0])
	case "coords":
		var parts []string
		for _, c := range b.coords {
			parts = append(parts, coordText(c))
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case "search":
		return propsText(b.props, "{", "}")
	case "fallback":
		return b.left.text() + " ?? " + b.right.text()
	}
	return ""
}

func coordText(c []int) string {
	parts := []string{fmt.Sprintf("d%d", c[0])}
	for _, o := range c[1:] {
		parts = append(parts, strconv.Itoa(o))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func propsText(ps []rprop, open, close string) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.text())
	}
	return open + strings.Join(parts, ", ") + close
}

func (q *rq) text() string {
	s := q.body.text()
	if len(q.props) > 0 {
		s += " " + propsText(q.props, "{", "}")
	}
	if len(q.behav) > 0 {
		s += " " + propsText(q.behav, "[", "]")
	}
	if q.skip > 0 {
		s += fmt.Sprintf(" @skip=%d", q.skip)
	}
	if q.limit >= 0 {
		s += fmt.Sprintf(" @limit=%d", q.limit)
	}
	return s
}

func genProp(r *rand.Rand) rprop {
	switch r.Intn(8) {
	case 0:
		return rprop{k: "role", op: "=", v: genRoles[r.Intn(3)]}
	case 1:
		return rprop{k: "role", op: "!=", v: genRoles[r.Intn(3)]}
	case 2:
		return rprop{k: "key", op: "in", vs: []any{genKeys[r.Intn(3)], genKeys[r.Intn(3)]}}
	case 3:
		return rprop{k: "key", op: "=", v: genKeys[r.Intn(3)]}
	case 4:
		return rprop{k: "author", op: "~", v: []string{"x", "b", "a"}[r.Intn(3)]}
	case 5:
		return rprop{k: "offset", op: "=", v: r.Intn(3) - 1}
	case 6:
		return rprop{k: "key", op: "!=", v: genKeys[r.Intn(3)]}
	}
	return rprop{k: "key", op: "in", vs: []any{genKeys[r.Intn(3)]}}
}

func genBehav(r *rand.Rand) rprop {
	ops := []string{">=", "<", "=", "!=", ">", "<="}
	return rprop{k: "ttl", op: ops[r.Intn(len(ops))], v: r.Intn(4)}
}

func genBody(r *rand.Rand, nest bool) rbody {
	switch k := r.Intn(10); {
	case k < 5:
		b := rbody{kind: "chain"}
		if r.Intn(3) == 0 {
			a := r.Intn(5) - 1
			z := a
			if r.Intn(2) == 0 {
				z = a + r.Intn(3)
			}
			b.scope = &[2]int{a, z}
		}
		for i := 1 + r.Intn(3); i > 0; i-- {
			st := rstep{child: len(b.steps) > 0 && r.Intn(2) == 0}
			switch r.Intn(5) {
			case 0, 1:
				st.typ = genTypes[r.Intn(len(genTypes))]
			case 2:
				st.key = genKeys[r.Intn(3)]
			case 3:
				st.typ, st.key = genTypes[r.Intn(len(genTypes))], genKeys[r.Intn(3)]
			case 4:
				st.typ = "*"
			}
			b.steps = append(b.steps, st)
		}
		return b
	case k < 7:
		c := []int{r.Intn(5) - 1}
		for i := r.Intn(3); i > 0; i-- {
			c = append(c, r.Intn(3)-1)
		}
		if r.Intn(3) == 0 {
			c2 := []int{r.Intn(5) - 1, r.Intn(3) - 1}
			return rbody{kind: "coords", coords: [][]int{c, c2}}
		}
		return rbody{kind: "coord", coords: [][]int{c}}
	case k < 8:
		b := rbody{kind: "search"}
		for i := 1 + r.Intn(2); i > 0; i-- {
			b.props = append(b.props, genProp(r))
		}
		return b
	}
	if !nest {
		return genBody(r, false)
	}
	l, rt := genBody(r, false), genBody(r, false)
	return rbody{kind: "fallback", left: &l, right: &rt}
}

func genV2(r *rand.Rand) *rq {
	q := &rq{body: genBody(r, true), limit: -1}
	if r.Intn(5) < 2 {
		for i := 1 + r.Intn(2); i > 0; i-- {
			q.props = append(q.props, genProp(r))
		}
	}
	if r.Intn(10) < 3 {
		q.behav = append(q.behav, genBehav(r))
	}
	if r.Intn(10) == 0 {
		q.skip = 1 + r.Intn(2)
	}
	if r.Intn(5) == 0 {
		q.limit = r.Intn(4)
	}
	return q
}

// refEval evaluates q over the generated tree by walking it, node by node,
// with the rules as the specification and docs/spec-notes.md state them.
type refEval struct {
	all   []*gnode // document order
	index map[*gnode]int
}

func newRef(all []*gnode) *refEval {
	e := &refEval{all: all, index: map[*gnode]int{}}
	for i, n := range all {
		e.index[n] = i
	}
	return e
}

// turnDepth is the depth of a turn (a direct child of ^seq, newest = 1), or 0.
func turnDepth(n *gnode) int {
	if n.parent == nil || n.parent.typ != "^seq" {
		return 0
	}
	k := slices.Index(n.parent.kids, n)
	return len(n.parent.kids) - k
}

// atDepth lists the nodes at structural depths a..z: d-1 ^sys, d0 ^ah, dN
// the N-th newest turn.
func (e *refEval) atDepth(a, z int) []*gnode {
	var out []*gnode
	for _, n := range e.all {
		d, ok := 0, false
		switch {
		case n.typ == "^sys":
			d, ok = -1, true
		case n.typ == "^ah":
			d, ok = 0, true
		case turnDepth(n) > 0:
			d, ok = turnDepth(n), true
		}
		if ok && d >= a && d <= z {
			out = append(out, n)
		}
	}
	return out
}

func isAncestor(a, n *gnode) bool {
	for p := n.parent; p != nil; p = p.parent {
		if p == a {
			return true
		}
	}
	return false
}

func (e *refEval) stepMatches(st rstep, n *gnode) bool {
	if st.typ != "" && st.typ != "*" && n.typ != st.typ {
		return false
	}
	if st.key != "" {
		v, ok := n.get("key")
		if !ok || v != st.key {
			return false
		}
	}
	return true
}

// propMatches applies one filter: a missing attribute matches only !=;
// numbers compare as numbers, strings as strings, ~ is a substring test.
func propMatches(p rprop, n *gnode) bool {
	v, ok := n.get(p.k)
	if !ok {
		return p.op == "!="
	}
	eqv := func(lit any) bool { return fmt.Sprint(v) == fmt.Sprint(lit) }
	switch p.op {
	case "=":
		return eqv(p.v)
	case "!=":
		return !eqv(p.v)
	case "in":
		for _, l := range p.vs {
			if eqv(l) {
				return true
			}
		}
		return false
	case "~":
		return strings.Contains(fmt.Sprint(v), fmt.Sprint(p.v))
	}
	x, y := v.(int), p.v.(int)
	switch p.op {
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	case ">=":
		return x >= y
	}
	return false
}

func (e *refEval) body(b *rbody) []*gnode {
	var out []*gnode
	switch b.kind {
	case "chain":
		var cur []*gnode
		started := false
		if b.scope != nil {
			cur, started = e.atDepth(b.scope[0], b.scope[1]), true
		}
		for _, st := range b.steps {
			var next []*gnode
			for _, n := range e.all {
				if !e.stepMatches(st, n) {
					continue
				}
				keep := !started
				for _, c := range cur {
					if (st.child && n.parent == c) || (!st.child && isAncestor(c, n)) {
						keep = true
						break
					}
				}
				if keep {
					next = append(next, n)
				}
			}
			cur, started = next, true
		}
		return cur
	case "coord", "coords":
		seen := map[*gnode]bool{}
		for _, c := range b.coords {
			cur := e.atDepth(c[0], c[0])
			for _, o := range c[1:] {
				var next []*gnode
				for _, p := range cur {
					for _, k := range p.kids {
						if v, ok := k.get("offset"); ok && v == o {
							next = append(next, k)
						}
					}
				}
				cur = next
			}
			for _, n := range cur {
				seen[n] = true
			}
		}
		for _, n := range e.all {
			if seen[n] {
				out = append(out, n)
			}
		}
		return out
	case "search":
		for _, n := range e.all {
			if allProps(b.props, n) {
				out = append(out, n)
			}
		}
		return out
	case "fallback":
		if l := e.body(b.left); len(l) > 0 {
			return l
		}
		return e.body(b.right)
	}
	panic("unknown body " + b.kind)
}

func allProps(ps []rprop, n *gnode) bool {
	for _, p := range ps {
		if !propMatches(p, n) {
			return false
		}
	}
	return true
}

// oneKey reports whether filters pin the key to one value.
func oneKey(ps []rprop) bool {
	for _, p := range ps {
		if p.k == "key" && (p.op == "=" || p.op == "in" && len(p.vs) == 1) {
			return true
		}
	}
	return false
}

// sameKeyBody reports whether the body's result is pinned to one key.
func sameKeyBody(b *rbody) bool {
	switch b.kind {
	case "chain":
		return len(b.steps) > 0 && b.steps[len(b.steps)-1].key != ""
	case "search":
		return oneKey(b.props)
	case "fallback":
		return sameKeyBody(b.left) && sameKeyBody(b.right)
	}
	return false
}

func regionOf(n *gnode) int {
	for m := n; m != nil; m = m.parent {
		if d := turnDepth(m); d > 0 {
			return d
		}
		if m.typ == "^sys" {
			return -1
		}
		if m.typ == "^ah" {
			return 0
		}
	}
	return -2
}

func (e *refEval) eval(q *rq) []string {
	set := e.body(&q.body)
	var out []*gnode
	for _, n := range set {
		if allProps(q.props, n) && allProps(q.behav, n) {
			out = append(out, n)
		}
	}
	if sameKeyBody(&q.body) || oneKey(q.props) {
		// v2 §3.5.2 for same-key sets: depth DESC, created_at_ns DESC, id ASC.
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i], out[j]
			if ra, rb := regionOf(a), regionOf(b); ra != rb {
				return ra > rb
			}
			ca, oka := a.get("created_at_ns")
			cb, okb := b.get("created_at_ns")
			switch {
			case oka && !okb:
				return true
			case !oka && okb:
				return false
			case oka && okb && ca.(int) != cb.(int):
				return ca.(int) > cb.(int)
			}
			return a.id < b.id
		})
	}
	if q.skip > 0 {
		out = out[min(q.skip, len(out)):]
	}
	if q.limit >= 0 && len(out) > q.limit {
		out = out[:q.limit]
	}
	ids := []string{}
	for _, n := range out {
		ids = append(ids, n.id)
	}
	return ids
}

// TestDiffV2Reference compares v2 queries (filters, scopes, coordinates,
// fallbacks, key ordering) with the reference tree walker.
func TestDiffV2Reference(t *testing.T) {
	diffRounds(t, 150, func(seed int64) error {
		r := rand.New(rand.NewSource(seed))
		root, all := genTree(r)
		d := treeData(t, root)
		ref := newRef(all)
		for i := 0; i < 20; i++ {
			q := genV2(r)
			src := q.text()
			res, err := Select(context.Background(), d, src, syn.V2, Options{})
			if err != nil {
				return fmt.Errorf("%s: %v", src, err)
			}
			got := res.IDs
			if got == nil {
				got = []string{}
			}
			if want := ref.eval(q); !eq(got, want) {
				return fmt.Errorf("%s:\n ctxql     %v\n reference %v", src, got, want)
			}
		}
		return nil
	})
}
