package lang

import (
	"regexp"
	"testing"
)

// TestIsDatalogIdent checks IsDatalogIdent against the regular expression
// of an identifier, on every string of up to three bytes over an
// alphabet of the edge bytes, and on longer names.
func TestIsDatalogIdent(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	alpha := []byte("_aAzZ09/:@[`{\n\x00\x80é")
	check := func(s string) {
		t.Helper()
		if got, want := IsDatalogIdent(s), re.MatchString(s); got != want {
			t.Fatalf("IsDatalogIdent(%q) = %v, want %v", s, got, want)
		}
	}
	check("")
	for _, a := range alpha {
		check(string(a))
		for _, b := range alpha {
			check(string([]byte{a, b}))
			for _, c := range alpha {
				check(string([]byte{a, b, c}))
			}
		}
	}
	for _, s := range []string{"path", "rw_proc", "_x9", "9x", "Edge2", "a-b", "path\n", "ünï"} {
		check(s)
	}
}
