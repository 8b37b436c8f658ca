package pact

import (
	"crypto/sha256"
	"strings"
	"testing"
)

// TestSum256 compares sum256 with crypto/sha256 on every length up to
// three blocks (each padding case) and on a long input.
func TestSum256(t *testing.T) {
	var b []byte
	for i := 0; i < 200; i++ {
		if got, want := sum256(b), sha256.Sum256(b); got != want {
			t.Fatalf("sum256 of %d bytes = %x, crypto/sha256 gives %x", len(b), got, want)
		}
		b = append(b, byte(i*7+3))
	}
	long := []byte(strings.Repeat("ctxql é ", 100_000))
	if got, want := sum256(long), sha256.Sum256(long); got != want {
		t.Fatalf("sum256 of %d bytes = %x, crypto/sha256 gives %x", len(long), got, want)
	}
}
