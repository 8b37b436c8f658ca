package datalog

import "strings"

// Tuple values. A tuple is one value of a column, written as Ascent
// (Rust's Debug) prints it: "(1, 2)", "(\"a\", (1, 2))", "(7,)" for one
// element. Values carry no type, so an element is written bare when it
// reads as a number, a boolean or a tuple, and quoted otherwise; the
// text is a function of the elements, so equal tuples are equal values.

// EncodeTuple returns the value of the tuple of elems.
func EncodeTuple(elems []string) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		if bareElement(e) {
			b.WriteString(e)
		} else {
			b.WriteString(Quote(e))
		}
	}
	if len(elems) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// bareElement reports whether an element is written without quotes: a
// plain decimal number, a boolean, or a tuple value.
func bareElement(e string) bool {
	if e == "true" || e == "false" {
		return true
	}
	if isPlainNumber(e) {
		return true
	}
	if strings.HasPrefix(e, "(") {
		elems, ok := DecodeTuple(e)
		return ok && EncodeTuple(elems) == e
	}
	return false
}

// isPlainNumber reports whether s is "-?digits(.digits)?".
func isPlainNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	int, frac, dot := strings.Cut(s, ".")
	digits := func(x string) bool {
		if x == "" {
			return false
		}
		for i := 0; i < len(x); i++ {
			if x[i] < '0' || x[i] > '9' {
				return false
			}
		}
		return true
	}
	return digits(int) && (!dot || digits(frac))
}

// DecodeTuple returns the elements of a tuple value, and false when v
// is not one.
func DecodeTuple(v string) ([]string, bool) {
	if len(v) < 2 || v[0] != '(' || v[len(v)-1] != ')' {
		return nil, false
	}
	body := v[1 : len(v)-1]
	var out []string
	i := 0
	for i < len(body) {
		var elem string
		switch body[i] {
		case '"':
			j := i + 1
			for j < len(body) && body[j] != '"' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(body) {
				return nil, false
			}
			s, ok := Unquote(body[i : j+1])
			if !ok {
				return nil, false
			}
			elem, i = s, j+1
		case '(':
			depth, j, inStr := 0, i, false
			for ; j < len(body); j++ {
				c := body[j]
				switch {
				case inStr && c == '\\':
					j++
				case c == '"':
					inStr = !inStr
				case !inStr && c == '(':
					depth++
				case !inStr && c == ')':
					depth--
				}
				if depth == 0 {
					break
				}
			}
			if j >= len(body) {
				return nil, false
			}
			elem, i = body[i:j+1], j+1
		default:
			j := strings.IndexByte(body[i:], ',')
			if j < 0 {
				j = len(body) - i
			}
			elem, i = body[i:i+j], i+j
			if elem == "" {
				return nil, false
			}
		}
		out = append(out, elem)
		if i == len(body) {
			break
		}
		if !strings.HasPrefix(body[i:], ",") {
			return nil, false
		}
		i++
		if i == len(body) {
			if len(out) != 1 {
				return nil, false
			}
			break
		}
		if body[i] != ' ' {
			return nil, false
		}
		i++
	}
	if len(out) == 0 || len(out) == 1 && !strings.HasSuffix(body, ",") {
		return nil, false
	}
	return out, true
}

// IsTupleType reports whether a type name is a tuple type "(T1, T2)".
func IsTupleType(t string) bool { return strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") }

// TupleTypes returns the element types of a tuple type "(T1, (T2, T3))",
// split at its top-level commas; nil when t is not a tuple type.
func TupleTypes(t string) []string {
	if !IsTupleType(t) {
		return nil
	}
	body := t[1 : len(t)-1]
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(body[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

// tupleTypeName writes a tuple type of the element types.
func tupleTypeName(elems []string) string {
	s := "(" + strings.Join(elems, ", ")
	if len(elems) == 1 {
		s += ","
	}
	return s + ")"
}

// PatternVars calls f with each variable of a tuple pattern (nested
// tuples included), or with t itself when it is a variable.
func PatternVars(t *Term, f func(*Term)) {
	switch t.Kind {
	case Var:
		f(t)
	case Tuple:
		for _, e := range t.Elems {
			PatternVars(e, f)
		}
	}
}
