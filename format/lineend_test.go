package format

import (
	"strings"
	"testing"
)

func TestKeepLineEnds(t *testing.T) {
	for _, c := range []struct{ src, out, want string }{
		{"a\r\nb\r\n", "a\nb\n", "a\r\nb\r\n"},
		{"a\r\nb\n", "a\nb\n", "a\r\nb\r\n"}, // the first line decides
		{"a\nb\r\n", "a\r\nb\n", "a\nb\n"},
		{"a\n", "a\n", "a\n"},
		{"a", "a\n", "a\n"},
	} {
		if got := string(KeepLineEnds([]byte(c.src), []byte(c.out))); got != c.want {
			t.Errorf("KeepLineEnds(%q, %q) = %q, want %q", c.src, c.out, got, c.want)
		}
	}
}

// TestIsCanonicalCRLF pins that a file in canonical form with CRLF line
// ends is canonical, as formatting it leaves it unchanged, and that one
// which is not stays not canonical.
func TestIsCanonicalCRLF(t *testing.T) {
	crlf := func(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }
	for _, c := range []struct {
		name  string
		check func([]byte) (bool, error)
		print func([]byte) ([]byte, error)
		src   string
	}{
		{"pact", PACTIsCanonical, PACT, ".mt   .cb\n// note\n.cb[ttl<=1]\n"},
		{"datalog", DatalogIsCanonical, Datalog, "q(x) <--   p(x).\n"},
	} {
		out, err := c.print([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			src  []byte
			want bool
		}{{crlf(string(out)), true}, {crlf(c.src), false}, {out, true}} {
			if ok, err := c.check(tc.src); err != nil || ok != tc.want {
				t.Errorf("%s: IsCanonical(%q) = %v, %v; want %v", c.name, tc.src, ok, err, tc.want)
			}
		}
	}
}
