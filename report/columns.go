package report

import (
	"unicode/utf8"

	"github.com/ctxql/ctxql/syntax"
)

// columnStep is the distance, in bytes, between two checkpoints of a long
// line's column index.
const columnStep = 256

// columns converts byte offsets to columns counted in characters or in
// UTF-16 code units, at a cost bounded by columnStep per offset however long
// the line: a one-line file with 100,000 findings would otherwise be
// scanned from its start for each of them. The checkpoints of a line are
// built once, when an offset in it is first asked for.
type columns struct {
	f     *syntax.File
	index map[int][]checkpoint // by 0-based line
}

// checkpoint is the count of characters and of UTF-16 code units from the
// start of a line to a character boundary.
type checkpoint struct {
	off, runes, units int
}

func newColumns(f *syntax.File) *columns {
	return &columns{f: f, index: map[int][]checkpoint{}}
}

// at returns the 0-based line of off and the 0-based counts of characters
// and of UTF-16 code units before it on that line. An offset inside a
// multi-byte character counts up to the start of that character; each byte
// of an invalid sequence is one character and one code unit, as
// syntax.File.UTF16 counts them.
func (c *columns) at(off int) (line, runes, units int) {
	src := c.f.Text()
	off = min(max(off, 0), len(src))
	line = c.f.LineOf(off)
	start := c.f.LineStart(line)
	cp := checkpoint{off: start}
	if off-start > columnStep {
		cps, ok := c.index[line]
		if !ok {
			cps = c.build(start, c.f.LineEnd(line))
			c.index[line] = cps
		}
		// The last checkpoint at or before off.
		lo, hi := 0, len(cps)
		for lo < hi {
			m := (lo + hi) / 2
			if cps[m].off <= off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo > 0 {
			cp = cps[lo-1]
		}
	}
	runes, units = cp.runes, cp.units
	for i := cp.off; i < off; {
		r, size := utf8.DecodeRuneInString(src[i:])
		if i+size > off {
			break
		}
		runes++
		units += utf16Len(r)
		i += size
	}
	return line, runes, units
}

// build records a checkpoint at the first character boundary at or after
// every columnStep bytes of the line [start, end).
func (c *columns) build(start, end int) []checkpoint {
	src := c.f.Text()
	var cps []checkpoint
	runes, units, next := 0, 0, start+columnStep
	for i := start; i < end; {
		if i >= next {
			cps = append(cps, checkpoint{i, runes, units})
			next = i + columnStep
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		runes++
		units += utf16Len(r)
		i += size
	}
	return cps
}

// utf16Len is the number of UTF-16 code units that encode r.
func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
