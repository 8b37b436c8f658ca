package syntax

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// File is a source text with a line index. It is the single place where byte
// offsets are converted to line/column positions, in bytes or in UTF-16 code
// units. A File is immutable and safe for concurrent use.
type File struct {
	name  string
	src   string
	lines []int // byte offset of the start of each line
}

// NewFile indexes src. Lines end at "\n"; a "\r" before it belongs to the line.
func NewFile(name, src string) *File {
	lines := make([]int, 1, 1+strings.Count(src, "\n"))
	for i := 0; ; {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		lines = append(lines, i)
	}
	return &File{name: name, src: src, lines: lines}
}

// Name returns the file name given to NewFile.
func (f *File) Name() string { return f.name }

// Text returns the whole source text.
func (f *File) Text() string { return f.src }

// Len returns the size of the source in bytes.
func (f *File) Len() int { return len(f.src) }

// Slice returns the text covered by s, clamped to the file.
func (f *File) Slice(s Span) string {
	s = f.Clamp(s)
	return f.src[s.Start:s.End]
}

// Clamp limits s to the bounds of the file.
func (f *File) Clamp(s Span) Span {
	n := len(f.src)
	s.Start = min(max(s.Start, 0), n)
	s.End = min(max(s.End, s.Start), n)
	return s
}

// LineCount returns the number of lines; an empty file has one line.
func (f *File) LineCount() int { return len(f.lines) }

// LineStart returns the byte offset at which 0-based line starts.
func (f *File) LineStart(line int) int {
	if line < 0 {
		return 0
	}
	if line >= len(f.lines) {
		return len(f.src)
	}
	return f.lines[line]
}

// LineEnd returns the byte offset of the end of 0-based line, excluding the
// line terminator ("\n" or "\r\n").
func (f *File) LineEnd(line int) int {
	if line < 0 {
		return 0
	}
	end := len(f.src)
	if line+1 < len(f.lines) {
		end = f.lines[line+1] - 1
		if end > f.lines[line] && f.src[end-1] == '\r' {
			end--
		}
	}
	if line >= len(f.lines) {
		return len(f.src)
	}
	return end
}

// Line returns the text of 0-based line without its terminator.
func (f *File) Line(line int) string {
	return f.src[f.LineStart(line):f.LineEnd(line)]
}

// LineOf returns the 0-based line containing byte offset off (clamped).
func (f *File) LineOf(off int) int {
	off = min(max(off, 0), len(f.src))
	return sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
}

// Position is a 1-based line and a 1-based column counted in bytes, the form
// used in command-line messages ("line:col: message").
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// String formats the position as "line:col".
func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// Position converts a byte offset to a 1-based line and byte column.
func (f *File) Position(off int) Position {
	off = min(max(off, 0), len(f.src))
	l := f.LineOf(off)
	return Position{Line: l + 1, Column: off - f.lines[l] + 1}
}

// UTF16Pos is a 0-based line and a 0-based character offset counted in UTF-16
// code units, as the Language Server Protocol requires by default.
type UTF16Pos struct {
	Line      int
	Character int
}

// UTF16 converts a byte offset to an LSP position in UTF-16 code units. An
// offset inside a multi-byte character maps to the start of that character;
// each byte of an invalid UTF-8 sequence counts as one code unit (it decodes
// to U+FFFD).
func (f *File) UTF16(off int) UTF16Pos {
	off = min(max(off, 0), len(f.src))
	l := f.LineOf(off)
	start := f.lines[l]
	n := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRuneInString(f.src[i:])
		if i+size > off {
			break
		}
		n += utf16Len(r)
		i += size
	}
	return UTF16Pos{Line: l, Character: n}
}

// OffsetUTF16 converts an LSP position in UTF-16 code units to a byte offset.
// Positions past the end of a line clamp to the line end; lines past the end
// of the file clamp to the end of the file. A position in the middle of a
// surrogate pair maps to the start of that character.
func (f *File) OffsetUTF16(p UTF16Pos) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(f.lines) {
		return len(f.src)
	}
	i, end := f.lines[p.Line], f.LineEnd(p.Line)
	for n := 0; i < end; {
		r, size := utf8.DecodeRuneInString(f.src[i:])
		w := utf16Len(r)
		if n+w > p.Character {
			break
		}
		n += w
		i += size
	}
	return i
}

// OffsetRunes converts a 1-based line and a 1-based column counted in
// characters (runes), as YAML and other parsers report them, to a byte
// offset. Columns past the end of a line clamp to its newline; lines past
// the end of the file clamp to the end of the file.
func (f *File) OffsetRunes(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(f.lines) {
		return len(f.src)
	}
	off := f.lines[line-1]
	for i := 1; i < col && off < len(f.src) && f.src[off] != '\n'; i++ {
		_, n := utf8.DecodeRuneInString(f.src[off:])
		off += n
	}
	return off
}

// UTF8Col converts a byte offset to an LSP position whose character is counted
// in bytes, for clients that negotiated the UTF-8 position encoding.
func (f *File) UTF8Col(off int) UTF16Pos {
	p := f.Position(off)
	return UTF16Pos{Line: p.Line - 1, Character: p.Column - 1}
}

// OffsetUTF8 converts an LSP position counted in bytes to a byte offset,
// clamped to the line.
func (f *File) OffsetUTF8(p UTF16Pos) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(f.lines) {
		return len(f.src)
	}
	return min(f.lines[p.Line]+max(p.Character, 0), f.LineEnd(p.Line))
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
