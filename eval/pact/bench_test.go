package pact

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	syn "github.com/ctxql/ctxql/syntax/pact"
)

// benchTree is the generated benchmark tree: root → sys/seq/ah → 2,000
// turns → 4 containers each → 124 blocks each (about 1,000,000 nodes).
// The benchmarks against other engines (cascadia, encoding/json, sonic,
// fastjson) are in the bench module, bench/pact.
type benchTree struct {
	json []byte
	data *Data
}

var benchOnce = sync.OnceValue(func() *benchTree {
	var jb bytes.Buffer
	jb.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"sys","nodeType":"^sys","children":[{"id":"sys:cb","nodeType":"cb","role":"system","offset":0,"ttl":9}]},{"id":"seq","nodeType":"^seq","children":[`)
	roles := []string{"user", "assistant"}
	for t := 0; t < 2000; t++ {
		if t > 0 {
			jb.WriteByte(',')
		}
		fmt.Fprintf(&jb, `{"id":"mt:%d","nodeType":"mt","children":[`, t)
		for c := 0; c < 4; c++ {
			if c > 0 {
				jb.WriteByte(',')
			}
			fmt.Fprintf(&jb, `{"id":"mc:%d:%d","nodeType":"mc","children":[`, t, c)
			for k := 0; k < 124; k++ {
				if k > 0 {
					jb.WriteByte(',')
				}
				role, off, ttl := roles[(t+c)%2], k%3-1, (t*7+k)%5
				fmt.Fprintf(&jb, `{"id":"cb:%d:%d:%d","nodeType":"cb","role":"%s","kind":"text","offset":%d,"ttl":%d}`, t, c, k, role, off, ttl)
			}
			jb.WriteString(`]}`)
		}
		jb.WriteString(`]}`)
	}
	jb.WriteString(`]},{"id":"ah","nodeType":"^ah","children":[]}]}}`)
	d, err := LoadBytes(jb.Bytes())
	if err != nil {
		panic(err)
	}
	return &benchTree{json: jb.Bytes(), data: d}
})

// benchCase is one selector with a hand-written walk over the snapshot's
// columns selecting the same nodes.
type benchCase struct {
	name, pact string
	walk       func(*Snapshot, *[]int32)
}

func walkAll(s *Snapshot, f func(int32) bool, out *[]int32) {
	for i := range int32(s.Len()) {
		if f(i) {
			*out = append(*out, i)
		}
	}
}

var benchCases = []benchCase{
	{"assistant", "^seq .mt .mc > .cb[role='assistant']", func(s *Snapshot, out *[]int32) {
		for sq := range s.children(0) {
			if s.typeName(sq) != "^seq" {
				continue
			}
			for mt := range s.children(sq) {
				for mc := range s.children(mt) {
					if s.typeName(mc) != "mc" {
						continue
					}
					for cb := range s.children(mc) {
						if s.typeName(cb) == "cb" && s.flags[cb]&flagStrOK != 0 && s.str(cb, 0) == "assistant" {
							*out = append(*out, cb)
						}
					}
				}
			}
		}
	}},
	{"ttl", ".cb[ttl<=1]", func(s *Snapshot, out *[]int32) {
		walkAll(s, func(n int32) bool {
			return s.typeName(n) == "cb" && s.flags[n]&(flagNumOK<<1) != 0 && float64(s.nums[1][n]) <= 1
		}, out)
	}},
	{"id", "#cb:1500:2:77", func(s *Snapshot, out *[]int32) {
		walkAll(s, func(n int32) bool { return s.nodeID(n) == "cb:1500:2:77" }, out)
	}},
	{"id-filter", ".cb[id!='cb:1:1:0']", func(s *Snapshot, out *[]int32) {
		walkAll(s, func(n int32) bool { return s.typeName(n) == "cb" && s.nodeID(n) != "cb:1:1:0" }, out)
	}},
	{"nth", ".mc > .cb:nth(2)", func(s *Snapshot, out *[]int32) {
		walkAll(s, func(n int32) bool {
			p := s.parent[n]
			return s.typeName(n) == "cb" && p >= 0 && s.typeName(p) == "mc" && s.pos[n] == 2
		}, out)
	}},
}

// BenchmarkSelect evaluates each selector over the generated tree and, in
// the same iteration, a hand-written walk over the same structs, and
// reports ctxql's time relative to the walk.
func BenchmarkSelect(b *testing.B) {
	tr := benchOnce()
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			q, _ := syn.ParseQuery(bc.pact, syn.V1)
			p, err := Compile(q, bc.pact)
			if err != nil {
				b.Fatal(err)
			}
			// One evaluation first: indexes built on first use (the id
			// index) are not part of the per-query cost.
			if _, err := p.Eval(context.Background(), tr.data, Options{}); err != nil {
				b.Fatal(err)
			}
			var nPact, nWalk int
			var tPact, tWalk time.Duration
			for b.Loop() {
				t0 := time.Now()
				r, err := p.Eval(context.Background(), tr.data, Options{})
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				var out []int32
				bc.walk(tr.data.Snapshots[0], &out)
				t2 := time.Now()
				nPact, nWalk = len(r.IDs), len(out)
				tPact += t1.Sub(t0)
				tWalk += t2.Sub(t1)
			}
			if nPact != nWalk {
				b.Fatalf("result sizes differ: ctxql %d, walk %d", nPact, nWalk)
			}
			b.ReportMetric(float64(tPact.Nanoseconds())/float64(b.N), "ctxql-ns/op")
			b.ReportMetric(float64(tPact)/float64(tWalk), "x-of-hand-walk")
		})
	}
}

// BenchmarkLoad loads the generated tree's JSON (about 87 MB) from a file
// and reports the heap bytes per node (the input text included). The
// comparison with encoding/json, sonic and fastjson is bench/pact's
// BenchmarkLoad.
func BenchmarkLoad(b *testing.B) {
	tr := benchOnce()
	path := filepath.Join(b.TempDir(), "tree.json")
	if err := os.WriteFile(path, tr.json, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(tr.json)))
	nodes := tr.data.Snapshots[0].Len()
	var perNode float64
	var m0, m1 runtime.MemStats
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		d, err := LoadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		perNode = float64(m1.HeapAlloc-m0.HeapAlloc) / float64(nodes)
		runtime.KeepAlive(d)
		b.StartTimer()
	}
	b.ReportMetric(perNode, "heap-B/node")
}
