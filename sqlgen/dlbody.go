package sqlgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Datalog compares values as the evaluator does: as strings, byte by
// byte, except that a comparison with a number literal or a variable of
// a numeric type compares two plain decimals exactly, by value (0.10 ==
// 0.1, 1e400 > 9e399). No dialect has an exact decimal type for every
// such value, so the layout carries, for every value of the data that
// reads as a decimal, a key whose byte order is the numbers' order:
//
//	ctxql_numbers(v, k)
//
// A numeric comparison compares the keys when both values have one and
// the values otherwise. A program's own constants and the counts its
// aggregates compute get their keys in the statement.

// NumbersTable holds the order keys of the data's numbers.
const NumbersTable = "ctxql_numbers"

// NumberKey returns the order key of a value that reads as a plain
// decimal (syn.ParseDecimal): keys compare byte by byte as the numbers
// do, and equal numbers have equal keys. ok is false for other values.
func NumberKey(v string) (key string, ok bool) {
	d, ok := syn.ParseDecimal(v)
	if !ok {
		return "", false
	}
	if d.Digits == "" {
		return "1", true
	}
	// The exponent, offset to be non-negative, in 18 digits: a value's
	// exponent has at most 15 digits, plus its number of digits.
	const off = 500_000_000_000_000_000
	if !d.Neg {
		return "2" + fmt.Sprintf("%018d", d.Exp+off) + d.Digits, true
	}
	var b strings.Builder
	b.WriteString("0")
	fmt.Fprintf(&b, "%018d", 2*off-1-(d.Exp+off))
	for i := 0; i < len(d.Digits); i++ {
		b.WriteByte('9' - d.Digits[i] + '0')
	}
	// After the complemented digits, a byte above every digit: a longer
	// negative number with the same prefix is the smaller.
	b.WriteByte('~')
	return b.String(), true
}

// numberRows hands emit a row of NumbersTable for every distinct value of
// the relations that reads as a decimal.
func numberRows(schema map[string][]string, tuples func(rel string) [][]string, emit func(table string, row []any) error) error {
	seen := map[string]bool{}
	for _, name := range sortedKeys(schema) {
		for _, tup := range tuples(name) {
			for _, v := range tup {
				if seen[v] {
					continue
				}
				seen[v] = true
				if k, ok := NumberKey(v); ok {
					if err := emit(NumbersTable, []any{v, k}); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// binding is what a body variable stands for in a rule's SELECT: an
// expression of its value, and one of its number key when that is known
// without the lookup (a count).
type binding struct {
	val string
	key string
	// comp is set when the value may be one a rule computed.
	comp bool
}

// ruleFrom compiles one rule (free of disjunctions: see syn.Expand) for
// its head to a SELECT whose k-th positive atom (from 0), of the relation
// name, reads src(k, name). Conditions become WHERE tests, count and
// not() aggregates correlated subqueries over their (lower) relation, as
// are min, max, sum and mean (aggValue); lets bind expressions.
func (c *dlCompiler) ruleFrom(r *syn.Rule, head *syn.Atom, src func(k int, name string) string) (string, error) {
	bound := map[string]binding{}
	// A variable compares as a number when its first positive atom
	// gives it a numeric type, or an aggregate binds it.
	varType := map[string]string{}
	// Generators, aggregates and numeric lets type their variables
	// first, in body order, as the evaluator does; positive atoms the
	// others.
	for _, it := range r.Body {
		switch {
		case it.For != nil && it.For.Var.Kind == syn.Var:
			varType[it.For.Var.Value] = "Int"
		case it.Let != nil && it.Let.Var.Kind == syn.Var:
			if t, ok := it.Let.X.(*syn.Term); ok && (t.Kind == syn.Num || t.Kind == syn.Var && syn.NumericType(varType[t.Value])) || isArith(it.Let.X) {
				varType[it.Let.Var.Value] = "Int"
			}
		case it.Agg != nil && it.Agg.Var != nil && it.Agg.Var.Kind == syn.Var:
			varType[it.Agg.Var.Value] = "Int"
		}
	}
	for _, it := range r.Body {
		if it.Atom == nil || it.Atom.Negated {
			continue
		}
		ts := c.types(it.Atom.Name.Name)
		for j, t := range it.Atom.Args {
			if t.Kind == syn.Var && j < len(ts) {
				if _, ok := varType[t.Value]; !ok {
					varType[t.Value] = ts[j]
				}
			}
		}
	}
	var from, where []string
	// rowDep is a column of the row, which refusals depend on.
	rowDep := ""
	// late are the tests after the conditions and negations.
	var late []string
	atoms := 0 // positive atoms so far
	for _, it := range r.Body {
		switch {
		case it.Atom != nil && !it.Atom.Negated:
			alias := "a" + strconv.Itoa(len(from)+1)
			src := src(atoms, it.Atom.Name.Name)
			atoms++
			from = append(from, src+" AS "+alias)
			for k, t := range it.Atom.Args {
				col := fmt.Sprintf("%s.c%d", alias, k+1)
				if rowDep == "" {
					rowDep = col
				}
				if err := c.plain(t); err != nil {
					return "", err
				}
				switch t.Kind {
				case syn.Var:
					if e, ok := bound[t.Value]; ok {
						where = append(where, col+" = "+e.val)
					} else {
						bound[t.Value] = binding{val: col, comp: c.computed[it.Atom.Name.Name][k]}
					}
				case syn.Wildcard:
				default:
					lit, err := c.constant(t)
					if err != nil {
						return "", err
					}
					where = append(where, col+" = "+lit)
				}
			}
		case it.Atom != nil, it.Cond != nil, it.If != nil:
		case it.Agg != nil:
			switch it.Agg.Func.Name {
			case syn.AggCount, syn.AggNot, syn.AggMin, syn.AggMax, syn.AggSum, syn.AggMean:
			default:
				return "", c.refuse(it.Agg.Sp, "the aggregate agg "+it.Agg.Func.Name, "not compiled yet")
			}
		case it.Let != nil:
		case it.For != nil:
			gen, err := c.forRange(it.For)
			if err != nil {
				return "", err
			}
			alias := "a" + strconv.Itoa(len(from)+1)
			from = append(from, "("+gen+") AS "+alias)
			if v := it.For.Var; v.Kind == syn.Var {
				if _, ok := bound[v.Value]; ok {
					return "", c.refuse(v.Sp, "for over the bound variable "+v.Value, "not compiled yet")
				}
				bound[v.Value] = binding{val: alias + ".v", key: alias + ".k"}
				if rowDep == "" {
					rowDep = alias + ".v"
				}
			}
		case it.Disj != nil:
			return "", c.refuse(it.Disj.Sp, "a disjunction", "not compiled yet")
		}
	}
	// Lets of a variable or a constant, in body order, each binding a
	// variable nothing else binds.
	for _, it := range r.Body {
		if it.Let == nil {
			continue
		}
		v := it.Let.Var
		t, ok := it.Let.X.(*syn.Term)
		if !ok || t.Kind == syn.Computed {
			// Integer arithmetic, computed in 64 bits where that is
			// exactly the evaluator's answer.
			name := "let " + v.Text + " = " + exprText(c, it.Let.X)
			dep := rowDep
			if dep == "" {
				dep = "''"
			}
			val, err := c.letValue(it.Let.X, name, dep, bound)
			if err != nil {
				return "", err
			}
			if v.Kind != syn.Var {
				// Its failures are the evaluator's errors: still checked.
				where = append(where, val+" IS NOT NULL")
				continue
			}
			if _, ok := bound[v.Value]; ok {
				return "", c.refuse(it.Let.Sp, "let of the variable "+v.Value+" bound elsewhere in the rule", "the evaluator's order of steps decides its meaning")
			}
			bound[v.Value] = binding{val: val, key: "(SELECT " + c.decKey("r.v") + " FROM (SELECT " + val + " AS v) AS r)"}
			continue
		}
		o, err := c.operand(t, bound, varType)
		if err != nil {
			return "", err
		}
		if v.Kind != syn.Var {
			continue
		}
		if _, ok := bound[v.Value]; ok {
			// The evaluator runs a let when its operands are bound, maybe
			// before the atoms that bind its variable: the order decides.
			return "", c.refuse(it.Let.Sp, "let of the variable "+v.Value+" bound elsewhere in the rule", "the evaluator's order of steps decides its meaning")
		}
		key, val := o.key, o.val
		if !o.lit && bound[t.Value].key == "" {
			key = ""
		}
		if o.lit {
			val = "CAST(" + val + " AS TEXT)"
		}
		bound[v.Value] = binding{val: val, key: key, comp: !o.lit && bound[t.Value].comp}
	}
	// Aggregates next, in body order: their outer variables are bound by
	// the positive atoms (or an earlier aggregate).
	for _, it := range r.Body {
		if it.Agg == nil {
			continue
		}
		g := it.Agg
		outer := map[string]bool{}
		for _, v := range syn.AggOuter(r, g) {
			outer[v] = true
		}
		var conds []string
		local := map[string]string{}
		for k, t := range g.Atom.Args {
			col := fmt.Sprintf("g.c%d", k+1)
			if err := c.plain(t); err != nil {
				return "", err
			}
			switch t.Kind {
			case syn.Var:
				if outer[t.Value] {
					e, ok := bound[t.Value]
					if !ok {
						return "", c.refuse(t.Sp, "the variable "+t.Value+" bound after the aggregate reading it", "")
					}
					conds = append(conds, col+" = "+e.val)
				} else if e, ok := local[t.Value]; ok {
					conds = append(conds, col+" = "+e)
				} else {
					local[t.Value] = col
				}
			case syn.Wildcard:
			default:
				lit, err := c.constant(t)
				if err != nil {
					return "", err
				}
				conds = append(conds, col+" = "+lit)
			}
		}
		q := "SELECT %s FROM " + c.source(g.Atom.Name.Name) + " AS g"
		if len(conds) > 0 {
			q += " WHERE " + strings.Join(conds, " AND ")
		}
		if fn := g.Func.Name; fn != syn.AggCount && fn != syn.AggNot {
			if len(g.Args) != 1 || g.Args[0].Kind != syn.Var || local[g.Args[0].Value] == "" {
				return "", c.refuse(g.Sp, "the aggregate "+c.srcText(g.Sp, fn), "it must aggregate a variable of its own atom")
			}
			val := c.aggValue(g, strings.TrimPrefix(q, "SELECT %s "), local[g.Args[0].Value])
			if fn != syn.AggSum {
				// No tuple, no value: the rule yields nothing. Tested
				// last, so that a database testing in order reaches it
				// (and its refusals) for the rows the conditions keep.
				late = append(late, val+" IS NOT NULL")
			}
			if g.Var == nil || g.Var.Kind != syn.Var {
				if fn == syn.AggSum {
					late = append(late, val+" IS NOT NULL")
				}
				continue
			}
			if _, ok := bound[g.Var.Value]; ok {
				return "", c.refuse(g.Var.Sp, "an aggregate result compared with the bound variable "+g.Var.Value, "not compiled yet")
			}
			key := c.decKey("r.v")
			if fn == syn.AggMin || fn == syn.AggMax {
				key = c.lookupKey("r.v", c.computed[g.Atom.Name.Name][aggCol(g)])
			}
			bound[g.Var.Value] = binding{val: val, key: "(SELECT " + key + " FROM (SELECT " + val + " AS v) AS r)"}
			continue
		}
		if g.Func.Name == syn.AggNot {
			where = append(where, "NOT EXISTS ("+fmt.Sprintf(q, "1")+")")
			continue
		}
		if g.Var == nil || g.Var.Kind != syn.Var {
			continue // a count always yields
		}
		if _, ok := bound[g.Var.Value]; ok {
			return "", c.refuse(g.Var.Sp, "an aggregate result compared with the bound variable "+g.Var.Value, "not compiled yet")
		}
		n := "CAST((" + fmt.Sprintf(q, "count(*)") + ") AS TEXT)"
		bound[g.Var.Value] = binding{val: n, key: countKey(n)}
	}
	// Conditions: every variable they read is bound (safety).
	for _, it := range r.Body {
		var x syn.Expr
		switch {
		case it.Cond != nil:
			x = &syn.Binary{Op: it.Cond.Op, OpSpan: it.Cond.OpSpan, L: it.Cond.Left, R: it.Cond.Right, Sp: it.Cond.Sp}
		case it.If != nil:
			x = it.If.X
		default:
			continue
		}
		s, err := c.test(x, bound, varType)
		if err != nil {
			return "", err
		}
		where = append(where, s)
	}
	// Negated atoms last: every variable they use is bound by then
	// (safety), wherever they stand in the body.
	for _, it := range r.Body {
		if it.Atom == nil || !it.Atom.Negated {
			continue
		}
		var conds []string
		for k, t := range it.Atom.Args {
			col := fmt.Sprintf("n.c%d", k+1)
			if err := c.plain(t); err != nil {
				return "", err
			}
			switch t.Kind {
			case syn.Var:
				e, ok := bound[t.Value]
				if !ok {
					return "", c.refuse(t.Sp, "the unbound variable "+t.Value+" in a negation", "")
				}
				conds = append(conds, col+" = "+e.val)
			case syn.Wildcard:
			default:
				lit, err := c.constant(t)
				if err != nil {
					return "", err
				}
				conds = append(conds, col+" = "+lit)
			}
		}
		q := "SELECT 1 FROM " + c.source(it.Atom.Name.Name) + " AS n"
		if len(conds) > 0 {
			q += " WHERE " + strings.Join(conds, " AND ")
		}
		where = append(where, "NOT EXISTS ("+q+")")
	}
	where = append(where, late...)
	var sel []string
	for _, t := range head.Args {
		if t.Kind == syn.Computed && isArith(t.X) {
			// Integer arithmetic, as a let computes it.
			dep := rowDep
			if dep == "" {
				dep = "''"
			}
			val, err := c.letValue(t.X, "the head term "+c.srcText(t.Sp, t.Text), dep, bound)
			if err != nil {
				return "", err
			}
			sel = append(sel, val)
			continue
		}
		if err := c.plain(t); err != nil {
			return "", err
		}
		switch t.Kind {
		case syn.Var:
			e, ok := bound[t.Value]
			if !ok {
				return "", c.refuse(t.Sp, "the unbound head variable "+t.Value, "")
			}
			sel = append(sel, e.val)
		default:
			lit, err := c.constant(t)
			if err != nil {
				return "", err
			}
			sel = append(sel, "CAST("+lit+" AS TEXT)")
		}
	}
	s := "SELECT " + strings.Join(sel, ", ")
	if len(from) > 0 {
		s += " FROM " + strings.Join(from, ", ")
	}
	if len(where) > 0 {
		s += " WHERE " + strings.Join(where, " AND ")
	}
	return s, nil
}

// maxRange bounds the values a compiled generator lists.
const maxRange = 10_000

// forRange compiles "for VAR in LO..HI" over integer constants to a
// SELECT of its values (v) and their number keys (k).
func (c *dlCompiler) forRange(f *syn.For) (string, error) {
	bound := func(x syn.Expr) (int64, bool) {
		neg := false
		if u, ok := x.(*syn.Unary); ok && u.Op == "-" {
			neg, x = true, u.X
		}
		t, ok := x.(*syn.Term)
		if !ok || t.Kind != syn.Num {
			return 0, false
		}
		n, err := strconv.ParseInt(t.Value, 10, 64)
		if err != nil {
			return 0, false
		}
		if neg {
			n = -n
		}
		return n, true
	}
	lo, ok1 := bound(f.Lo)
	hi, ok2 := bound(f.Hi)
	if !ok1 || !ok2 {
		return "", c.refuse(f.Sp, "for over bounds that are not integer constants", "not compiled yet")
	}
	if f.Inclusive {
		if hi == math.MaxInt64 {
			return "", c.refuse(f.Sp, "for over more than "+strconv.Itoa(maxRange)+" values", "")
		}
		hi++
	}
	if hi > lo && hi-lo > maxRange {
		return "", c.refuse(f.Sp, "for over more than "+strconv.Itoa(maxRange)+" values", "")
	}
	var sel []string
	for i := lo; i < hi; i++ {
		v := strconv.FormatInt(i, 10)
		k, _ := NumberKey(v)
		sel = append(sel, fmt.Sprintf("SELECT CAST('%s' AS TEXT) AS v, CAST('%s' AS TEXT) AS k", v, k))
	}
	if len(sel) == 0 {
		return "SELECT CAST(NULL AS TEXT) AS v, CAST(NULL AS TEXT) AS k WHERE 1 = 0", nil
	}
	return strings.Join(sel, " UNION ALL "), nil
}

// types are a relation's parameter types, as the checker inferred them.
func (c *dlCompiler) types(rel string) []string {
	if ri := c.info.Relations[rel]; ri != nil {
		return ri.Types
	}
	return c.schema[rel]
}

// countKey is the number key of a count (a non-negative integer without
// leading zeros, as text), computed in SQL as NumberKey computes it.
func countKey(n string) string {
	return fmt.Sprintf("CASE WHEN %[1]s = '0' THEN '1' ELSE '2' || CAST(500000000000000000 + length(%[1]s) AS TEXT) || rtrim(%[1]s, '0') END", n)
}

// operand is one side of a comparison.
type operand struct {
	val     string // SQL expression of the value
	key     string // SQL expression of its number key ("NULL": none)
	numeric bool   // it makes the comparison numeric
	lit     bool   // a constant
	v       string // a constant's value
}

// test compiles a condition: comparisons of terms joined by &&, || and !.
func (c *dlCompiler) test(x syn.Expr, bound map[string]binding, varType map[string]string) (string, error) {
	switch x := x.(type) {
	case *syn.Term:
		if x.Kind == syn.Computed {
			return c.test(x.X, bound, varType)
		}
		return "", c.refuse(x.Sp, "the condition "+x.Text, "only comparisons and &&, ||, ! compile")
	case *syn.Unary:
		if x.Op != "!" {
			break
		}
		s, err := c.test(x.X, bound, varType)
		if err != nil {
			return "", err
		}
		return "NOT (" + s + ")", nil
	case *syn.Binary:
		switch x.Op {
		case "&&", "||":
			l, err := c.test(x.L, bound, varType)
			if err != nil {
				return "", err
			}
			r, err := c.test(x.R, bound, varType)
			if err != nil {
				return "", err
			}
			op := " AND "
			if x.Op == "||" {
				op = " OR "
			}
			return "(" + l + op + r + ")", nil
		}
		if _, ok := syn.Holds(x.Op, 0); !ok {
			break
		}
		l, err := c.operand(x.L, bound, varType)
		if err != nil {
			return "", err
		}
		r, err := c.operand(x.R, bound, varType)
		if err != nil {
			return "", err
		}
		return c.compare(x.Op, l, r), nil
	}
	return "", c.refuse(x.Span(), "the expression "+exprText(c, x), "only comparisons of variables and constants compile")
}

func exprText(c *dlCompiler, x syn.Expr) string {
	sp := x.Span()
	if c.prog != nil && c.prog.File != nil {
		src := c.prog.File.Text()
		if sp.Start >= 0 && sp.End <= len(src) && sp.Start <= sp.End {
			return src[sp.Start:sp.End]
		}
	}
	return "in a condition"
}

// operand compiles a side of a comparison: a bound variable or a
// constant.
func (c *dlCompiler) operand(x syn.Expr, bound map[string]binding, varType map[string]string) (operand, error) {
	t, ok := x.(*syn.Term)
	for ok && t.Kind == syn.Computed {
		t, ok = t.X.(*syn.Term)
	}
	if !ok {
		return operand{}, c.refuse(x.Span(), "the expression "+exprText(c, x), "only comparisons of variables and constants compile")
	}
	if err := c.plain(t); err != nil {
		return operand{}, err
	}
	switch t.Kind {
	case syn.Var:
		b, ok := bound[t.Value]
		if !ok {
			return operand{}, c.refuse(t.Sp, "the unbound variable "+t.Value+" in a condition", "")
		}
		key := b.key
		if key == "" {
			key = c.lookupKey(b.val, b.comp)
		}
		return operand{val: b.val, key: key, numeric: syn.NumericType(varType[t.Value])}, nil
	case syn.Str, syn.Num, syn.Bool:
		lit, err := c.constant(t)
		if err != nil {
			return operand{}, err
		}
		key := "NULL"
		if k, ok := NumberKey(t.Value); ok {
			key = "'" + k + "'"
		}
		return operand{val: lit, key: key, numeric: t.Kind == syn.Num, lit: true, v: t.Value}, nil
	}
	return operand{}, c.refuse(t.Sp, "the term "+t.Text, "not compiled yet")
}

// lookupKey is the number key of a value: from the numbers table, or the
// program's constants (a derived relation holds them too).
//
// A value a rule may have computed (comp) and that is neither has its key
// computed from its text.
func (c *dlCompiler) lookupKey(e string, comp bool) string {
	s := fmt.Sprintf("(SELECT m.k FROM %s AS m WHERE m.v = %s)", NumbersTable, e)
	if len(c.consts) == 0 {
		if comp {
			return "COALESCE(" + s + ", " + c.computedKey(e) + ")"
		}
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "COALESCE(%s, CASE %s", s, e)
	for _, v := range sortedKeys(c.consts) {
		lit, _ := c.d.String(v)
		fmt.Fprintf(&b, " WHEN %s THEN '%s'", lit, c.consts[v])
	}
	b.WriteString(" END")
	if comp {
		b.WriteString(", " + c.computedKey(e))
	}
	b.WriteString(")")
	return b.String()
}

// computedKey is the number key of a value a rule computed (a count, a
// sum, a let), which neither the numbers table nor the program's
// constants hold: such values are canonical decimals.
func (c *dlCompiler) computedKey(e string) string {
	return "CASE WHEN " + c.isCanon(e) + " THEN " + c.decKey(e) + " END"
}

// aggCol is the column of an aggregate's atom holding its argument, or
// -1.
func aggCol(g *syn.Agg) int {
	if len(g.Args) != 1 {
		return -1
	}
	for k, t := range g.Atom.Args {
		if t.Kind == syn.Var && t.Value == g.Args[0].Value {
			return k
		}
	}
	return -1
}

// isArith reports whether x is arithmetic (its value a number).
func isArith(x syn.Expr) bool {
	switch x := x.(type) {
	case *syn.Term:
		return x.Kind == syn.Computed && isArith(x.X)
	case *syn.Unary:
		return x.Op == "-"
	case *syn.Binary:
		return len(x.Op) == 1 && strings.Contains("+-*/%", x.Op)
	}
	return false
}

// compare compiles "l op r": by number keys when the comparison is
// numeric and both values have one, else byte by byte.
func (c *dlCompiler) compare(op string, l, r operand) string {
	if l.lit && r.lit {
		holds, _ := syn.Holds(op, syn.CompareValues(l.v, r.v, l.numeric || r.numeric))
		if holds {
			return "1 = 1"
		}
		return "1 = 0"
	}
	bytes := c.cmpText(l.val, op, r.val)
	if !(l.numeric || r.numeric) || l.key == "NULL" || r.key == "NULL" {
		return bytes
	}
	var nn []string
	for _, o := range []operand{l, r} {
		if !o.lit {
			nn = append(nn, o.key+" IS NOT NULL")
		}
	}
	return fmt.Sprintf("(CASE WHEN %s THEN %s ELSE %s END)", strings.Join(nn, " AND "), c.cmpText(l.key, op, r.key), bytes)
}

// cmpText compares two text expressions byte by byte.
func (c *dlCompiler) cmpText(l, op, r string) string {
	if op == "!=" {
		op = "<>"
	}
	if c.d == Postgres && op != "=" && op != "<>" {
		l += ` COLLATE "C"`
	}
	if op == "==" {
		op = "="
	}
	return l + " " + op + " " + r
}

// programConsts are the constants of rules that read as numbers, with
// their keys: values a derived relation may hold that the numbers table
// does not.
func programConsts(rules []*syn.Rule) map[string]string {
	out := map[string]string{}
	for _, r := range rules {
		syn.Inspect(r, func(n syn.Node) bool {
			if t, ok := n.(*syn.Term); ok && (t.Kind == syn.Num || t.Kind == syn.Str) {
				if k, ok := NumberKey(t.Value); ok && !strings.ContainsRune(t.Value, 0) {
					out[t.Value] = k
				}
			}
			return true
		})
	}
	return out
}
