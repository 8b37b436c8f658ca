package pact

import (
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
)

// benchSelectors pairs representative PACT selectors with CSS selectors of
// similar shape and length for cascadia, the anchor.
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

// BenchmarkParse parses the representative selectors with ParseQuery and,
// in the same run, their CSS counterparts with cascadia.Compile. It reports
// ns/op for the whole set, cascadia's ns/op and the ratio (below 1 means
// faster than cascadia).
func BenchmarkParse(b *testing.B) {
	for _, s := range benchSelectors {
		if _, err := cascadia.Compile(s.css); err != nil {
			b.Fatalf("cascadia %q: %v", s.css, err)
		}
		if _, d := ParseQuery(s.pact, s.d); len(d) > 0 {
			b.Fatalf("pact %q: %v", s.pact, d)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range benchSelectors {
			ParseQuery(s.pact, s.d)
		}
	}
	b.StopTimer()
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	// The anchor runs the same number of iterations with the timer stopped,
	// so ns/op above is PACT's alone.
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for _, s := range benchSelectors {
			_, _ = cascadia.Compile(s.css)
		}
	}
	anchor := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/float64(len(benchSelectors)), "ns/selector")
	b.ReportMetric(anchor, "cascadia-ns/op")
	b.ReportMetric(ns/anchor, "x-vs-cascadia")
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
