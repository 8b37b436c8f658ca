package syntax

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestPositionBytes(t *testing.T) {
	f := NewFile("x", "ab\r\ncé\n\nz")
	cases := []struct {
		off  int
		want Position
	}{
		{0, Position{1, 1}}, {2, Position{1, 3}}, {4, Position{2, 1}}, {5, Position{2, 2}},
		{7, Position{2, 4}}, {8, Position{3, 1}}, {9, Position{4, 1}}, {10, Position{4, 2}},
		{-3, Position{1, 1}}, {99, Position{4, 2}},
	}
	for _, c := range cases {
		if got := f.Position(c.off); got != c.want {
			t.Errorf("Position(%d) = %v, want %v", c.off, got, c.want)
		}
	}
	if got := f.Line(0); got != "ab" {
		t.Errorf("Line(0) = %q, want %q (CR belongs to the terminator)", got, "ab")
	}
	if f.LineCount() != 4 || f.Line(2) != "" || f.Line(3) != "z" {
		t.Errorf("lines: count %d, %q %q", f.LineCount(), f.Line(2), f.Line(3))
	}
}

// TestUTF16RoundTrip checks the mapper against the standard library's UTF-16
// encoder on text with ASCII, two- and three-byte characters, an astral
// character (a surrogate pair) and invalid UTF-8.
func TestUTF16RoundTrip(t *testing.T) {
	src := "a😀b\néx\xffy\n€"
	f := NewFile("x", src)
	for off := 0; off <= len(src); off++ {
		if off < len(src) && !utf8.RuneStart(src[off]) {
			continue
		}
		p := f.UTF16(off)
		line := f.LineOf(off)
		prefix := src[f.LineStart(line):off]
		if want := len(utf16.Encode([]rune(prefix))); p.Character != want || p.Line != line {
			t.Errorf("UTF16(%d) = %+v, want line %d char %d", off, p, line, want)
		}
		if back := f.OffsetUTF16(p); back != off {
			t.Errorf("OffsetUTF16(UTF16(%d)) = %d", off, back)
		}
	}
	// Inside a surrogate pair maps to the start of the character.
	if got := f.OffsetUTF16(UTF16Pos{0, 2}); got != 1 {
		t.Errorf("middle of surrogate pair -> %d, want 1", got)
	}
	// Past the end of a line clamps to the line end; past the last line to EOF.
	if got := f.OffsetUTF16(UTF16Pos{0, 100}); got != f.LineEnd(0) {
		t.Errorf("clamp line: %d", got)
	}
	if got := f.OffsetUTF16(UTF16Pos{10, 0}); got != len(src) {
		t.Errorf("clamp file: %d", got)
	}
}

func TestUTF8Positions(t *testing.T) {
	f := NewFile("x", "é\nab")
	if p := f.UTF8Col(4); p != (UTF16Pos{1, 1}) {
		t.Errorf("UTF8Col = %+v", p)
	}
	if off := f.OffsetUTF8(UTF16Pos{1, 1}); off != 4 {
		t.Errorf("OffsetUTF8 = %d", off)
	}
}

func TestApplyEdits(t *testing.T) {
	got, err := ApplyEdits("hello world", []TextEdit{
		{Span: Sp(6, 11), NewText: "there"},
		{Span: Sp(0, 0), NewText: "> "},
		{Span: Sp(0, 5), NewText: "hi"},
	})
	if err != nil || got != "> hi there" {
		t.Fatalf("got %q, %v", got, err)
	}
	if _, err := ApplyEdits("abc", []TextEdit{{Span: Sp(0, 2)}, {Span: Sp(1, 3)}}); err == nil {
		t.Fatal("overlapping edits accepted")
	}
	if _, err := ApplyEdits("abc", []TextEdit{{Span: Sp(2, 9)}}); err == nil {
		t.Fatal("out-of-range edit accepted")
	}
}

func TestSeverityText(t *testing.T) {
	for _, s := range []Severity{SeverityError, SeverityWarning, SeverityInfo, SeverityHint} {
		b, _ := s.MarshalText()
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v round trip: %v %v", s, back, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("unknown severity accepted")
	}
}

func TestDiagnosticFormat(t *testing.T) {
	f := NewFile("q.pact", "ok\n  bad")
	d := Errorf(Sp(5, 8), "expected %s", "a type")
	if got, want := d.Format(f), "2:3: expected a type"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}

func FuzzMapper(f *testing.F) {
	f.Add("a😀b\néx\xffy\n€", 3, 1)
	f.Add("", 0, 0)
	f.Fuzz(func(t *testing.T, src string, line, char int) {
		fl := NewFile("x", src)
		off := fl.OffsetUTF16(UTF16Pos{line, char})
		if off < 0 || off > len(src) {
			t.Fatalf("offset %d outside [0,%d]", off, len(src))
		}
		p := fl.UTF16(off)
		if back := fl.OffsetUTF16(p); back != off {
			t.Fatalf("round trip %d -> %+v -> %d", off, p, back)
		}
	})
}

// TestOffsetRunes checks 1-based line and rune-column conversion, as YAML
// parsers report positions, and its clamping.
func TestOffsetRunes(t *testing.T) {
	f := NewFile("f", "ab\né😀x\r\nz")
	for _, c := range []struct{ line, col, want int }{
		{1, 1, 0}, {1, 3, 2}, {1, 9, 2}, // past the end: the newline
		{2, 1, 3}, {2, 2, 5}, {2, 3, 9}, {2, 4, 10}, {2, 9, 11}, // é is 2 bytes, 😀 4; "\r" is a column
		{3, 1, 12}, {4, 1, 13}, {0, 1, 0},
	} {
		if got := f.OffsetRunes(c.line, c.col); got != c.want {
			t.Errorf("OffsetRunes(%d, %d) = %d, want %d", c.line, c.col, got, c.want)
		}
	}
}
