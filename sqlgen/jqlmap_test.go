package sqlgen

import (
	"regexp"
	"strings"
	"testing"
)

// TestIsColumnName compares isColumnName with the regular expression it
// stands for, on edge cases and on every string of up to two bytes.
func TestIsColumnName(t *testing.T) {
	ref := regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)
	cases := []string{"", "a", "a_1", "_a", "1a", "A", "aB", "a-b", "a\n", "é", "aé",
		strings.Repeat("a", 39), strings.Repeat("a", 40), strings.Repeat("a", 41), "a" + strings.Repeat("_", 39)}
	for i := 0; i < 256; i++ {
		cases = append(cases, string([]byte{byte(i)}))
		for _, c := range []byte{'a', 'z', '0', '9', '_', 'A', 0x80, '\n'} {
			cases = append(cases, string([]byte{byte(i), c}), string([]byte{c, byte(i)}))
		}
	}
	for _, s := range cases {
		if got, want := isColumnName(s), ref.MatchString(s); got != want {
			t.Errorf("isColumnName(%q) = %v, the expression says %v", s, got, want)
		}
	}
}
