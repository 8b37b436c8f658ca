// Package jsonscan holds the JSON scanning that ctxql's data loaders
// share: whitespace, expected bytes, objects and arrays, strings, numbers,
// and the position-carrying errors. Each loader embeds a Scanner and adds
// what is its own (how deep values may nest, what it builds while it
// scans).
package jsonscan

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// A Scanner reads the JSON text S from byte I on.
type Scanner struct {
	S string
	I int
	// Prefix starts every error message ("invalid data: ").
	Prefix string
	// Ctx, when set, is the context Check looks at; nil is never done.
	Ctx context.Context

	next int // the byte at which Check looks at Ctx again
}

// CheckEvery is the number of bytes a loader scans between two looks at
// its context: a fraction of a millisecond of scanning, a few
// milliseconds for a loader that interns every value it meets, so that a
// cancelled load stops within milliseconds while the looks cost nothing
// measurable.
const CheckEvery = 64 << 10

// Check returns the error of the scanner's context once it is done,
// looking at it only when the scanner has moved CheckEvery bytes past its
// previous look (and at its first call). Loaders call it once per unit of
// work (a node, a tuple) so that the gap between two looks is bounded by
// CheckEvery bytes plus one unit. The error wraps the context's
// (context.Canceled or context.DeadlineExceeded).
func (s *Scanner) Check() error {
	if s.I < s.next {
		return nil
	}
	return s.check()
}

func (s *Scanner) check() error {
	s.next = s.I + CheckEvery
	if s.Ctx == nil {
		return nil
	}
	if err := s.Ctx.Err(); err != nil {
		return fmt.Errorf("loading stopped at byte %d: %w", s.I, err)
	}
	return nil
}

// Errorf returns an error at the current byte.
func (s *Scanner) Errorf(format string, args ...any) error {
	return fmt.Errorf("%sat byte %d: %s", s.Prefix, s.I, fmt.Sprintf(format, args...))
}

// Peek skips whitespace and returns the next byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	for s.I < len(s.S) {
		switch c := s.S[s.I]; c {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return c
		}
	}
	return 0
}

// Expect consumes the byte c after any whitespace, or fails.
func (s *Scanner) Expect(c byte) error {
	if s.Peek() != c {
		return s.Unexpected(fmt.Sprintf("%q", c))
	}
	s.I++
	return nil
}

// Unexpected reports the byte at the current position (or the end of the
// input) where want was expected.
func (s *Scanner) Unexpected(want string) error {
	if s.I >= len(s.S) {
		return s.Errorf("unexpected end of input, expected %s", want)
	}
	return s.Errorf("unexpected %q, expected %s", s.S[s.I], want)
}

// Object scans an object's members, calling member for each key with the
// scanner before its value.
func (s *Scanner) Object(member func(key string) error) error {
	if err := s.Expect('{'); err != nil {
		return err
	}
	if s.Peek() == '}' {
		s.I++
		return nil
	}
	for {
		if s.Peek() != '"' {
			return s.Unexpected("a string key")
		}
		key, err := s.Str()
		if err != nil {
			return err
		}
		if err := s.Expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.I++
		case '}':
			s.I++
			return nil
		default:
			return s.Unexpected(`"," or "}"`)
		}
	}
}

// Array scans an array's elements, calling elem with each index and the
// scanner before the element.
func (s *Scanner) Array(elem func(i int) error) error {
	if err := s.Expect('['); err != nil {
		return err
	}
	if s.Peek() == ']' {
		s.I++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.I++
		case ']':
			s.I++
			return nil
		default:
			return s.Unexpected(`"," or "]"`)
		}
	}
}

// Str scans a string, the scanner at its opening quote, and returns its
// value: a substring of the input when it has no escapes and is valid
// UTF-8, decoded by encoding/json otherwise (whose treatment of escapes and
// invalid UTF-8 is the reference).
func (s *Scanner) Str() (string, error) {
	start := s.I
	s.I++
	simple := true
	for s.I < len(s.S) {
		// Skip eight plain bytes at a time: none a quote, a backslash, a
		// control byte or part of a multi-byte character.
		for s.I+8 <= len(s.S) && plain8(s.S[s.I:s.I+8]) {
			s.I += 8
		}
		if s.I >= len(s.S) {
			break
		}
		c := s.S[s.I]
		switch {
		case c == '"':
			s.I++
			if simple {
				return s.S[start+1 : s.I-1], nil
			}
			var out string
			if err := json.Unmarshal([]byte(s.S[start:s.I]), &out); err != nil {
				s.I = start
				return "", s.Errorf("invalid string: %v", err)
			}
			return out, nil
		case c == '\\':
			simple = false
			s.I += 2
		case c < 0x20:
			return "", s.Errorf("control character in string")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s.S[s.I:])
			if r == utf8.RuneError && size == 1 {
				simple = false
			}
			s.I += size
		default:
			s.I++
		}
	}
	s.I = start
	return "", s.Errorf("unterminated string")
}

// Number scans a JSON number, the scanner at its first byte, and returns
// its text.
func (s *Scanner) Number() (string, error) {
	start, src, i := s.I, s.S, s.I
	digits := func() {
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	isDigit := func() bool { return i < len(src) && src[i] >= '0' && src[i] <= '9' }
	if i < len(src) && src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case isDigit():
		digits()
	default:
		s.I = i
		return "", s.Unexpected("a digit")
	}
	if i < len(src) && src[i] == '.' {
		i++
		if !isDigit() {
			s.I = i
			return "", s.Unexpected("a digit after the decimal point")
		}
		digits()
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if !isDigit() {
			s.I = i
			return "", s.Unexpected("a digit in the exponent")
		}
		digits()
	}
	s.I = i
	return src[start:i], nil
}

// PlainStr scans a string at the current byte (a quote) whose bytes are
// all printable ASCII without escapes, and returns it. It returns false,
// and leaves the position unspecified, for any other string: Str reads
// those.
func (s *Scanner) PlainStr() (string, bool) {
	i := s.I + 1
	for i+8 <= len(s.S) {
		m := specialWord(Word8(s.S[i:]))
		if m == 0 {
			i += 8
			continue
		}
		// The first byte that is not plain ends the string when it is
		// the quote.
		i += bits.TrailingZeros64(m) / 8
		if s.S[i] != '"' {
			return "", false
		}
		v := s.S[s.I+1 : i]
		s.I = i + 1
		return v, true
	}
	for ; i < len(s.S); i++ {
		switch c := s.S[i]; {
		case c == '"':
			v := s.S[s.I+1 : i]
			s.I = i + 1
			return v, true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return "", false
		}
	}
	return "", false
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 marks, with the high bit of its byte, the first of the 8 bytes
// of b (in memory order) that is a quote, a backslash, below 0x20 or at or
// above 0x80, and 0 when there is none. Bytes after the first may be
// marked or not: a borrow of the subtractions below runs from a byte that
// is below the bound to the bytes after it, never to those before it.
func special8(b string) uint64 {
	return specialWord(Word8(b))
}

// specialWord is special8 of the little-endian word w.
func specialWord(w uint64) uint64 {
	q := w ^ ('"' * ones)
	bs := w ^ ('\\' * ones)
	return (w | (w-0x20*ones)&^w | (q-ones)&^q | (bs-ones)&^bs) & highs
}

// Word8 returns the first 8 bytes of b (at least 8) as a little-endian
// word, in one load.
func Word8(b string) uint64 {
	b = b[:8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// plain8 reports whether none of the 8 bytes of b is a quote, a
// backslash, below 0x20 or at or above 0x80.
func plain8(b string) bool {
	return specialWord(Word8(b)) == 0
}
