package datalog

import (
	"strconv"
	"strings"
)

// CompareValues compares two values the way a condition does: as numbers
// when numeric is set (an operand is a number literal or a variable of a
// numeric type) and both parse as numbers, otherwise bytewise. It returns
// -1, 0 or 1.
func CompareValues(l, r string, numeric bool) int {
	if numeric {
		x, err1 := strconv.ParseFloat(l, 64)
		y, err2 := strconv.ParseFloat(r, 64)
		if err1 == nil && err2 == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	return strings.Compare(l, r)
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
