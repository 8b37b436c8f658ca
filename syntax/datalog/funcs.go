package datalog

import "strings"

// Function describes a function on text and numbers that a rule may
// call, as Ascent (Rust) programs call it: a method of its receiver, or
// the macro format!.
type Function struct {
	// Name is the method's name, or "format!".
	Name string `json:"name"`
	// Args is the number of arguments after the receiver; -1 for
	// format!, which takes one per "{}" of its format string.
	Args int `json:"args"`
	// Recv says what the receiver is: "text", "number", "any", or ""
	// for the macro.
	Recv string `json:"recv"`
	// Result is the result's type: a type name, or "Self" for the
	// receiver's type.
	Result string `json:"result"`
	// Doc is one sentence on what it computes.
	Doc string `json:"doc"`
}

// Functions lists the callable functions, by name.
var Functions = []Function{
	{Name: "abs", Args: 0, Recv: "number", Result: "Self", Doc: "the absolute value; the least 64-bit integer has none (an overflow error)"},
	{Name: "contains", Args: 1, Recv: "text", Result: "bool", Doc: "whether the text contains the argument's text"},
	{Name: "ends_with", Args: 1, Recv: "text", Result: "bool", Doc: "whether the text ends with the argument's text"},
	{Name: "format!", Args: -1, Recv: "", Result: "String", Doc: "the format string with each {} replaced by the next argument's value ({{ and }} are braces)"},
	{Name: "len", Args: 0, Recv: "text", Result: "usize", Doc: "the length of the text in bytes of UTF-8, as Rust's str::len"},
	{Name: "max", Args: 1, Recv: "any", Result: "Self", Doc: "the greater of the receiver and the argument (numbers compared as numbers)"},
	{Name: "min", Args: 1, Recv: "any", Result: "Self", Doc: "the lesser of the receiver and the argument (numbers compared as numbers)"},
	{Name: "parse", Args: 0, Recv: "text", Result: "T", Doc: "the text read as an integer of type T (parse::<T>, T one of i8…i128, u8…u128, isize, usize): an optional sign then decimal digits, within T's range; otherwise the rule does not fire for that binding"},
	{Name: "pow", Args: 1, Recv: "number", Result: "Self", Doc: "the receiver raised to a non-negative integer power; a result beyond 64-bit integers is an overflow error"},
	{Name: "starts_with", Args: 1, Recv: "text", Result: "bool", Doc: "whether the text starts with the argument's text"},
	{Name: "to_lowercase", Args: 0, Recv: "text", Result: "String", Doc: "the text in lower case (Unicode, as Rust's str::to_lowercase)"},
	{Name: "to_string", Args: 0, Recv: "any", Result: "String", Doc: "the value as text"},
	{Name: "to_uppercase", Args: 0, Recv: "text", Result: "String", Doc: "the text in upper case (Unicode, as Rust's str::to_uppercase)"},
}

// LookupFunction returns the function of that name.
func LookupFunction(name string) (Function, bool) {
	for _, f := range Functions {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// IntegerType reports whether t names one of Rust's integer types, the
// types parse::<T> reads.
func IntegerType(t string) bool {
	switch t {
	case "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize":
		return true
	}
	return false
}

// FormatPieces splits a format! string into its literal pieces around
// the "{}" placeholders ("{{" and "}}" are literal braces): n
// placeholders give n+1 pieces. ok is false when the string holds
// another brace form ("{:?}", "{0}", "{x}", a lone brace).
func FormatPieces(f string) (pieces []string, ok bool) {
	var cur strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '{' && i+1 < len(f) && f[i+1] == '{', c == '}' && i+1 < len(f) && f[i+1] == '}':
			cur.WriteByte(c)
			i++
		case c == '{' && i+1 < len(f) && f[i+1] == '}':
			pieces = append(pieces, cur.String())
			cur.Reset()
			i++
		case c == '{' || c == '}':
			return nil, false
		default:
			cur.WriteByte(c)
		}
	}
	return append(pieces, cur.String()), true
}
