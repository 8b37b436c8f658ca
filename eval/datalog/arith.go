package datalog

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// ExprError is an error computing an expression of a rule: an operand
// that is not a number, a division by zero, an overflow. Span locates
// the operand or operator in the rule's source.
type ExprError struct {
	Span syntax.Span
	Msg  string
}

func (e *ExprError) Error() string { return e.Msg }

// maxDigits bounds the digits of a computed decimal; a longer result is
// an overflow.
const maxDigits = 1000

// number is a value read as a number: an int64 when it is a plain
// integer in range, else an exact rational of a decimal.
type number struct {
	isInt bool
	i     int64
	r     *big.Rat
}

// parseNumber reads a plain decimal number (see syn.ParseDecimal).
func parseNumber(s string) (number, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return number{isInt: true, i: i}, true
	}
	d, ok := syn.ParseDecimal(s)
	if !ok {
		return number{}, false
	}
	if d.Exp > maxDigits || d.Exp < -maxDigits {
		return number{}, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return number{}, false
	}
	return number{r: r}, true
}

func (n number) rat() *big.Rat {
	if n.isInt {
		return new(big.Rat).SetInt64(n.i)
	}
	return n.r
}

// formatRat writes an exact decimal: an integer, or the digits after the
// point up to the last non-zero one. ok is false when r has no finite
// decimal expansion or needs more than maxDigits digits.
func formatRat(r *big.Rat) (string, bool) {
	if r.IsInt() {
		s := r.Num().String()
		return s, len(s) <= maxDigits
	}
	// The expansion is finite iff the denominator has no prime factor
	// but 2 and 5; its length is the larger of their exponents.
	d := new(big.Int).Set(r.Denom())
	two, five := 0, 0
	zero, rem := big.NewInt(0), new(big.Int)
	for {
		q, m := new(big.Int).QuoRem(d, big.NewInt(2), rem)
		if m.Cmp(zero) != 0 {
			break
		}
		d, two = q, two+1
	}
	for {
		q, m := new(big.Int).QuoRem(d, big.NewInt(5), rem)
		if m.Cmp(zero) != 0 {
			break
		}
		d, five = q, five+1
	}
	if d.Cmp(big.NewInt(1)) != 0 || max(two, five) > maxDigits {
		return "", false
	}
	s := r.FloatString(max(two, five))
	return s, len(s) <= 2*maxDigits
}

func (n number) String() string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	s, _ := formatRat(n.r)
	return s
}

// arith computes "a op b" for one of + - * / %. Integers in 64 bits
// compute as Rust's i64 does (division truncates, the remainder takes
// the dividend's sign) with overflow an error; other decimals compute
// exactly, and "/" and "%" need integers.
func arith(op string, a, b number, sp syntax.Span) (number, error) {
	overflow := func() (number, error) {
		return number{}, &ExprError{Span: sp, Msg: fmt.Sprintf("arithmetic overflow: %s %s %s exceeds 64-bit integers", a, op, b)}
	}
	if a.isInt && b.isInt {
		x, y := a.i, b.i
		switch op {
		case "+":
			s := x + y
			if (s > x) != (y > 0) {
				return overflow()
			}
			return number{isInt: true, i: s}, nil
		case "-":
			s := x - y
			if (s < x) != (y > 0) {
				return overflow()
			}
			return number{isInt: true, i: s}, nil
		case "*":
			if x == 0 || y == 0 {
				return number{isInt: true}, nil
			}
			p := x * y
			if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return overflow()
			}
			return number{isInt: true, i: p}, nil
		case "/", "%":
			if y == 0 {
				return number{}, &ExprError{Span: sp, Msg: fmt.Sprintf("division by zero: %s %s 0", a, op)}
			}
			if x == math.MinInt64 && y == -1 {
				return overflow()
			}
			if op == "/" {
				return number{isInt: true, i: x / y}, nil
			}
			return number{isInt: true, i: x % y}, nil
		}
	}
	if op == "/" || op == "%" {
		if !isInteger(a) || !isInteger(b) {
			return number{}, &ExprError{Span: sp, Msg: fmt.Sprintf("%s takes integers: %s %s %s", op, a, op, b)}
		}
		return overflow()
	}
	r := new(big.Rat)
	switch op {
	case "+":
		r.Add(a.rat(), b.rat())
	case "-":
		r.Sub(a.rat(), b.rat())
	case "*":
		r.Mul(a.rat(), b.rat())
	}
	if r.IsInt() && r.Num().IsInt64() && (a.isInt || b.isInt) {
		return number{isInt: true, i: r.Num().Int64()}, nil
	}
	if _, ok := formatRat(r); !ok {
		return number{}, &ExprError{Span: sp, Msg: fmt.Sprintf("arithmetic overflow: %s %s %s has more than %d digits", a, op, b, maxDigits)}
	}
	return number{r: r}, nil
}

func isInteger(n number) bool { return n.isInt || n.r.IsInt() }

// exprKind says what a compiled expression node is.
type exprKind uint8

const (
	eConst exprKind = iota
	eVar
	eBinary
	eUnary
	eCall  // a function on text and numbers (op names it; args: the receiver first)
	eTuple // a tuple of args
)

// cexpr is a compiled expression.
type cexpr struct {
	kind    exprKind
	val     string // eConst
	slot    int    // eVar
	numeric bool   // a leaf that compares as a number (see numericType)
	op      string
	l, r    *cexpr
	sp      syntax.Span
	opSp    syntax.Span
	args    []*cexpr // eCall
	typ     string   // eCall: T of parse::<T>
	pieces  []string // eCall: format!'s literal pieces
}

// isNumeric reports whether comparisons with x compare numbers.
func (x *cexpr) isNumeric() bool {
	switch x.kind {
	case eBinary:
		return x.op != "&&" && x.op != "||" && !isCmp(x.op)
	case eUnary:
		return x.op == "-"
	case eCall:
		switch x.op {
		case "len", "abs", "pow", "parse":
			return true
		case "min", "max":
			return x.args[0].isNumeric() || x.args[1].isNumeric()
		}
		return false
	}
	return x.numeric
}

func isCmp(op string) bool {
	_, ok := syn.Holds(op, 0)
	return ok
}

// slots adds the variable slots x reads to out.
func (x *cexpr) slots(out []int) []int {
	if x == nil {
		return out
	}
	switch x.kind {
	case eVar:
		return append(out, x.slot)
	case eBinary:
		return x.r.slots(x.l.slots(out))
	case eUnary:
		return x.l.slots(out)
	case eCall, eTuple:
		for _, a := range x.args {
			out = a.slots(out)
		}
	}
	return out
}

// eval computes x over a binding row: a canonical decimal for
// arithmetic, "true" or "false" for logic and comparisons.
func (ev *evaluator) eval(x *cexpr, row []uint32) (string, error) {
	switch x.kind {
	case eConst:
		return x.val, nil
	case eVar:
		return ev.db.strs[row[x.slot]], nil
	case eCall:
		return ev.call(x, row)
	case eTuple:
		return ev.evalTuple(x, row)
	case eUnary:
		v, err := ev.eval(x.l, row)
		if err != nil {
			return "", err
		}
		if x.op == "!" {
			b, err := asBool(v, x.l.sp)
			if err != nil {
				return "", err
			}
			return strconv.FormatBool(!b), nil
		}
		n, err := asNumber(v, x.l.sp, x.op)
		if err != nil {
			return "", err
		}
		res, err := arith("-", number{isInt: true}, n, x.sp)
		if err != nil {
			return "", err
		}
		return res.String(), nil
	}
	switch x.op {
	case "&&", "||":
		l, err := ev.eval(x.l, row)
		if err != nil {
			return "", err
		}
		lb, err := asBool(l, x.l.sp)
		if err != nil {
			return "", err
		}
		if lb == (x.op == "||") {
			return strconv.FormatBool(lb), nil
		}
		r, err := ev.eval(x.r, row)
		if err != nil {
			return "", err
		}
		rb, err := asBool(r, x.r.sp)
		return strconv.FormatBool(rb), err
	}
	l, err := ev.eval(x.l, row)
	if err != nil {
		return "", err
	}
	r, err := ev.eval(x.r, row)
	if err != nil {
		return "", err
	}
	if isCmp(x.op) {
		holds, _ := syn.Holds(x.op, syn.CompareValues(l, r, x.l.isNumeric() || x.r.isNumeric()))
		return strconv.FormatBool(holds), nil
	}
	a, err := asNumber(l, x.l.sp, x.op)
	if err != nil {
		return "", err
	}
	b, err := asNumber(r, x.r.sp, x.op)
	if err != nil {
		return "", err
	}
	res, err := arith(x.op, a, b, x.opSp)
	if err != nil {
		return "", err
	}
	return res.String(), nil
}

func asNumber(v string, sp syntax.Span, op string) (number, error) {
	n, ok := parseNumber(v)
	if !ok {
		return number{}, &ExprError{Span: sp, Msg: fmt.Sprintf("operand of %s is not a number: %s", op, strconv.Quote(v))}
	}
	return n, nil
}

func asBool(v string, sp syntax.Span) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &ExprError{Span: sp, Msg: fmt.Sprintf("condition is not a boolean (true or false): %s", strconv.Quote(v))}
}

// compileExpr compiles an expression; slot resolves a variable and
// numeric reports whether it compares as a number.
func compileExpr(x syn.Expr, slot func(string) int, numeric func(string) bool) *cexpr {
	switch x := x.(type) {
	case *syn.Term:
		switch x.Kind {
		case syn.Var:
			return &cexpr{kind: eVar, slot: slot(x.Value), numeric: numeric(x.Value), sp: x.Sp}
		case syn.Computed:
			return compileExpr(x.X, slot, numeric)
		case syn.Tuple:
			c := &cexpr{kind: eTuple, sp: x.Sp}
			for _, e := range x.Elems {
				c.args = append(c.args, compileExpr(e, slot, numeric))
			}
			return c
		}
		return &cexpr{kind: eConst, val: x.Value, numeric: x.Kind == syn.Num, sp: x.Sp}
	case *syn.Binary:
		return &cexpr{kind: eBinary, op: x.Op, opSp: x.OpSpan, sp: x.Sp,
			l: compileExpr(x.L, slot, numeric), r: compileExpr(x.R, slot, numeric)}
	case *syn.Unary:
		return &cexpr{kind: eUnary, op: x.Op, opSp: x.OpSpan, sp: x.Sp, l: compileExpr(x.X, slot, numeric)}
	case *syn.Call:
		c := &cexpr{kind: eCall, op: x.Name.Name, sp: x.Sp, opSp: x.Name.Sp}
		args := x.Args
		if x.Recv != nil {
			args = append([]syn.Expr{x.Recv}, args...)
		}
		for _, a := range args {
			c.args = append(c.args, compileExpr(a, slot, numeric))
		}
		if x.Type != nil {
			c.typ = x.Type.Name
		}
		if x.Recv == nil && len(x.Args) > 0 {
			if f, ok := x.Args[0].(*syn.Term); ok {
				c.pieces, _ = syn.FormatPieces(f.Value)
			}
		}
		return c
	}
	return &cexpr{kind: eConst}
}

// equalValues reports whether two values are the same: equal numbers
// when both are numbers, else equal strings.
func equalValues(a, b string) bool {
	if a == b {
		return true
	}
	return syn.CompareValues(a, b, true) == 0 && isNum(a) && isNum(b)
}

func isNum(s string) bool {
	_, ok := syn.ParseDecimal(s)
	return ok
}

// rangeBound reads a bound of a generator range as an integer.
func rangeBound(v string, sp syntax.Span) (int64, error) {
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || strings.TrimSpace(v) != v {
		return 0, &ExprError{Span: sp, Msg: fmt.Sprintf("range bound is not a 64-bit integer: %s", strconv.Quote(v))}
	}
	return i, nil
}
