package pactgrammar

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// handShape renders the hand parser's tree in the reference grammar's
// shape format, or returns ok=false when it reports a parse error.
func handShape(src string, d pact.Dialect) (string, bool) {
	q, diags := pact.ParseQuery(src, d)
	if syntax.HasErrors(diags) || q.Bad {
		return "", false
	}
	var b strings.Builder
	if q.Time != nil {
		fmt.Fprintf(&b, "time %s\n", src[q.Time.Sp.Start:q.Time.Sp.End])
	}
	if d == pact.V1 {
		items := []pact.Expr{q.Expr}
		if u, ok := q.Expr.(*pact.Union); ok {
			items = u.Items
		}
		for i, e := range items {
			if i > 0 {
				b.WriteString(",\n")
			}
			for _, st := range e.(*pact.Chain).Steps {
				b.WriteString("step" + combName(st.Comb))
				for _, p := range parts(src, st.Sel) {
					fmt.Fprintf(&b, " %s(%s)", p.kind, p.text)
				}
				b.WriteString("\n")
			}
		}
		return b.String(), true
	}
	h := &hand{src: src, b: &b}
	h.expr(q.Expr, "")
	type block struct {
		start int
		write func()
	}
	var blocks []block
	if q.Props != nil {
		blocks = append(blocks, block{q.Props.Sp.Start, func() { h.items("props", q.Props.Items) }})
	}
	if q.Behavior != nil {
		blocks = append(blocks, block{q.Behavior.Sp.Start, func() { h.items("behavior", q.Behavior.Items) }})
	}
	for _, c := range q.Controls {
		blocks = append(blocks, block{c.Sp.Start, func() { fmt.Fprintf(&b, "control %s\n", src[c.Sp.Start:c.Sp.End]) }})
	}
	slices.SortFunc(blocks, func(x, y block) int { return x.start - y.start })
	for _, bl := range blocks {
		bl.write()
	}
	return b.String(), true
}

func combName(c pact.Combinator) string {
	switch c {
	case pact.CombChild:
		return " child"
	case pact.CombDescendant:
		return " desc"
	}
	return ""
}

type shapePart struct {
	start      int
	kind, text string
}

// parts lists a compound's parts in source order.
func parts(src string, c *pact.Compound) []shapePart {
	var ps []shapePart
	add := func(sp syntax.Span, kind string) {
		ps = append(ps, shapePart{sp.Start, kind, src[sp.Start:sp.End]})
	}
	if c.Universal {
		add(c.UnivSpan, "star")
	}
	if c.Root != nil {
		add(c.Root.Sp, "root")
	}
	if c.Depth != nil {
		add(c.Depth.Sp, "depth")
	}
	for _, t := range c.Types {
		add(t.Sp, "type")
	}
	for _, x := range c.Hashes {
		add(x.Sp, "hash")
	}
	for _, x := range c.Tags {
		add(x.Sp, "tag")
	}
	for _, a := range c.Attrs {
		if a.Kind == pact.BlockGroup {
			add(a.Sp, "gattr")
		} else {
			add(a.Sp, "attr")
		}
	}
	for _, p := range c.Pseudos {
		add(p.Sp, "pseudo")
	}
	slices.SortStableFunc(ps, func(a, b shapePart) int { return a.start - b.start })
	return ps
}

type hand struct {
	src string
	b   *strings.Builder
}

func (h *hand) text(sp syntax.Span) string { return h.src[sp.Start:sp.End] }

func (h *hand) expr(e pact.Expr, ind string) {
	var items []pact.Expr
	for {
		f, ok := e.(*pact.Fallback)
		if !ok {
			break
		}
		items = append([]pact.Expr{f.Right}, items...)
		e = f.Left
	}
	items = append([]pact.Expr{e}, items...)
	if len(items) > 1 {
		fmt.Fprintf(h.b, "%sfallback\n", ind)
		ind += "  "
	}
	for _, it := range items {
		switch x := it.(type) {
		case *pact.PropSearch:
			fmt.Fprintf(h.b, "%ssearch\n", ind)
			for _, a := range x.Block.Items {
				fmt.Fprintf(h.b, "%s  item %s\n", ind, h.text(a.Sp))
			}
		case *pact.Chain:
			h.chain(x, ind)
		default:
			fmt.Fprintf(h.b, "%s%T\n", ind, x)
		}
	}
}

func (h *hand) chain(c *pact.Chain, ind string) {
	fmt.Fprintf(h.b, "%schain\n", ind)
	ind += "  "
	if c.Scope != nil {
		fmt.Fprintf(h.b, "%sscope %s\n", ind, h.text(c.Scope.Sp))
	}
	for _, st := range c.Steps {
		comb := combName(st.Comb)
		switch g := st.Group.(type) {
		case *pact.CoordSet:
			fmt.Fprintf(h.b, "%sstep%s coordset\n", ind, comb)
			for _, p := range g.Coords {
				h.position(p, ind+"  ")
			}
		case *pact.Paren:
			fmt.Fprintf(h.b, "%sstep%s paren\n", ind, comb)
			h.expr(g.Inner, ind+"  ")
		case *pact.Position:
			fmt.Fprintf(h.b, "%sstep%s\n", ind, comb)
			h.position(g, ind+"  ")
		case nil:
			fmt.Fprintf(h.b, "%sstep%s\n", ind, comb)
			h.compound(st.Sel, ind+"  ")
		}
	}
}

var hopKinds = map[pact.HopKind]string{pact.HopDepth: "depth", pact.HopOffset: "offset", pact.HopStep: "step", pact.HopInsert: "insert"}

func (h *hand) position(p *pact.Position, ind string) {
	opt := ""
	if p.Optional {
		opt = " optional"
	}
	fmt.Fprintf(h.b, "%sposition%s\n", ind, opt)
	for _, hop := range p.Hops {
		fmt.Fprintf(h.b, "%s  %s %s\n", ind, hopKinds[hop.Kind], h.text(hop.Sp))
		if hop.Kind == pact.HopStep {
			h.compound(hop.Step, ind+"    ")
		}
	}
}

func (h *hand) compound(c *pact.Compound, ind string) {
	for _, p := range parts(h.src, c) {
		fmt.Fprintf(h.b, "%s%s %s\n", ind, p.kind, p.text)
	}
}

func (h *hand) items(kind string, items []*pact.Attr) {
	fmt.Fprintf(h.b, "%s\n", kind)
	for _, a := range items {
		fmt.Fprintf(h.b, "  item %s\n", h.text(a.Sp))
	}
}

// compare parses src with both parsers and describes any disagreement.
func compare(ref *Reference, src string, d pact.Dialect) error {
	want, ok := handShape(src, d)
	var got string
	var err error
	if d == pact.V1 {
		got, err = ref.ParseV1(src)
	} else {
		got, err = ref.ParseV2(src)
	}
	switch {
	case ok && err != nil:
		return fmt.Errorf("%s %q: hand parser accepts, reference rejects: %v\nhand shape:\n%s", d, src, err, want)
	case !ok && err == nil:
		_, diags := pact.ParseQuery(src, d)
		return fmt.Errorf("%s %q: reference accepts, hand parser rejects: %v\nreference shape:\n%s", d, src, diags, got)
	case ok && got != want:
		return fmt.Errorf("%s %q: shapes differ\nhand:\n%s\nreference:\n%s", d, src, want, got)
	}
	return nil
}

// Generators: queries from the grammars' productions, then token-level
// mutations so that about half are invalid.

var (
	genNames = []string{"seg", "cont", "block", "mt", "cb", "summary", "a", "end", "in", "d1"}
	genVals  = []string{"'x'", `"y z"`, "1", "-2", "3.5", "user", "null", "+4"}
	genOps   = []string{"=", "!=", "<", "<=", ">", ">=", "~"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

func genV1(r *rand.Rand) string {
	var b strings.Builder
	if r.Intn(3) == 0 {
		b.WriteString(pick(r, []string{"@t0 ", "@t-1 ", "@c4 ", "@* ", "@t-5..-1 ", "@t-3:@t0 ", "@c1..@c3 "}))
	}
	for g := 1 + r.Intn(2); g > 0; g-- {
		for s := 1 + r.Intn(3); s > 0; s-- {
			for p := 1 + r.Intn(3); p > 0; p-- {
				switch r.Intn(8) {
				case 0:
					b.WriteString("*")
				case 1:
					b.WriteString("^" + pick(r, []string{"seq", "sys", "ah", "root"}))
				case 2, 3:
					b.WriteString("." + pick(r, genNames))
					if r.Intn(4) == 0 {
						b.WriteString(":summary")
					}
				case 4:
					b.WriteString("#" + pick(r, []string{"a1", "cb:u2", "x-1", "7"}))
				case 5, 6:
					b.WriteString("[" + pick(r, []string{"role", "ttl", "kind"}))
					if r.Intn(3) > 0 {
						b.WriteString(pick(r, genOps[:6]) + pick(r, genVals))
					}
					b.WriteString("]")
				case 7:
					b.WriteString(pick(r, []string{":first", ":last", ":pre", ":nth(2)", ":depth(1)", ":depth(1-3)", ":depth(1, 2)", ":core"}))
				}
			}
			if s > 1 {
				b.WriteString(pick(r, []string{" ", " > ", ">", "  "}))
			}
		}
		if g > 1 {
			b.WriteString(pick(r, []string{", ", ",", " , "}))
		}
	}
	return b.String()
}

func genItems(r *rand.Rand, brace bool) string {
	var parts []string
	for i := 1 + r.Intn(3); i > 0; i-- {
		k := pick(r, []string{"role", "ttl", "key", "author", "ephemeral", "in"})
		switch {
		case !brace && r.Intn(3) == 0:
			parts = append(parts, k)
		case r.Intn(4) == 0:
			parts = append(parts, k+pick(r, []string{" in ", " in", "="})+"["+pick(r, genVals)+", "+pick(r, genVals)+"]")
		default:
			parts = append(parts, k+pick(r, []string{"", " "})+pick(r, genOps)+pick(r, []string{"", " "})+pick(r, genVals))
		}
	}
	return strings.Join(parts, pick(r, []string{", ", " ", ",", " , "}))
}

func genCompoundV2(r *rand.Rand, hop bool) string {
	var b strings.Builder
	if hop && r.Intn(2) == 0 {
		b.WriteString(pick(r, []string{"seg", "cont", "block"}))
	}
	for p := 1 + r.Intn(2); p > 0; p-- {
		switch r.Intn(6) {
		case 0, 1:
			b.WriteString("." + pick(r, genNames))
			if r.Intn(6) == 0 {
				b.WriteString("(" + genItems(r, false) + ")")
			}
		case 2:
			b.WriteString("#" + pick(r, []string{"k", "'hero banner'", "cb-2", "n1"}))
		case 3:
			b.WriteString("+" + pick(r, []string{"audit", "tag"}))
		case 4:
			if b.Len() > 0 || hop {
				b.WriteString("[" + genItems(r, false) + "]")
			} else {
				b.WriteString(".x")
			}
		case 5:
			if b.Len() == 0 && !hop {
				b.WriteString(pick(r, []string{"d1", "d0", "d-1", "d1..d3", "d2..4"}))
			} else {
				b.WriteString(".y")
			}
		}
	}
	return b.String()
}

func genPosition(r *rand.Rand) string {
	hops := []string{pick(r, []string{"d1", "d0", "d-1", "d2", "d1..d2"})}
	for i := r.Intn(4); i > 0; i-- {
		hops = append(hops, pick(r, []string{"0", "1", "-1", genCompoundV2(r, true), "end", "+1", "2.5"}))
	}
	s := "(" + strings.Join(hops, pick(r, []string{", ", ","})) + pick(r, []string{"", "", ", "}) + ")"
	if r.Intn(8) == 0 {
		s += "?"
	}
	return s
}

func genBodyV2(r *rand.Rand, depth int) string {
	switch r.Intn(9) {
	case 0:
		return "{" + genItems(r, true) + "}"
	case 1:
		return genPosition(r)
	case 2:
		return "(" + genPosition(r) + ", " + genPosition(r) + ")"
	case 3:
		if depth < 2 {
			return "( " + genBodyV2(r, depth+1) + " )"
		}
	case 4:
		if depth < 2 {
			return genBodyV2(r, depth+1) + " ?? " + genBodyV2(r, depth+1)
		}
	}
	var b strings.Builder
	if r.Intn(4) == 0 {
		b.WriteString(pick(r, []string{"d1 ", "d0 ", "d1..d3 ", "d2..5 "}))
	}
	for s := 1 + r.Intn(3); s > 0; s-- {
		if r.Intn(8) == 0 && depth < 2 {
			b.WriteString(genPosition(r))
		} else {
			b.WriteString(genCompoundV2(r, false))
		}
		if s > 1 {
			b.WriteString(pick(r, []string{" ", " > ", ">"}))
		}
	}
	return b.String()
}

func genV2(r *rand.Rand) string {
	var b strings.Builder
	if r.Intn(3) == 0 {
		b.WriteString(pick(r, []string{"@t0 ", "@t-1 ", "@c4 ", "@* ", "@t0..@t-3 ", "@history ", "@t-2..-1 ", "@t+1 ", "@t0..@t-* "}))
	}
	b.WriteString(genBodyV2(r, 0))
	if r.Intn(3) == 0 {
		b.WriteString(" {" + genItems(r, true) + "}")
	}
	if r.Intn(3) == 0 {
		b.WriteString(" [" + genItems(r, false) + "]")
	}
	for i := r.Intn(3); i > 0; i-- {
		b.WriteString(pick(r, []string{" @limit=5", " @*", " @foo=bar", " @mode=latest", "@x", " @order=path"}))
	}
	return b.String()
}

// mutate applies a token-level edit: delete, duplicate or swap a token,
// or insert a random token.
func mutate(r *rand.Rand, src string) string {
	l := &refLexer{src: src}
	var toks []string
	for {
		t, _ := l.Next()
		if t.EOF() {
			break
		}
		toks = append(toks, t.Value)
	}
	if len(toks) == 0 {
		return src
	}
	i := r.Intn(len(toks))
	switch r.Intn(4) {
	case 0:
		toks = slices.Delete(toks, i, i+1)
	case 1:
		toks = slices.Insert(toks, i, toks[i])
	case 2:
		j := r.Intn(len(toks))
		toks[i], toks[j] = toks[j], toks[i]
	case 3:
		toks = slices.Insert(toks, i, pick(r, []string{" ", ",", ">", "(", ")", "[", "]", "{", "}", "??", "..", "-", "=", "d1", "x", "1", "'s'", "?", "+", "#", ".", "in", "end"}))
	}
	return strings.Join(toks, "")
}

// TestReferenceAgrees checks that the hand parser and the reference
// grammars agree on accept/reject and on the tree's shape for generated
// queries and their mutations (a fixed seed; FuzzReferenceV1/V2 go
// further).
func TestReferenceAgrees(t *testing.T) {
	ref, err := NewReference()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	accepted := map[pact.Dialect]int{}
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := 0; i < n; i++ {
		for _, d := range []pact.Dialect{pact.V1, pact.V2} {
			var src string
			if d == pact.V1 {
				src = genV1(r)
			} else {
				src = genV2(r)
			}
			if r.Intn(2) == 0 {
				src = mutate(r, src)
			}
			if d == pact.V2 && !InV2Alphabet(src) {
				continue
			}
			if err := compare(ref, src, d); err != nil {
				t.Fatal(err)
			}
			if _, ok := handShape(src, d); ok {
				accepted[d]++
			}
		}
	}
	if accepted[pact.V1] < n/5 || accepted[pact.V2] < n/5 {
		t.Errorf("too few valid queries generated: %v of %d", accepted, n)
	}
}

func fuzzSeeds(f *testing.F, gen func(*rand.Rand) string) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 50; i++ {
		f.Add(gen(r))
	}
}

// FuzzReferenceV1 checks agreement on fuzzed v1 selectors.
func FuzzReferenceV1(f *testing.F) {
	fuzzSeeds(f, genV1)
	ref, err := NewReference()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 120 || strings.ContainsAny(src, "\n") {
			return
		}
		if err := compare(ref, src, pact.V1); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReferenceV2 checks agreement on fuzzed v2 queries within the
// reference grammar's alphabet (InV2Alphabet).
func FuzzReferenceV2(f *testing.F) {
	fuzzSeeds(f, genV2)
	ref, err := NewReference()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 120 || !InV2Alphabet(src) {
			return
		}
		if err := compare(ref, src, pact.V2); err != nil {
			t.Fatal(err)
		}
	})
}
