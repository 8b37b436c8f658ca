package pactgrammar

import (
	"testing"
	"time"

	"github.com/ctxql/ctxql/syntax/pact"
)

// BenchmarkParticiple parses the selectors with the participle grammar (one
// sub-benchmark per lexer) and reports, from the same run, the hand-written
// parser's time per selector and the ratio participle/hand (above 1 means
// participle is slower). The hand parser builds a fully spanned AST with
// every token kept; the grammar builds a bare one.
func BenchmarkParticiple(b *testing.B) {
	for name, parse := range parsers(b) {
		b.Run(name, func(b *testing.B) {
			for _, s := range selectors {
				if _, err := parse(s); err != nil {
					b.Fatalf("%q: %v", s, err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, s := range selectors {
					parse(s)
				}
			}
			b.StopTimer()
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*len(selectors))
			start := time.Now()
			for i := 0; i < b.N; i++ {
				for _, s := range selectors {
					pact.ParseQuery(s, pact.V1)
				}
			}
			hand := float64(time.Since(start).Nanoseconds()) / float64(b.N*len(selectors))
			b.ReportMetric(ns, "ns/selector")
			b.ReportMetric(hand, "hand-ns/selector")
			b.ReportMetric(ns/hand, "x-vs-hand")
		})
	}
}
