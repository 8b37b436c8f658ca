package play

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
)

// apply applies a range edit to text through the language server's
// position mapper.
func apply(text string, r lspRange, repl string) string {
	f := syntax.NewFile("x", text)
	a := f.OffsetUTF16(syntax.UTF16Pos{Line: r.Start.Line, Character: r.Start.Character})
	b := f.OffsetUTF16(syntax.UTF16Pos{Line: r.End.Line, Character: r.End.Character})
	return text[:a] + repl + text[b:]
}

func TestLineChange(t *testing.T) {
	cases := [][2]string{
		{"", "a"}, {"a", ""}, {"abc", "abc"}, {".cb\n", ".cb[x]\n"},
		{"// data: x\n.cb\n.mt\n", "// data: x\n.cb[role=\"user\"]\n.mt\n"},
		{"a\r\nb\r\n", "a\r\nbb\r\n"}, {"a\r\nb", "a\nb"}, {"a\nb", "a\r\nb"},
		{"é😀x\n", "é😀y\n"}, {"😀\n😀", "😀\n😁"}, {"x\n", "x\n\n"}, {"\n\n", "\n"},
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "\n", "\r\n", "é", "😀", " ", "."}
	gen := func() string {
		var b strings.Builder
		for range rnd.IntN(12) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		cases = append(cases, [2]string{gen(), gen()})
	}
	for _, c := range cases {
		r, repl := lineChange(c[0], c[1])
		if got := apply(c[0], r, repl); got != c[1] {
			t.Fatalf("lineChange(%q, %q) = %v %q: gives %q", c[0], c[1], r, repl, got)
		}
		if r.Start.Character != 0 {
			t.Errorf("lineChange(%q, %q) starts inside a line: %v", c[0], c[1], r)
		}
	}
}
