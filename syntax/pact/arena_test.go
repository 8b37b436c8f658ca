package pact

import (
	"strings"
	"testing"
)

// TestArenaReuse parses files one after the other in one Arena, large
// enough to fill and reuse full-size chunks, and checks that every tree is
// the one a fresh parse builds.
func TestArenaReuse(t *testing.T) {
	seeds := seedQueries(t)
	var files []string
	for k := range 3 {
		var b strings.Builder
		for i := range 3000 {
			b.WriteString(seeds[(i*7+k)%len(seeds)])
			b.WriteString(" // c\n")
		}
		files = append(files, b.String())
	}
	files = append(files, "", ".a", strings.Join(seeds, "\n"))
	ar := &Arena{}
	for round := range 2 {
		for i, src := range files {
			got := ParseFileTreeIn(ar, "a.pact", src, V2)
			want := ParseFile("a.pact", src, V2)
			if Dump(got) != Dump(want) || len(got.Diagnostics) != len(want.Diagnostics) {
				t.Fatalf("round %d, file %d: the tree parsed in a reused arena differs", round, i)
			}
			ar.Reset()
		}
	}
}
