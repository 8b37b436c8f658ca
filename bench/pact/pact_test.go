// Package pact_test measures ctxql's PACT parser, evaluator and loader
// against their anchors in the same run: cascadia (selector compilation and
// matching over an HTML rendering of the same tree) and encoding/json,
// fastjson and sonic (loading the same JSON). Each benchmark prints the
// ratio with b.ReportMetric.
package pact_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"github.com/bytedance/sonic"
	"github.com/valyala/fastjson"
	"golang.org/x/net/html"

	"github.com/ctxql/ctxql/bench/internal/gen"
	evpact "github.com/ctxql/ctxql/eval/pact"
	syn "github.com/ctxql/ctxql/syntax/pact"
)

// benchTree is the generated benchmark tree: root → sys/seq/ah → 2,000
// turns → 4 containers each → 124 blocks each (about 1,000,000 nodes,
// 87 MB of JSON), with its HTML rendering (nodeType as class, attributes
// as data-*).
type benchTree struct {
	json []byte
	data *evpact.Data
	doc  *html.Node
}

var benchOnce = sync.OnceValue(func() *benchTree {
	js, hs := gen.PACTTree()
	d, err := evpact.LoadBytes(js)
	if err != nil {
		panic(err)
	}
	doc, err := html.Parse(bytes.NewReader(hs))
	if err != nil {
		panic(err)
	}
	return &benchTree{json: js, data: d, doc: doc}
})

var selectCases = []struct{ name, pact, css string }{
	{"assistant", "^seq .mt .mc > .cb[role='assistant']", ".seq .mt .mc > .cb[data-role='assistant']"},
	{"ttl", ".cb[ttl<=1]", ".cb[data-ttl='0'], .cb[data-ttl='1']"},
	{"id", "#cb:1500:2:77", "[id='cb:1500:2:77']"},
	{"nth", ".mc > .cb:nth(2)", ".mc > .cb:nth-child(2)"},
}

// BenchmarkSelect evaluates each v1 selector over the generated tree and,
// in the same iteration, cascadia over the HTML rendering; it checks that
// both return the same number of nodes and reports ctxql's speed-up over
// cascadia.
func BenchmarkSelect(b *testing.B) {
	tr := benchOnce()
	for _, bc := range selectCases {
		b.Run(bc.name, func(b *testing.B) {
			q, _ := syn.ParseQuery(bc.pact, syn.V1)
			p, err := evpact.Compile(q, bc.pact)
			if err != nil {
				b.Fatal(err)
			}
			sel := cascadia.MustCompile(bc.css)
			// One evaluation first: the id index is built on first use.
			if _, err := p.Eval(context.Background(), tr.data, evpact.Options{}); err != nil {
				b.Fatal(err)
			}
			var nPact, nCSS int
			var tPact, tCSS time.Duration
			for b.Loop() {
				t0 := time.Now()
				r, err := p.Eval(context.Background(), tr.data, evpact.Options{})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				nodes := sel.MatchAll(tr.doc)
				t2 := time.Now()
				nPact, nCSS = len(r.IDs), len(nodes)
				tPact += t1.Sub(t0)
				tCSS += t2.Sub(t1)
			}
			if nPact != nCSS {
				b.Fatalf("result sizes differ: ctxql %d, cascadia %d", nPact, nCSS)
			}
			b.ReportMetric(float64(tPact.Nanoseconds())/float64(b.N), "ctxql-ns/op")
			b.ReportMetric(float64(tCSS.Nanoseconds())/float64(b.N), "cascadia-ns/op")
			b.ReportMetric(float64(tCSS)/float64(tPact), "x-faster-than-cascadia")
		})
	}
}

// stdLoad is the anchor loader: encoding/json into generic values, then
// the tree counted from them (a loader on top of encoding/json has to walk
// the values at least once).
func stdLoad(b []byte) (int, error) {
	var top map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return 0, err
	}
	var count func(v any) int
	count = func(v any) int {
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		n := 1
		if kids, ok := m["children"].([]any); ok {
			for _, k := range kids {
				n += count(k)
			}
		}
		return n
	}
	return count(top["root"]), nil
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkLoad loads the 87 MB tree from a file with evpact.LoadFile and,
// in the same iteration, with the anchors: os.ReadFile plus encoding/json
// (the tree's nodes counted from the decoded values), a bare fastjson
// parse and a bare sonic decode into any (neither builds nodes, so both
// are lower bounds for a loader built on them). It reports each time, the
// loader's speed-up over encoding/json and the heap bytes per loaded node
// (the input text included).
func BenchmarkLoad(b *testing.B) {
	tr := benchOnce()
	path := filepath.Join(b.TempDir(), "tree.json")
	if err := os.WriteFile(path, tr.json, 0o644); err != nil {
		b.Fatal(err)
	}
	nodes := tr.data.Snapshots[0].Len()
	b.SetBytes(int64(len(tr.json)))
	var tLoad, tStd, tFast, tSonic time.Duration
	var perNode float64
	var p fastjson.Parser
	read := func() []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	for b.Loop() {
		before := heapInUse()
		t0 := time.Now()
		d, err := evpact.LoadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		perNode = float64(heapInUse()-before) / float64(nodes)
		runtime.KeepAlive(d)
		d = nil
		t1b := time.Now()
		if n, err := stdLoad(read()); err != nil || n != nodes {
			b.Fatalf("encoding/json: %d nodes, %v", n, err)
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
		tStd += t2.Sub(t1b)
		tFast += t3.Sub(t2)
		tSonic += t4.Sub(t3)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tLoad.Nanoseconds())/n, "ctxql-ns/op")
	b.ReportMetric(float64(tStd.Nanoseconds())/n, "encoding-json-ns/op")
	b.ReportMetric(float64(tFast.Nanoseconds())/n, "fastjson-parse-ns/op")
	b.ReportMetric(float64(tSonic.Nanoseconds())/n, "sonic-any-ns/op")
	b.ReportMetric(float64(tStd)/float64(tLoad), "x-faster-than-encoding-json")
	b.ReportMetric(perNode, "heap-B/node")
}

// parseSelectors pairs representative PACT selectors with CSS selectors of
// similar shape and length for cascadia.
var parseSelectors = []struct {
	d         syn.Dialect
	pact, css string
}{
	{syn.V1, "@t0 ^seq .mt:depth(1-2) .mc > .cb[role='assistant']", "main .mt:nth-child(2) .mc > .cb[role='assistant']"},
	{syn.V1, "@t-5..-1 ^ah .cb:first, .cb:last", "body .cb:first-child, .cb:last-child"},
	{syn.V2, "@t0 .seg .cont > .block", "section .cont > .block"},
	{syn.V2, ".mc > .container > .section > .cta { variant in [\"primary\",\"ghost\"] }", ".mc > .container > .section > .cta[variant~='primary']"},
	{syn.V2, "@history d1..d5 .log.entry { severity=\"P1\" } [ ttl>=1 ] @order=path @limit=20", "div .log.entry[severity='P1'][ttl='1'][order='path'][limit='20']"},
	{syn.V2, "(d1, seg, cont[offset=0], *:block)", "div > section > div[offset='0'] > *"},
}

// BenchmarkParse parses the selectors with syn.ParseQuery and, in the same
// run, their CSS counterparts with cascadia.Compile, and reports the ratio
// (below 1: faster than cascadia).
func BenchmarkParse(b *testing.B) {
	for _, s := range parseSelectors {
		if _, err := cascadia.Compile(s.css); err != nil {
			b.Fatalf("cascadia %q: %v", s.css, err)
		}
		if _, d := syn.ParseQuery(s.pact, s.d); len(d) > 0 {
			b.Fatalf("pact %q: %v", s.pact, d)
		}
	}
	b.ReportAllocs()
	var tPact, tCSS time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, s := range parseSelectors {
			syn.ParseQuery(s.pact, s.d)
		}
		t1 := time.Now()
		for _, s := range parseSelectors {
			_, _ = cascadia.Compile(s.css)
		}
		tPact += t1.Sub(t0)
		tCSS += time.Since(t1)
	}
	n := float64(b.N * len(parseSelectors))
	b.ReportMetric(float64(tPact.Nanoseconds())/n, "ns/selector")
	b.ReportMetric(float64(tCSS.Nanoseconds())/n, "cascadia-ns/selector")
	b.ReportMetric(float64(tPact)/float64(tCSS), "x-vs-cascadia")
}
