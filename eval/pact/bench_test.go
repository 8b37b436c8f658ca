package pact

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"github.com/bytedance/sonic"
	"github.com/valyala/fastjson"
	"golang.org/x/net/html"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// benchTree is the generated benchmark tree: root → sys/seq/ah → 2,000
// turns → 4 containers each → 124 blocks each (about 1,000,000 nodes).
type benchTree struct {
	json []byte
	data *Data
	doc  *html.Node
}

var benchOnce = sync.OnceValue(func() *benchTree {
	var jb, hb bytes.Buffer
	jb.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"sys","nodeType":"^sys","children":[{"id":"sys:cb","nodeType":"cb","role":"system","offset":0,"ttl":9}]},{"id":"seq","nodeType":"^seq","children":[`)
	hb.WriteString(`<html><body><div id="root" class="root"><div id="sys" class="sys"><div id="sys:cb" class="cb" data-role="system" data-offset="0" data-ttl="9"></div></div><div id="seq" class="seq">`)
	roles := []string{"user", "assistant"}
	for t := 0; t < 2000; t++ {
		if t > 0 {
			jb.WriteByte(',')
		}
		fmt.Fprintf(&jb, `{"id":"mt:%d","nodeType":"mt","children":[`, t)
		fmt.Fprintf(&hb, `<div id="mt:%d" class="mt">`, t)
		for c := 0; c < 4; c++ {
			if c > 0 {
				jb.WriteByte(',')
			}
			fmt.Fprintf(&jb, `{"id":"mc:%d:%d","nodeType":"mc","children":[`, t, c)
			fmt.Fprintf(&hb, `<div id="mc:%d:%d" class="mc">`, t, c)
			for k := 0; k < 124; k++ {
				if k > 0 {
					jb.WriteByte(',')
				}
				role, off, ttl := roles[(t+c)%2], k%3-1, (t*7+k)%5
				fmt.Fprintf(&jb, `{"id":"cb:%d:%d:%d","nodeType":"cb","role":"%s","kind":"text","offset":%d,"ttl":%d}`, t, c, k, role, off, ttl)
				fmt.Fprintf(&hb, `<div id="cb:%d:%d:%d" class="cb" data-role="%s" data-kind="text" data-offset="%d" data-ttl="%d"></div>`, t, c, k, role, off, ttl)
			}
			jb.WriteString(`]}`)
			hb.WriteString(`</div>`)
		}
		jb.WriteString(`]}`)
		hb.WriteString(`</div>`)
	}
	jb.WriteString(`]},{"id":"ah","nodeType":"^ah","children":[]}]}}`)
	hb.WriteString(`</div><div id="ah" class="ah"></div></div></body></html>`)
	d, err := LoadBytes(jb.Bytes())
	if err != nil {
		panic(err)
	}
	doc, err := html.Parse(&hb)
	if err != nil {
		panic(err)
	}
	return &benchTree{json: jb.Bytes(), data: d, doc: doc}
})

// benchCase is one selector with its cascadia equivalent and a hand walk.
type benchCase struct {
	name, pact, css string
	walk            func(*Node, *[]*Node)
}

func walkAll(n *Node, f func(*Node) bool, out *[]*Node) {
	if f(n) {
		*out = append(*out, n)
	}
	for _, c := range n.Children {
		walkAll(c, f, out)
	}
}

var benchCases = []benchCase{
	{"assistant", "^seq .mt .mc > .cb[role='assistant']", ".seq .mt .mc > .cb[data-role='assistant']", func(root *Node, out *[]*Node) {
		for _, sq := range root.Children {
			if sq.NodeType != "^seq" {
				continue
			}
			for _, mt := range sq.Children {
				for _, mc := range mt.Children {
					if mc.NodeType != "mc" {
						continue
					}
					for _, cb := range mc.Children {
						if cb.NodeType == "cb" && cb.str(0) == "assistant" {
							*out = append(*out, cb)
						}
					}
				}
			}
		}
	}},
	{"ttl", ".cb[ttl<=1]", ".cb[data-ttl='0'], .cb[data-ttl='1']", func(root *Node, out *[]*Node) {
		walkAll(root, func(n *Node) bool {
			return n.NodeType == "cb" && n.numOK&(1<<1) != 0 && n.nums[1] <= 1
		}, out)
	}},
	{"id", "#cb:1500:2:77", "[id='cb:1500:2:77']", func(root *Node, out *[]*Node) {
		walkAll(root, func(n *Node) bool { return n.ID == "cb:1500:2:77" }, out)
	}},
	{"nth", ".mc > .cb:nth(2)", ".mc > .cb:nth-child(2)", func(root *Node, out *[]*Node) {
		walkAll(root, func(n *Node) bool {
			return n.NodeType == "cb" && n.parent != nil && n.parent.NodeType == "mc" && n.pos == 2
		}, out)
	}},
}

// BenchmarkSelect evaluates each selector over the generated tree and, in
// the same run, cascadia over the HTML rendering and a hand-written walk
// over the same structs; it reports ctxql's speed-up over cascadia and its
// cost relative to the walk.
func BenchmarkSelect(b *testing.B) {
	tr := benchOnce()
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			q, _ := syn.ParseQuery(bc.pact, syn.V1)
			p, err := Compile(q, bc.pact)
			if err != nil {
				b.Fatal(err)
			}
			sel := cascadia.MustCompile(bc.css)
			// One evaluation first: indexes built on first use (the id
			// index) are not part of the per-query cost.
			if _, err := p.Eval(context.Background(), tr.data, Options{}); err != nil {
				b.Fatal(err)
			}
			var nPact, nCSS, nWalk int
			var tPact, tCSS, tWalk time.Duration
			for b.Loop() {
				t0 := time.Now()
				r, err := p.Eval(context.Background(), tr.data, Options{})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				var out []*Node
				bc.walk(tr.data.Snapshots[0].Root, &out)
				t2 := time.Now()
				nodes := sel.MatchAll(tr.doc)
				t3 := time.Now()
				nPact, nWalk, nCSS = len(r.IDs), len(out), len(nodes)
				tPact += t1.Sub(t0)
				tWalk += t2.Sub(t1)
				tCSS += t3.Sub(t2)
			}
			if nPact != nWalk || nPact != nCSS {
				b.Fatalf("result sizes differ: ctxql %d, walk %d, cascadia %d", nPact, nWalk, nCSS)
			}
			b.ReportMetric(float64(tPact.Nanoseconds())/float64(b.N), "ctxql-ns/op")
			b.ReportMetric(float64(tCSS)/float64(tPact), "x-faster-than-cascadia")
			b.ReportMetric(float64(tPact)/float64(tWalk), "x-of-hand-walk")
		})
	}
}

// BenchmarkLoad loads the generated tree's JSON (about 87 MB) from a file
// with LoadFile and, in the same iteration, with the candidates the loader
// was chosen against: os.ReadFile plus encoding/json into generic maps (the
// anchor; the tree built from the maps), a bare fastjson parse and a bare
// sonic decode into generic values (neither builds nodes, so they are
// lower bounds for a loader on top of them). It reports each time and the
// loader's speed-up over encoding/json.
func BenchmarkLoad(b *testing.B) {
	tr := benchOnce()
	path := filepath.Join(b.TempDir(), "tree.json")
	if err := os.WriteFile(path, tr.json, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(tr.json)))
	var tLoad, tStd, tFast, tSonic time.Duration
	var p fastjson.Parser
	read := func() []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	for b.Loop() {
		t0 := time.Now()
		if _, err := LoadFile(path); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, ok := refLoad(read()); !ok {
			b.Fatal("encoding/json rejected the tree")
		}
		t2 := time.Now()
		if _, err := p.ParseBytes(read()); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		var v any
		if err := sonic.Unmarshal(read(), &v); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		tLoad += t1.Sub(t0)
		tStd += t2.Sub(t1)
		tFast += t3.Sub(t2)
		tSonic += t4.Sub(t3)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tLoad.Nanoseconds())/n, "ctxql-ns/op")
	b.ReportMetric(float64(tStd.Nanoseconds())/n, "encoding-json-ns/op")
	b.ReportMetric(float64(tFast.Nanoseconds())/n, "fastjson-parse-ns/op")
	b.ReportMetric(float64(tSonic.Nanoseconds())/n, "sonic-any-ns/op")
	b.ReportMetric(float64(tStd)/float64(tLoad), "x-faster-than-encoding-json")
}
