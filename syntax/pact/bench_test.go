package pact

import (
	"testing"
)

// benchSelectors are representative selectors; bench/pact's BenchmarkParse
// parses them against cascadia, the anchor.
var benchSelectors = []struct {
	d         Dialect
	pact, css string
}{
	{V1, "@t0 ^seq .mt:depth(1-2) .mc > .cb[role='assistant']", "main .mt:nth-child(2) .mc > .cb[role='assistant']"},
	{V1, "@t-5..-1 ^ah .cb:first, .cb:last", "body .cb:first-child, .cb:last-child"},
	{V2, "@t0 .seg .cont > .block", "section .cont > .block"},
	{V2, ".mc > .container > .section > .cta { variant in [\"primary\",\"ghost\"] }", ".mc > .container > .section > .cta[variant~='primary']"},
	{V2, "@history d1..d5 .log.entry { severity=\"P1\" } [ ttl>=1 ] @order=path @limit=20", "div .log.entry[severity='P1'][ttl='1'][order='path'][limit='20']"},
	{V2, "(d1, seg, cont[offset=0], *:block)", "div > section > div[offset='0'] > *"},
}

// BenchmarkParse parses the representative selectors with ParseQuery.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchSelectors {
			ParseQuery(s.pact, s.d)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchSelectors)), "ns/selector")
}

// BenchmarkLex measures the lexer alone over the same selectors.
func BenchmarkLex(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, s := range benchSelectors {
			lex(s.pact, false)
		}
	}
}
