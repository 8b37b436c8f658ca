package datalog

import "testing"

// TestSameString checks sameString against the language's string
// comparison: for every length up to 40, the equal string and the strings
// that differ from it in one byte at each position (by one bit and by the
// high bit), and strings of other lengths.
func TestSameString(t *testing.T) {
	for n := range 41 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		a := string(b)
		check := func(x string) {
			t.Helper()
			if got, want := sameString(a, x), a == x; got != want {
				t.Fatalf("sameString(%q, %q) = %v, want %v", a, x, got, want)
			}
			if got, want := sameString(x, a), a == x; got != want {
				t.Fatalf("sameString(%q, %q) = %v, want %v", x, a, got, want)
			}
		}
		check(string(b))
		for i := range b {
			for _, flip := range []byte{1, 0x80} {
				c := []byte(a)
				c[i] ^= flip
				check(string(c))
			}
		}
		check(a + "x")
		if n > 0 {
			check(a[:n-1])
		}
	}
}
