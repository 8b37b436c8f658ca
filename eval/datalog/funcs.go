package datalog

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// errNoValue is what a function returns when it has no value for its
// arguments (a text that parse::<T> cannot read): the binding it was
// computed for is dropped, so the rule does not fire for it.
var errNoValue = errors.New("no value")

// call computes a function on text and numbers (see syn.Functions).
func (ev *evaluator) call(x *cexpr, row []uint32) (string, error) {
	vals := make([]string, len(x.args))
	for i, a := range x.args {
		v, err := ev.eval(a, row)
		if err != nil {
			return "", err
		}
		vals[i] = v
	}
	switch x.op {
	case "format!":
		var b strings.Builder
		for i, piece := range x.pieces {
			b.WriteString(piece)
			if i+1 < len(x.pieces) {
				b.WriteString(vals[i+1])
			}
		}
		return b.String(), nil
	case "len":
		return strconv.Itoa(len(vals[0])), nil
	case "contains":
		return strconv.FormatBool(strings.Contains(vals[0], vals[1])), nil
	case "starts_with":
		return strconv.FormatBool(strings.HasPrefix(vals[0], vals[1])), nil
	case "ends_with":
		return strconv.FormatBool(strings.HasSuffix(vals[0], vals[1])), nil
	case "to_lowercase":
		return strings.ToLower(vals[0]), nil
	case "to_uppercase":
		return strings.ToUpper(vals[0]), nil
	case "to_string":
		return vals[0], nil
	case "min", "max":
		c := syn.CompareValues(vals[0], vals[1], true)
		if (x.op == "min") == (c <= 0) {
			return vals[0], nil
		}
		return vals[1], nil
	case "abs":
		n, err := asNumber(vals[0], x.args[0].sp, "abs")
		if err != nil {
			return "", err
		}
		if !n.isInt {
			return new(big.Rat).Abs(n.r).FloatString(0), nil
		}
		if n.i == math.MinInt64 {
			return "", &ExprError{Span: x.sp, Msg: fmt.Sprintf("arithmetic overflow: %d.abs() exceeds 64-bit integers", n.i)}
		}
		if n.i < 0 {
			n.i = -n.i
		}
		return strconv.FormatInt(n.i, 10), nil
	case "pow":
		return ev.pow(x, vals)
	case "parse":
		return parseInteger(vals[0], x.typ)
	}
	return "", fmt.Errorf("internal: unknown function %s", x.op)
}

// pow computes an integer power as Rust's i64::pow does, with overflow
// an error (where a Rust debug build panics).
func (ev *evaluator) pow(x *cexpr, vals []string) (string, error) {
	b, err := asNumber(vals[0], x.args[0].sp, "pow")
	if err != nil {
		return "", err
	}
	e, err := asNumber(vals[1], x.args[1].sp, "pow")
	if err != nil {
		return "", err
	}
	if !b.isInt || !e.isInt {
		return "", &ExprError{Span: x.sp, Msg: fmt.Sprintf("pow takes integers: %s.pow(%s)", vals[0], vals[1])}
	}
	if e.i < 0 || e.i > math.MaxUint32 {
		return "", &ExprError{Span: x.args[1].sp, Msg: fmt.Sprintf("the exponent of pow is not a u32: %d", e.i)}
	}
	r := new(big.Int).Exp(big.NewInt(b.i), big.NewInt(min(e.i, 64)), nil)
	if e.i > 64 && b.i != 0 && b.i != 1 && b.i != -1 {
		r = nil // |b| >= 2: beyond 2^64
	} else if e.i > 64 && b.i == -1 && e.i%2 == 1 {
		r = big.NewInt(-1)
	}
	if r == nil || !r.IsInt64() {
		return "", &ExprError{Span: x.sp, Msg: fmt.Sprintf("arithmetic overflow: %s.pow(%s) exceeds 64-bit integers", vals[0], vals[1])}
	}
	return r.String(), nil
}

// intRange gives the least and greatest value of a Rust integer type.
func intRange(t string) (lo, hi *big.Int) {
	bitsOf := map[string]uint{"i8": 8, "i16": 16, "i32": 32, "i64": 64, "i128": 128, "isize": 64,
		"u8": 8, "u16": 16, "u32": 32, "u64": 64, "u128": 128, "usize": 64}
	n := bitsOf[t]
	one := big.NewInt(1)
	if strings.HasPrefix(t, "u") {
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(one, n), one)
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(one, n-1), one)
	return new(big.Int).Neg(new(big.Int).Lsh(one, n-1)), hi
}

// parseInteger reads s as Rust's str::parse::<T> reads an integer: an
// optional "+" (or "-" for a signed T) then ASCII digits, within T's
// range. Anything else has no value.
func parseInteger(s, t string) (string, error) {
	digits := s
	neg := false
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if digits == "" || neg && strings.HasPrefix(t, "u") {
		return "", errNoValue
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", errNoValue
		}
	}
	v, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return "", errNoValue
	}
	if neg {
		v.Neg(v)
	}
	lo, hi := intRange(t)
	if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
		return "", errNoValue
	}
	return v.String(), nil
}
