package pact

import (
	"math"
	"strconv"
	"testing"
)

// TestSmallIntMatchesParseFloat checks the parser's fast path for integers
// against strconv.ParseFloat, signs and negative zero included.
func TestSmallIntMatchesParseFloat(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "7", "-7", "+7", "007", "123456789012345", "-999999999999999",
		"1234567890123456", "1.5", "-", "+", "", "1e3", "12a", "9007199254740993"} {
		got, ok := smallInt(s)
		want, err := strconv.ParseFloat(s, 64)
		if !ok {
			continue // the parser falls back to ParseFloat
		}
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("smallInt(%q) = %v (bits %x), ParseFloat = %v, %v (bits %x)", s, got, math.Float64bits(got), want, err, math.Float64bits(want))
		}
	}
	for _, s := range []string{"1.5", "1234567890123456", "-", "", "1e3"} {
		if _, ok := smallInt(s); ok {
			t.Errorf("smallInt(%q) takes text it should leave to ParseFloat", s)
		}
	}
}

// FuzzSmallInt checks the fast path against strconv.ParseFloat on any text.
func FuzzSmallInt(f *testing.F) {
	f.Add("-0")
	f.Add("123")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := smallInt(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("smallInt(%q) = %v, ParseFloat = %v, %v", s, got, want, err)
		}
	})
}
