package migrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	evalpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/syntax/pact"
)

// genTree writes a context tree of the shape the specifications use:
// ^sys, ^seq with turns (mt) of containers (mc or cont) of blocks of mixed
// types (cb, cb:summary, summary, block, note), and ^ah; attributes role,
// kind, offset, ttl, cad, key, status and tags vary with the seed.
func genTree(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	id := 0
	next := func(prefix string) string { id++; return fmt.Sprintf("%s%d", prefix, id) }
	types := []string{"cb", "cb:summary", "summary", "block", "note"}
	roles := []string{"user", "assistant", "system"}
	block := func() string {
		t := types[r.IntN(len(types))]
		s := fmt.Sprintf(`{"id":%q,"nodeType":%q,"role":%q,"offset":%d,"ttl":%d,"cad":%d,"key":"k%d","status":%q`,
			next("b"), t, roles[r.IntN(3)], r.IntN(3)-1, r.IntN(5), r.IntN(3), r.IntN(4), []string{"x", "y"}[r.IntN(2)])
		if r.IntN(3) == 0 {
			s += `,"tags":["audit"]`
		}
		return s + "}"
	}
	container := func() string {
		t := []string{"mc", "cont"}[r.IntN(2)]
		var kids []string
		for range 1 + r.IntN(4) {
			kids = append(kids, block())
		}
		return fmt.Sprintf(`{"id":%q,"nodeType":%q,"offset":%d,"children":[%s]}`, next("c"), t, r.IntN(3)-1, strings.Join(kids, ","))
	}
	turn := func() string {
		var kids []string
		for range 1 + r.IntN(3) {
			kids = append(kids, container())
		}
		return fmt.Sprintf(`{"id":%q,"nodeType":"mt","children":[%s]}`, next("t"), strings.Join(kids, ","))
	}
	var turns []string
	for range 2 + r.IntN(4) {
		turns = append(turns, turn())
	}
	fmt.Fprintf(&b, `{"root":{"id":"root","nodeType":"^root","children":[{"id":"sys","nodeType":"^sys","children":[%s]},{"id":"seq","nodeType":"^seq","children":[%s]},{"id":"ah","nodeType":"^ah","children":[%s]}]}}`,
		container(), strings.Join(turns, ","), container())
	return b.String()
}

// ids evaluates a query and returns its result, or the error.
func ids(t *testing.T, d *evalpact.Data, q string, dialect pact.Dialect) string {
	t.Helper()
	res, err := evalpact.Select(context.Background(), d, q, dialect, evalpact.Options{})
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(res.IDs)
}

// migrated runs PACT on a one-query file and returns the query it wrote.
func migrated(t *testing.T, src string, opts Options) string {
	t.Helper()
	res, err := PACT([]byte(src), opts)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Output)), "\n")
	return lines[len(lines)-1]
}

// TestV1ToV2PreservesResults converts v1 selectors to v2 queries and
// evaluates both over generated trees: every converted query selects the
// same nodes in the same order as its v1 original.
func TestV1ToV2PreservesResults(t *testing.T) {
	selectors := []string{
		"^seq .mt .mc > .cb[role='assistant']",
		".cb:summary",
		".mt .cb:summary[ttl<=2]",
		"#b7", "^seq #t3 .cb", ".cb#b5",
		"^seq .mt:depth(1) .cb", ".mt:depth(1-2) > .mc", "^seq .mt:depth(2,1) .cb",
		"^seq :depth(3,1-2) > .mc:last", "*:depth(1) > .cont", ".mt:depth(2-3) .cb:summary",
		".mt#t3:depth(1-4) > *", "^seq > :depth(2)",
		".mt > :first", ".mc > :last[role='user']", ".cb:nth(2)",
		"[role='user']", "^ah [offset>0]", "* > [ttl]", "^seq :post",
		".cb[offset=0]:core", "^sys > *", "@t0 ^root .mt .cont .cb[role!='system']",
	}
	n, nonEmpty := 0, 0
	for seed := uint64(1); seed <= 8; seed++ {
		d, err := evalpact.LoadBytes([]byte(genTree(seed)))
		if err != nil {
			t.Fatal(err)
		}
		for _, sel := range selectors {
			res, err := PACT([]byte("// pact: v1\n"+sel+"\n"), Options{ToV2: true})
			if err != nil || !strings.HasPrefix(string(res.Output), "// pact: v2\n") || len(res.Manual) > 0 {
				t.Fatalf("%q was not converted: %v %q %v", sel, err, res.Output, res.Manual)
			}
			v2 := migrated(t, "// pact: v1\n"+sel+"\n", Options{ToV2: true})
			before, after := ids(t, d, sel, pact.V1), ids(t, d, v2, pact.V2)
			if before != after {
				t.Errorf("seed %d: v1 %q → v2 %q: %s became %s", seed, sel, v2, before, after)
			}
			n++
			if before != "[]" && !strings.HasPrefix(before, "error") {
				nonEmpty++
			}
		}
	}
	if nonEmpty < n/2 {
		t.Fatalf("only %d of %d evaluations selected anything", nonEmpty, n)
	}
}

// TestEquivalenceDetectsWrongDepth checks that the generated trees can tell
// depth mappings apart: an off-by-one v2 depth for a v1 :depth(N) selects
// different turns on some tree, so TestV1ToV2PreservesResults would catch it.
func TestEquivalenceDetectsWrongDepth(t *testing.T) {
	for _, c := range [][2]string{
		{"^seq .mt:depth(1) .cb", "^seq d2.mt .cb"},
		{".mt:depth(1-2) > .mc", "d1..d3.mt > .mc"},
		{"^seq .mt:depth(2,1) .cb", "^seq d1.mt .cb"},
	} {
		differs := false
		for seed := uint64(1); seed <= 8 && !differs; seed++ {
			d, err := evalpact.LoadBytes([]byte(genTree(seed)))
			if err != nil {
				t.Fatal(err)
			}
			differs = ids(t, d, c[0], pact.V1) != ids(t, d, c[1], pact.V2)
		}
		if !differs {
			t.Errorf("v1 %q and the wrong v2 %q agree on every tree", c[0], c[1])
		}
	}
}

// TestLegacyRewritesPreserveResults evaluates the safe v2 legacy rewrites
// before and after over generated trees, and shows where the unsafe
// cont[offset=N] rewrite differs.
func TestLegacyRewritesPreserveResults(t *testing.T) {
	queries := []string{
		"@t0 .cont .block:summary",
		"@t0 .mt .block:note[role='user']",
		".cont > .block(status='x' ttl=2)",
		".mt .summary { role=\"user\" ttl>=2 }",
		".mt .note { ttl<3 cad=1 }",
	}
	changed, nonEmpty := 0, 0
	for seed := uint64(1); seed <= 8; seed++ {
		d, err := evalpact.LoadBytes([]byte(genTree(seed)))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			m := migrated(t, q+"\n", Options{})
			if m != q {
				changed++
			}
			before, after := ids(t, d, q, pact.V2), ids(t, d, m, pact.V2)
			if before != after {
				t.Errorf("seed %d: %q → %q: %s became %s", seed, q, m, before, after)
			}
			if before != "[]" && !strings.HasPrefix(before, "error") {
				nonEmpty++
			}
		}
	}
	if changed != 8*len(queries) || nonEmpty < 8 {
		t.Fatalf("%d rewrites, %d non-empty results", changed, nonEmpty)
	}
	// The unsafe rewrite: cont[offset=0] picks only cont children, the
	// offset 0 any child with offset 0.
	differs := false
	for seed := uint64(1); seed <= 8; seed++ {
		d, _ := evalpact.LoadBytes([]byte(genTree(seed)))
		q := "(d1, cont[offset=0])"
		m := migrated(t, q+"\n", Options{Unsafe: true})
		if m != "(d1, 0)" {
			t.Fatalf("unsafe rewrite gave %q", m)
		}
		differs = differs || ids(t, d, q, pact.V2) != ids(t, d, m, pact.V2)
	}
	if !differs {
		t.Fatalf("cont[offset=0] and 0 agree on every tree: the rewrite could be safe")
	}
}
