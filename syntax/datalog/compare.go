package datalog

import (
	"strings"
)

// CompareValues compares two values the way a condition does: as numbers
// when numeric is set (an operand is a number literal or a variable of a
// numeric type) and both values are plain decimal numbers (see
// ParseDecimal), otherwise bytewise. Numbers compare exactly, by value:
// "1e400" is greater than "9", "0.10" equals "0.1" and "-0" equals "0";
// nothing is rounded to a float. It returns -1, 0 or 1.
func CompareValues(l, r string, numeric bool) int {
	if numeric {
		x, ok1 := ParseDecimal(l)
		y, ok2 := ParseDecimal(r)
		if ok1 && ok2 {
			return x.Cmp(y)
		}
	}
	return strings.Compare(l, r)
}

// Decimal is an exact decimal number: (-1)^Neg × 0.Digits × 10^Exp, with
// Digits free of leading and trailing zeros; zero has no digits.
type Decimal struct {
	Neg    bool
	Digits string
	Exp    int64
}

// maxExpDigits bounds the exponent of a numeric value; a value with a
// longer exponent is not a number (it compares as a string).
const maxExpDigits = 15

// ParseDecimal parses a plain decimal number: an optional "-", one or
// more ASCII digits, an optional fraction "." followed by one or more
// digits, and an optional exponent "e" or "E", an optional sign and one to
// 15 digits. Nothing else is a number: not "+5", "inf", "NaN", "0x10",
// "1_0", ".5", "5." nor surrounding spaces.
func ParseDecimal(s string) (Decimal, bool) {
	var d Decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.Neg = true
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[intStart:i]
	if intPart == "" {
		return Decimal{}, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return Decimal{}, false
		}
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			exp = exp*10 + int64(s[i]-'0')
			i++
		}
		if i == es || i-es > maxExpDigits {
			return Decimal{}, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return Decimal{}, false
	}
	// Digits of intPart+frac without leading zeros; the point sits after
	// len(intPart) digits.
	all := intPart + frac
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	trail := len(all)
	for trail > lead && all[trail-1] == '0' {
		trail--
	}
	if lead == trail {
		return Decimal{}, true // zero, whatever its sign
	}
	d.Digits = all[lead:trail]
	d.Exp = exp + int64(len(intPart)) - int64(lead)
	return d, true
}

// Cmp compares d and e by value and returns -1, 0 or 1.
func (d Decimal) Cmp(e Decimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	mag := 0
	switch {
	case d.Exp < e.Exp:
		mag = -1
	case d.Exp > e.Exp:
		mag = 1
	default:
		mag = strings.Compare(d.Digits, e.Digits)
	}
	return mag * ds
}

func (d Decimal) sign() int {
	switch {
	case d.Digits == "":
		return 0
	case d.Neg:
		return -1
	}
	return 1
}

// Holds reports whether a comparison result cmp satisfies the condition
// operator op ("==", "!=", "<", "<=", ">", ">="); ok is false for any other
// operator.
func Holds(op string, cmp int) (holds, ok bool) {
	switch op {
	case "==":
		return cmp == 0, true
	case "!=":
		return cmp != 0, true
	case "<":
		return cmp < 0, true
	case "<=":
		return cmp <= 0, true
	case ">":
		return cmp > 0, true
	case ">=":
		return cmp >= 0, true
	}
	return false, false
}

// NumericType reports whether values of a declared parameter type
// compare as numbers in conditions: the integer and float types of Rust
// and the names Int, Integer, Float and Number, in any case, also inside
// a lattice's Dual<T>.
func NumericType(t string) bool {
	if inner, ok := strings.CutPrefix(t, "Dual<"); ok && strings.HasSuffix(inner, ">") {
		t = strings.TrimSuffix(inner, ">")
	}
	switch strings.ToLower(t) {
	case "int", "integer", "float", "number", "i8", "i16", "i32", "i64", "i128", "isize",
		"u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64":
		return true
	}
	return false
}
