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
// left one varying fastest), and the product is gojq's own.
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
			rewriteMul(x)
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
	ref := func(name string) *gojq.Query {
		return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name}}}
	}
	checked := func(l *gojq.Query) *gojq.Query {
		return &gojq.Query{
			Left:  &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: "_ctxql_mulcheck", Args: []*gojq.Query{l, ref(mulRight)}}}},
			Op:    gojq.OpMul,
			Right: ref(mulRight),
		}
	}
	bind := func(src *gojq.Query, name string, body *gojq.Query) *gojq.Query {
		return &gojq.Query{Left: src, Patterns: []*gojq.Pattern{{Name: name}}, Op: gojq.OpPipe, Right: body}
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
	return l
}
