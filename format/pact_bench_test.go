package format

import (
	"fmt"
	"strings"
	"testing"
)

// canonicalPACT returns about n bytes of canonical PACT queries and comments.
func canonicalPACT(tb testing.TB, n int) []byte {
	lines := []string{
		"@t0 ^seq .mt .mc > .cb[role='assistant'][ttl<=%d] { author=\"u%d\" } @limit=%d",
		"@t-1 .seg > .note { lang=\"en\", n=%d } [ ttl>=%d ] @order=path @skip=%d",
		"@t0 d1..d3 .summary #k%d ?? (d%d, 0, 1) @limit=%d",
		"// a note about query %d, %d, %d",
	}
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, lines[i%len(lines)], i%5, i%97, 1+i%50)
		sb.WriteByte('\n')
	}
	out, err := PACT([]byte(sb.String()))
	if err != nil || string(out) != sb.String() {
		tb.Fatalf("not canonical: %v", err)
	}
	return out
}

// BenchmarkPACTCanonical formats an already canonical 256 KB file (the
// common case of `ctxql fmt --check`) and reports bytes per second.
func BenchmarkPACTCanonical(b *testing.B) {
	src := canonicalPACT(b, 256<<10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PACT(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPACTIsCanonical is the yes/no check of the same file.
func BenchmarkPACTIsCanonical(b *testing.B) {
	src := canonicalPACT(b, 256<<10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := PACTIsCanonical(src); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
