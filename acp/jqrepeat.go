package acp

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/ctxql/ctxql/internal/budget"
)

// gojq repeats a string ("x" * n) in one allocation of up to 2 GiB, which
// the memory watchdog can only notice after the fact: a 30-byte query could
// take the process past its budget, and a small machine past its memory.
// guardRepeats rewrites every multiplication of a query so that its
// operands first go through _ctxql_mulcheck, which refuses a repetition
// larger than the run's memory budget before anything is allocated:
//
//	L * R   →  R as $r | L as $l | _ctxql_mulcheck($l; $r) * $r
//	L *= R  →  R as $r | L |= (_ctxql_mulcheck(.; $r) * $r)
//
// The operands are evaluated in gojq's order (the right one first, the
// left one varying fastest), and the product is gojq's own. It rewrites
// in the same way, for the checks jqguard.go describes, every addition
// (guardedAdd), string interpolation (rewriteString), assignment
// (rewriteUpdate) and collected array ([f] → [f | _ctxql_tick]).
//
// A query may not name a variable with the rewrite's prefix ("$__ctxql").
func guardRepeats(q *gojq.Query) error {
	return walkQueries(reflect.ValueOf(q))
}

// Names the rewrite binds.
const (
	reservedPrefix = "$__ctxql"
	mulLeft        = reservedPrefix + "_l"
	mulRight       = reservedPrefix + "_r"
)

// walkQueries rewrites the multiplications below v, children first, so
// that the multiplication a rewrite introduces is not visited again.
func walkQueries(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if err := walkQueries(v.Elem()); err != nil {
			return err
		}
		switch x := v.Interface().(type) {
		case *gojq.Query:
			if err := rewriteUpdate(x); err != nil {
				return err
			}
			rewriteMul(x)
			rewriteAdd(x)
		case *gojq.Term:
			rewriteString(x)
			if x.Type == gojq.TermTypeArray && x.Array != nil && x.Array.Query != nil {
				// [f] → [f | _ctxql_tick]
				x.Array.Query = &gojq.Query{Left: x.Array.Query, Op: gojq.OpPipe, Right: ref("_ctxql_tick")}
			}
		case *gojq.Func:
			return reserved(x.Name)
		case *gojq.Pattern:
			return reserved(x.Name)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := walkQueries(v.Field(i)); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := walkQueries(v.Index(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// reserved refuses a variable name with the rewrite's prefix.
func reserved(name string) error {
	if strings.HasPrefix(name, reservedPrefix) {
		return fmt.Errorf("variable %s: names starting with %s are reserved", name, reservedPrefix)
	}
	return nil
}

func rewriteMul(q *gojq.Query) {
	checked := func(l *gojq.Query) *gojq.Query {
		return &gojq.Query{
			Left:  &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: "_ctxql_mulcheck", Args: []*gojq.Query{l, ref(mulRight)}}}},
			Op:    gojq.OpMul,
			Right: ref(mulRight),
		}
	}
	var out *gojq.Query
	switch q.Op {
	case gojq.OpMul:
		out = bind(q.Right, mulRight, bind(q.Left, mulLeft, checked(ref(mulLeft))))
	case gojq.OpUpdateMul:
		out = bind(q.Right, mulRight, &gojq.Query{Left: q.Left, Op: gojq.OpModify,
			Right: checked(&gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}})})
	default:
		return
	}
	q.Left, q.Right, q.Op, q.Patterns = out.Left, out.Right, out.Op, out.Patterns
}

// mulcheck is _ctxql_mulcheck(l; r): l itself, or an error when l * r
// repeats a string into more bytes than the memory budget.
func (b *bounded) mulcheck(_ any, args []any) any {
	l, r := args[0], args[1]
	s, ok := l.(string)
	n, isNum := gojq.ToFloat64(r)
	if !ok || !isNum {
		s, ok = r.(string)
		n, isNum = gojq.ToFloat64(l)
	}
	if !ok || !isNum || b.maxRepeat <= 0 || !(n > 0) {
		return l
	}
	if float64(len(s))*math.Min(n, math.MaxInt32) > float64(b.maxRepeat) {
		return &budget.LimitError{What: "string repetition", Limit: fmt.Sprint(b.maxRepeat), Flag: budget.FlagMaxMemory}
	}
	if err := b.allow("string repetition", float64(len(s))*math.Min(n, math.MaxInt32)); err != nil {
		return err
	}
	return l
}

// ref is the query that calls the function or variable name.
func ref(name string) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name}}}
}

// bind is "src as $name | body".
func bind(src *gojq.Query, name string, body *gojq.Query) *gojq.Query {
	return &gojq.Query{Left: src, Patterns: []*gojq.Pattern{{Name: name}}, Op: gojq.OpPipe, Right: body}
}

// guardedAdd is L + R with its operands checked by _ctxql_addcheck first,
// evaluated in gojq's order (the right operand first, the left one varying
// fastest):
//
//	R as $r | (L | _ctxql_addcheck($r)) + $r
//
// or, when R is a variable, (L | _ctxql_addcheck(R)) + R.
func guardedAdd(l, r *gojq.Query) *gojq.Query {
	right, bound := r, false
	if !isVariable(r) {
		right, bound = ref(addRight), true
	}
	checked := &gojq.Query{
		Left: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: &gojq.Query{Left: l, Op: gojq.OpPipe,
			Right: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: "_ctxql_addcheck", Args: []*gojq.Query{right}}}}}}},
		Op:    gojq.OpAdd,
		Right: right,
	}
	if !bound {
		return checked
	}
	return bind(r, addRight, checked)
}

// addRight is the name the addition's rewrite binds.
const addRight = reservedPrefix + "_ar"

// isVariable says whether q is a variable reference alone.
func isVariable(q *gojq.Query) bool {
	return q != nil && q.Term != nil && q.Term.Type == gojq.TermTypeFunc && q.Term.Func != nil &&
		strings.HasPrefix(q.Term.Func.Name, "$") && len(q.Term.Func.Args) == 0 && len(q.Term.SuffixList) == 0 &&
		q.Op == 0 && len(q.FuncDefs) == 0 && q.Left == nil
}

// isNumber says whether q is a number literal: adding it allocates nothing.
func isNumber(q *gojq.Query) bool {
	return q != nil && q.Term != nil && q.Term.Type == gojq.TermTypeNumber && len(q.Term.SuffixList) == 0
}

// rewriteAdd rewrites L + R as guardedAdd does, unless an operand is a
// number literal.
func rewriteAdd(q *gojq.Query) {
	if q.Op != gojq.OpAdd || isNumber(q.Left) || isNumber(q.Right) {
		return
	}
	out := guardedAdd(q.Left, q.Right)
	q.Left, q.Right, q.Op, q.Patterns = out.Left, out.Right, out.Op, out.Patterns
}

// rewriteString rewrites a string with interpolations ("a\(x)b", or a
// format's, @base64 "\(x)") as gojq compiles it, each interpolated value
// through tostring (or the format's function) and the pieces joined with
// +, but with every + guarded.
func rewriteString(t *gojq.Term) {
	if t.Str == nil || t.Str.Queries == nil || t.Type != gojq.TermTypeString && t.Type != gojq.TermTypeFormat {
		return
	}
	f := &gojq.Func{Name: "tostring"}
	if t.Type == gojq.TermTypeFormat {
		f = formatFunc(t.Format)
	}
	var q *gojq.Query
	for _, e := range t.Str.Queries {
		if e.Term == nil || e.Term.Str == nil {
			e = &gojq.Query{Left: e, Op: gojq.OpPipe, Right: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: f}}}
		}
		if q == nil {
			q = e
		} else {
			q = guardedAdd(q, e)
		}
	}
	*t = gojq.Term{Type: gojq.TermTypeQuery, Query: q, SuffixList: t.SuffixList}
}

// formatFunc is the function gojq applies for the format name ("@base64").
func formatFunc(name string) *gojq.Func {
	if f, ok := map[string]string{"@text": "tostring", "@json": "tojson", "@html": "_tohtml", "@uri": "_touri", "@urid": "_tourid",
		"@csv": "_tocsv", "@tsv": "_totsv", "@sh": "_tosh", "@base64": "_tobase64", "@base64d": "_tobase64d"}[name]; ok {
		return &gojq.Func{Name: f}
	}
	return &gojq.Func{Name: "format", Args: []*gojq.Query{{Term: &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: strings.TrimPrefix(name, "@")}}}}}
}

// rewriteUpdate rewrites the assignments so that each path they set is
// checked first (an index far past an array's end allocates the array in
// one step), and += and *= so that their operation is guarded:
//
//	L = R   →  (R) as $v | reduce path(L) as $p (.; _ctxql_cost("setpath"; $p) | _ctxql_b_setpath($p; $v))
//	L += R  →  (R) as $u | CHECK | L |= guarded(. + $u)
//	L *= R  →  CHECK | R as $r | L |= (_ctxql_mulcheck(.; $r) * $r)
//	L op= R →  CHECK | L op= R  (|=, -=, /=, %=, //=)
//
// where CHECK is reduce path(L) as $p (.; _ctxql_cost("setpath"; $p)),
// which yields its input. L and R have been rewritten already; the parts
// of the rewrite that copy them are parsed from their text, so that each
// place holds a tree of its own (the compiler may change a tree it
// compiles).
func rewriteUpdate(q *gojq.Query) error {
	switch q.Op {
	case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul, gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
	default:
		return nil
	}
	l, r := "("+q.Left.String()+")", "("+q.Right.String()+")"
	check := fmt.Sprintf(`reduce path(%s) as %s_p (.; _ctxql_cost("setpath"; %[2]s_p))`, l, reservedPrefix)
	parse := func(src string) (*gojq.Query, error) {
		out, err := gojq.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("guard an assignment: %w", err)
		}
		return out, nil
	}
	var out *gojq.Query
	var err error
	switch q.Op {
	case gojq.OpAssign:
		out, err = parse(fmt.Sprintf(`%s as %[3]s_v | reduce path(%[2]s) as %[3]s_p (.; _ctxql_cost("setpath"; %[3]s_p) | _ctxql_b_setpath(%[3]s_p; %[3]s_v))`, r, l, reservedPrefix))
	case gojq.OpUpdateAdd:
		out, err = parse(fmt.Sprintf(`%s as %[4]s_u | %[3]s | %[2]s |= ((. | _ctxql_addcheck(%[4]s_u)) + %[4]s_u)`, r, l, check, reservedPrefix))
	default:
		var c *gojq.Query
		if c, err = parse(check); err == nil {
			op := &gojq.Query{Left: q.Left, Op: q.Op, Right: q.Right}
			rewriteMul(op)
			out = &gojq.Query{Left: c, Op: gojq.OpPipe, Right: op}
		}
	}
	if err != nil {
		return err
	}
	// The definitions of q, when it has any, go on preceding it.
	out.FuncDefs = q.FuncDefs
	*q = *out
	return nil
}

// internalPrefix starts the names of the sandbox's own functions: a query
// may neither call nor define one, which would bypass or replace a check.
const internalPrefix = "_ctxql_"

// checkInternal refuses a query that calls or defines a function with the
// sandbox's prefix. It walks the query as the user wrote it, before the
// prelude is added.
func checkInternal(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		switch x := v.Interface().(type) {
		case *gojq.Func:
			if strings.HasPrefix(x.Name, internalPrefix) {
				return fmt.Errorf("function %s: names starting with %s are reserved", x.Name, internalPrefix)
			}
		case *gojq.FuncDef:
			if strings.HasPrefix(x.Name, internalPrefix) {
				return fmt.Errorf("function %s: names starting with %s are reserved", x.Name, internalPrefix)
			}
		}
		return checkInternal(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := checkInternal(v.Field(i)); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := checkInternal(v.Index(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
