package report

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
)

// TestColumnsAgree: the column index gives, for every offset of long and
// short lines mixing ASCII, multi-byte and astral characters and invalid
// bytes, the character count and the UTF-16 count that a scan from the
// start of the line gives.
func TestColumnsAgree(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "é", "日", "😀", "\xff", "\n", "\r\n", "bb"}
	var b strings.Builder
	for range 5000 {
		p := pieces[rng.Intn(len(pieces))]
		if strings.Contains(p, "\n") && rng.Intn(20) != 0 {
			p = "x" // mostly long lines
		}
		b.WriteString(p)
	}
	f := syntax.NewFile("f", b.String())
	c := newColumns(f)
	// Offsets out of order, including inside characters and out of range.
	offs := rng.Perm(f.Len() + 1)
	offs = append(offs, -3, f.Len()+5)
	for _, off := range offs {
		line, runes, units := c.at(off)
		want := f.UTF16(off)
		o := min(max(off, 0), f.Len())
		start := f.LineStart(f.LineOf(o))
		if line != want.Line || units != want.Character {
			t.Fatalf("offset %d: line %d units %d, want %d %d", off, line, units, want.Line, want.Character)
		}
		if o == f.Len() || utf8.RuneStart(f.Text()[o]) {
			if w := len([]rune(f.Text()[start:o])); runes != w {
				t.Fatalf("offset %d: %d characters, want %d", off, runes, w)
			}
		}
	}
}
