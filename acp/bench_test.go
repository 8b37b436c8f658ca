package acp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
)

// bigCache writes a generated cache of n files with 5 symbols each.
func bigCache(b *testing.B, n int) string {
	b.Helper()
	c := acp.Cache{Version: "1.0.0", GeneratedAt: "2024-12-18T15:30:00Z", Files: map[string]*acp.File{},
		Symbols: map[string]*acp.Symbol{}, Domains: map[string]*acp.Domain{},
		Graph:       acp.Graph{Forward: map[string][]string{}, Reverse: map[string][]string{}},
		Constraints: acp.Constraints{ByFile: map[string]*acp.FileConstraints{}, ByLockLevel: map[string][]string{}}}
	for i := range n {
		p := fmt.Sprintf("src/m%d/file%d.ts", i%20, i)
		c.Files[p] = &acp.File{Path: p, Module: "M", Summary: "a file", Lines: 100, Language: "typescript", Layer: "service"}
		d := fmt.Sprintf("domain%d", i%10)
		if c.Domains[d] == nil {
			c.Domains[d] = &acp.Domain{Name: d}
		}
		c.Domains[d].Files = append(c.Domains[d].Files, p)
		for j := range 5 {
			qn := fmt.Sprintf("%s:fn%d_%d", p, i, j)
			c.Symbols[qn] = &acp.Symbol{Name: fmt.Sprintf("fn%d_%d", i, j), QualifiedName: qn, Type: "function", File: p, Lines: []int{j * 10, j*10 + 9}}
			c.Domains[d].Symbols = append(c.Domains[d].Symbols, qn)
			if j > 0 {
				prev := fmt.Sprintf("%s:fn%d_%d", p, i, j-1)
				c.Graph.Forward[prev] = append(c.Graph.Forward[prev], qn)
				c.Graph.Reverse[qn] = append(c.Graph.Reverse[qn], prev)
			}
		}
	}
	data, err := json.Marshal(c)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), acp.DefaultCacheName)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLoad loads and indexes a 1000-file cache (about 1 MB) and
// compares with the anchor: reading the file and decoding it into plain
// values, what the specification's programmatic examples do.
func BenchmarkLoad(b *testing.B) {
	path := bigCache(b, 1000)
	st, _ := os.Stat(path)
	anchor := timeIt(b, func() {
		data, _ := os.ReadFile(path)
		var v any
		json.Unmarshal(data, &v)
	})
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := acp.Load(path); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(anchor), "x-vs-anchor")
	b.ReportMetric(float64(st.Size())/1e6, "MB")
}

// BenchmarkSymbolByName looks a symbol up by short name through the index
// and compares with the anchor: the specification's linear scan over all
// symbols.
func BenchmarkSymbolByName(b *testing.B) {
	path := bigCache(b, 1000)
	ix, err := acp.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	name := "fn999_4"
	anchor := timeIt(b, func() {
		for _, s := range ix.Cache.Symbols {
			if s.Name == name {
				return
			}
		}
	})
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := ix.Symbol(name); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(anchor), "x-vs-anchor")
}

// timeIt returns the mean duration of f over enough runs to take about
// 200ms.
func timeIt(b *testing.B, f func()) time.Duration {
	b.Helper()
	n := 0
	start := time.Now()
	for time.Since(start) < 200*time.Millisecond {
		f()
		n++
	}
	return time.Since(start) / time.Duration(n)
}
