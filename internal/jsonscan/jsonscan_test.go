package jsonscan

import (
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestStrAgreesWithEncodingJSON compares Str with encoding/json on strings
// with escapes, non-ASCII text, invalid UTF-8 and malformed input.
func TestStrAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`"plain"`, `""`, `"a\"b"`, `"tab\tnew\nline"`, `"\u00e9\ud83d\ude00"`, "\"é😀\"",
		"\"bad\xffutf8\"", `"\x"`, `"unterminated`, "\"ctl\x01\"", `"\ud800"`,
	} {
		var want string
		werr := json.Unmarshal([]byte(in), &want)
		s := &Scanner{S: in}
		got, err := s.Str()
		if (err != nil) != (werr != nil) {
			t.Errorf("%q: err %v, encoding/json %v", in, err, werr)
			continue
		}
		if err == nil && (got != want || s.I != len(in)) {
			t.Errorf("%q: %q at %d, want %q at %d", in, got, s.I, want, len(in))
		}
	}
}

// TestStructure scans nested objects and arrays and reports errors with
// their byte and the prefix.
func TestStructure(t *testing.T) {
	s := &Scanner{S: ` { "a" : [1 , 2] , "b": {} } `}
	var keys []string
	n := 0
	err := s.Object(func(k string) error {
		keys = append(keys, k)
		if k == "a" {
			return s.Array(func(int) error { n++; s.Peek(); s.I++; return nil })
		}
		return s.Object(func(string) error { return nil })
	})
	if err != nil || strings.Join(keys, ",") != "a,b" || n != 2 {
		t.Fatalf("keys %v, %d elements, err %v", keys, n, err)
	}
	bad := &Scanner{S: `{"a" 1}`, Prefix: "invalid data: "}
	err = bad.Object(func(string) error { return nil })
	if err == nil || err.Error() != `invalid data: at byte 5: unexpected '1', expected ':'` {
		t.Errorf("err = %v", err)
	}
	end := &Scanner{S: `[1,`}
	err = end.Array(func(int) error {
		if end.Peek() == 0 {
			return end.Unexpected("a value")
		}
		end.I++
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "unexpected end of input") {
		t.Errorf("err = %v", err)
	}
}

// TestNumberAgreesWithEncodingJSON checks Number against encoding/json:
// an input that is a JSON number is scanned whole, and an input Number
// scans whole is a JSON number.
func TestNumberAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{"0", "-0", "01", "1.", "1.5", "1.5e", "1e+5", "1E-05", "-", "-a", "1.0E-3", ".5", "+1", "1e", "123abc",
		"9007199254740993", "-12.50e+12", "0.", "0e", "00", "1.e3", "2e3.5"} {
		s := &Scanner{S: in}
		text, err := s.Number()
		whole := err == nil && text == in
		if valid := json.Valid([]byte(in)); valid != whole {
			t.Errorf("%q: Number gives %q, %v; encoding/json says valid=%v", in, text, err, valid)
		}
		if err == nil && !json.Valid([]byte(text)) {
			t.Errorf("%q: Number scanned %q, not a JSON number", in, text)
		}
	}
}

// TestPlain8 checks the eight-byte test against the byte-by-byte one for
// every byte value at every position.
func TestPlain8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	base := []byte("abcdefgh")
	for pos := range 8 {
		for c := range 256 {
			b := append([]byte(nil), base...)
			b[pos] = byte(c)
			if got, want := plain8(string(b)), plain(byte(c)); got != want {
				t.Fatalf("plain8(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

// TestSpecial8 checks that special8 finds the first byte that is not
// plain: every byte value at every position after plain bytes, followed
// by every byte value (a special byte after the first must not move it),
// and random words of bytes drawn mostly from the edges of the ranges.
func TestSpecial8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	first := func(b []byte) int {
		for i, c := range b {
			if !plain(c) {
				return i
			}
		}
		return 8
	}
	got := func(b []byte) int {
		m := special8(string(b))
		if m == 0 {
			return 8
		}
		return bits.TrailingZeros64(m) / 8
	}
	for pos := range 8 {
		for c := range 256 {
			for d := range 256 {
				b := []byte("abcdefgh")
				b[pos] = byte(c)
				if pos < 7 {
					b[7] = byte(d)
				} else if d > 0 {
					break
				}
				if g, w := got(b), first(b); g != w {
					t.Fatalf("special8(%q): first at %d, want %d", b, g, w)
				}
			}
		}
	}
	edges := []byte{0, 1, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7e, 0x7f, 0x80, 0x81, 0xdf, 0xe0, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		b := make([]byte, 8)
		for i := range b {
			b[i] = edges[rng.IntN(len(edges))]
			if rng.IntN(3) == 0 {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		if g, w := got(b), first(b); g != w {
			t.Fatalf("special8(%q): first at %d, want %d", b, g, w)
		}
	}
}

// TestStrUnterminated checks that a string cut off after a multiple of
// eight plain bytes is reported, not read past the input.
func TestStrUnterminated(t *testing.T) {
	for n := range 20 {
		s := &Scanner{S: `"` + strings.Repeat("a", n)}
		if _, err := s.Str(); err == nil || !strings.Contains(err.Error(), "unterminated string") {
			t.Fatalf("%d bytes: error %v, want unterminated string", n, err)
		}
	}
}

// TestPlainStr checks that PlainStr reads what Str reads wherever it
// accepts a string, and refuses escapes, control bytes, non-ASCII text
// and unterminated strings.
func TestPlainStr(t *testing.T) {
	for _, tc := range []struct {
		src   string
		plain bool
	}{
		{`""`, true}, {`"abc"`, true}, {`"{ p12 | serv!(req) }",`, true}, {`"0123456789abcdefghij"]`, true},
		{`"a\"b"`, false}, {`"a\\b"`, false}, {"\"tab\there\"", false}, {`"é"`, false},
		{`"0123456789abcdef\u0041"`, false}, {`"unterminated`, false}, {`"01234567`, false},
	} {
		p := &Scanner{S: tc.src}
		got, ok := p.PlainStr()
		if ok != tc.plain {
			t.Errorf("PlainStr(%s): ok = %v, want %v", tc.src, ok, tc.plain)
			continue
		}
		if !ok {
			continue
		}
		s := &Scanner{S: tc.src}
		want, err := s.Str()
		if err != nil || got != want || p.I != s.I {
			t.Errorf("PlainStr(%s) = %q at %d; Str = %q at %d (%v)", tc.src, got, p.I, want, s.I, err)
		}
	}
}
