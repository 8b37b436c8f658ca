package sqlgen

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// The aggregates min, max, sum and mean and the arithmetic of let
// compute in the database what the evaluator computes, on the values a
// database computes exactly: integers of at most 18 digits, sums and
// products checked before they could leave 64 bits, means that are
// decimals of at most 9 fractional digits (or, in PostgreSQL and DuckDB,
// floats they print as the evaluator does), minima and maxima of values
// that all read as numbers (the least or greatest spelled one way) or
// none. Elsewhere the evaluator's answer depends on its exact decimals,
// its row order or an error it reports, and the statement fails with a
// message naming the construct (raise), which Refused turns back into
// an *UnsupportedError: refused where the data makes it so, never a
// different answer.

// refusalOpen starts the message of a statement failing on purpose:
// "[ctxql refuses: CONSTRUCT|WHY]".
const refusalOpen = "[ctxql refuses: "

// Refused returns the refusal an error of a compiled statement carries
// (its message holds the one raise built), or nil.
func Refused(err error, d Dialect) *UnsupportedError {
	if err == nil {
		return nil
	}
	s := err.Error()
	i := strings.Index(s, refusalOpen)
	if i < 0 {
		return nil
	}
	rest := s[i+len(refusalOpen):]
	if d == SQLite {
		// SQLite quotes the path it names, doubling its quotes.
		rest = strings.ReplaceAll(rest, "''", "'")
	}
	// The first "]" closes it (neither the construct nor the reason holds
	// one): a message may quote the statement's text after it.
	j := strings.Index(rest, "]")
	if j < 0 {
		return nil
	}
	k := strings.LastIndex(rest[:j], "|")
	if k < 0 {
		return nil
	}
	return &UnsupportedError{Construct: rest[:k], Dialect: d, Why: rest[k+1 : j]}
}

// raise is a text expression failing the statement with a refusal of
// construct; dep is a text expression of the row, so that the database
// evaluates the failure only where it is reached (not as a constant).
func (c *dlCompiler) raise(construct, why, dep string) string {
	return "CAST(" + c.raiseAny(construct, why, dep, "TEXT") + " AS TEXT)"
}

// raiseInt is raise as an integer expression.
func (c *dlCompiler) raiseInt(construct, why, dep string) string {
	return c.raiseAny(construct, why, dep, c.d.SQLType(Int))
}

func (c *dlCompiler) raiseAny(construct, why, dep, typ string) string {
	msg := strings.Map(func(r rune) rune {
		if r == 0 || r == ']' || r == '|' || r == '\n' {
			return ' '
		}
		return r
	}, construct)
	lit, _ := c.d.String(refusalOpen + msg + "|" + why + "]")
	e := lit + " || substr(" + dep + ", 1, 0)"
	if c.d == SQLite {
		// A JSON path that is not one fails with its text in the message.
		return "json_extract('{}', " + e + ")"
	}
	if typ == "TEXT" {
		typ = "INTEGER"
	}
	return "CAST(" + e + " AS " + typ + ")"
}

// srcText is the source text of a span, or fallback.
func (c *dlCompiler) srcText(sp syntax.Span, fallback string) string {
	if c.prog != nil && c.prog.File != nil {
		src := c.prog.File.Text()
		if sp.Start >= 0 && sp.End <= len(src) && sp.Start < sp.End {
			return strings.Join(strings.Fields(src[sp.Start:sp.End]), " ")
		}
	}
	return fallback
}

// coll is the collation clause of a byte-ordered comparison or order.
func (c *dlCompiler) coll() string {
	if c.d == Postgres {
		return ` COLLATE "C"`
	}
	return ""
}

// idiv is integer division truncating toward zero.
func (c *dlCompiler) idiv(a, b string) string {
	if c.d == DuckDB {
		return "(" + a + " // " + b + ")"
	}
	return "(" + a + " / " + b + ")"
}

func (c *dlCompiler) bigint(e string) string { return "CAST(" + e + " AS " + c.d.SQLType(Int) + ")" }

// isInt18 tests a text expression for a canonical integer of at most 18
// digits (no sign but "-", no leading zero, not "-0"): the values whose
// arithmetic is exact in 64 bits and which the evaluator reads the same.
func (c *dlCompiler) isInt18(v string) string {
	switch c.d {
	case SQLite:
		return fmt.Sprintf("(%[1]s = '0' OR ((%[1]s GLOB '[1-9]*' OR %[1]s GLOB '-[1-9]*') AND ltrim(%[1]s, '-') NOT GLOB '*[^0-9]*' AND length(ltrim(%[1]s, '-')) <= 18))", v)
	case Postgres:
		return fmt.Sprintf("(%s ~ '^(0|-?[1-9][0-9]{0,17})$')", v)
	}
	return fmt.Sprintf("regexp_full_match(%s, '0|-?[1-9][0-9]{0,17}')", v)
}

// isCanon tests a text expression for a decimal as the evaluator prints
// one: an integer, or a fraction without trailing zeros (no "-0").
func (c *dlCompiler) isCanon(v string) string {
	switch c.d {
	case SQLite:
		a := fmt.Sprintf("(CASE WHEN %[1]s GLOB '-*' THEN substr(%[1]s, 2) ELSE %[1]s END)", v)
		return fmt.Sprintf("(%[1]s <> '-0' AND %[2]s <> '' AND %[2]s NOT GLOB '*[^0-9.]*' AND %[2]s NOT GLOB '*.*.*' AND %[2]s NOT GLOB '*.' AND %[2]s NOT GLOB '.*' AND %[2]s NOT GLOB '0[0-9]*' AND %[2]s NOT GLOB '*.*0')", v, a)
	case Postgres:
		return fmt.Sprintf("(%[1]s <> '-0' AND %[1]s ~ '^-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?$')", v)
	}
	return fmt.Sprintf("(%[1]s <> '-0' AND regexp_full_match(%[1]s, '-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?'))", v)
}

// complement maps every digit d of a text expression to 9-d.
func (c *dlCompiler) complement(e string) string {
	if c.d != SQLite {
		return "translate(" + e + ", '0123456789', '9876543210')"
	}
	for i := range 10 {
		e = fmt.Sprintf("replace(%s, '%d', '%c')", e, i, 'a'+i)
	}
	for i := range 10 {
		e = fmt.Sprintf("replace(%s, '%c', '%d')", e, 'a'+i, 9-i)
	}
	return e
}

// decKey is the number key (NumberKey) of a text expression holding a
// canonical decimal (isCanon), computed in SQL.
func (c *dlCompiler) decKey(v string) string {
	pos := "instr"
	if c.d == Postgres {
		pos = "strpos"
	}
	// Each step a derived table, so that nothing is spelled twice: the
	// text without its sign and the position of its point; its integer
	// and fraction digits; its digits and exponent (see NumberKey).
	k1 := fmt.Sprintf("SELECT k0.v, ltrim(k0.v, '-') AS a, %s(ltrim(k0.v, '-'), '.') AS p FROM (SELECT %s AS v) AS k0", pos, v)
	k2 := "SELECT k1.v, CASE WHEN k1.p = 0 THEN k1.a ELSE substr(k1.a, 1, k1.p - 1) END AS i, CASE WHEN k1.p = 0 THEN '' ELSE substr(k1.a, k1.p + 1) END AS f FROM (" + k1 + ") AS k1"
	k3 := "SELECT k2.v, rtrim(ltrim(k2.i || k2.f, '0'), '0') AS d, CASE WHEN k2.i <> '0' THEN length(k2.i) ELSE length(ltrim(k2.f, '0')) - length(k2.f) END AS e FROM (" + k2 + ") AS k2"
	return fmt.Sprintf("(SELECT CASE WHEN k3.d = '' THEN '1' WHEN k3.v LIKE '-%%' THEN '0' || CAST(499999999999999999 - k3.e AS TEXT) || %s || '~' ELSE '2' || CAST(500000000000000000 + k3.e AS TEXT) || k3.d END FROM (%s) AS k3)",
		c.complement("k3.d"), k3)
}

// aggValue compiles min, max, sum or mean of column col over the rows
// "FROM … WHERE …" of from (the group, its atom aliased g): a text
// expression, NULL when the aggregate yields nothing, failing with a
// refusal where the database cannot give the evaluator's answer.
func (c *dlCompiler) aggValue(g *syn.Agg, from, col string) string {
	name := "agg " + c.srcText(g.Sp, g.Func.Name)
	if strings.HasPrefix(name, "agg agg ") {
		name = name[len("agg "):]
	}
	switch g.Func.Name {
	case syn.AggMin, syn.AggMax:
		fn := "min"
		if g.Func.Name == syn.AggMax {
			fn = "max"
		}
		key := c.lookupKey("s0.v", c.computed[g.Atom.Name.Name][aggCol(g)])
		win := fmt.Sprintf("SELECT s.v, s.k, %s(s.k%s) OVER () AS e FROM (SELECT s0.v, %s AS k FROM (SELECT %s AS v %s) AS s0) AS s", fn, c.coll(), key, col, from)
		agg := fmt.Sprintf("SELECT count(*) AS n, count(w.k) AS nk, %[1]s(w.v%[2]s) AS b, count(DISTINCT CASE WHEN w.k = w.e THEN w.v END) AS t, min(CASE WHEN w.k = w.e THEN w.v END) AS x FROM (%[3]s) AS w", fn, c.coll(), win)
		dep := "CAST(a.n AS TEXT)"
		return fmt.Sprintf("(SELECT CASE WHEN a.n = 0 THEN NULL WHEN a.nk = 0 THEN a.b WHEN a.nk < a.n THEN %s WHEN a.t > 1 THEN %s ELSE a.x END FROM (%s) AS a)",
			c.raise(name, "its values mix numbers and other text, which the evaluator orders by its row order", dep),
			c.raise(name, "its "+fn+"imum number is spelled several ways, of which the evaluator keeps the first in its row order", dep), agg)
	}
	isInt := c.isInt18(col)
	exact := fmt.Sprintf("sum(CASE WHEN %s THEN %s END)", isInt, c.bigint(col))
	check := fmt.Sprintf("SELECT count(*) AS n, count(CASE WHEN %s THEN 1 END) AS ni, sum(CASE WHEN %s THEN abs(CAST(%s AS %s)) END) AS m %s", isInt, isInt, col, c.d.SQLType(Float), from)
	var val string
	if g.Func.Name == syn.AggSum {
		val = fmt.Sprintf("(SELECT CAST(COALESCE(%s, 0) AS TEXT) %s)", exact, from)
	} else {
		s, n := "b.s", "b.n"
		frac := fmt.Sprintf("CAST(%s AS TEXT)", c.idiv("abs("+s+" % "+n+") * 1000000000", n))
		if c.d == SQLite {
			frac = "substr('000000000' || " + frac + ", -9)"
		} else {
			frac = "lpad(" + frac + ", 9, '0')"
		}
		dep := "CAST(b.n AS TEXT)"
		noDecimal := c.raise(name, "its mean has no decimal of at most 9 fractional digits (the evaluator prints a float)", dep)
		if c.d != SQLite {
			// Over fewer than 1024 values a mean with a decimal has at
			// most 9 fractional digits: else the evaluator prints the
			// nearest float, shortest, which the database's division of
			// two exact doubles and its text of a double are, for
			// magnitudes it prints without an exponent as Go does.
			dbl := c.d.SQLType(Float)
			f := fmt.Sprintf("(CAST(b.s AS %[1]s) / CAST(b.n AS %[1]s))", dbl)
			noDecimal = fmt.Sprintf("CASE WHEN b.n < 1024 AND abs(b.s) < 9007199254740992 AND abs(%[1]s) >= 0.0001 AND abs(%[1]s) < 1000000 THEN CAST(%[1]s AS TEXT) ELSE %[2]s END", f,
				c.raise(name, "its mean is no decimal of at most 9 fractional digits, nor a float the database prints as the evaluator does", dep))
		}
		val = fmt.Sprintf("(SELECT CASE WHEN b.n = 0 THEN NULL WHEN b.n >= 1000000000 THEN %[1]s WHEN %[3]s %% %[4]s = 0 THEN CAST(%[5]s AS TEXT) WHEN (abs(%[3]s %% %[4]s) * 1000000000) %% %[4]s <> 0 THEN %[2]s ELSE (CASE WHEN %[3]s < 0 THEN '-' ELSE '' END) || CAST(abs(%[5]s) AS TEXT) || '.' || rtrim(%[6]s, '0') END FROM (SELECT %[7]s AS s, count(*) AS n %[8]s) AS b)",
			c.raise(name, "it averages 1,000,000,000 values or more", dep),
			noDecimal,
			s, n, c.idiv(s, n), frac, c.bigint(fmt.Sprintf("CASE WHEN abs(%[1]s) < 9000000000000000000 THEN %[1]s END", exact)), from)
	}
	return fmt.Sprintf("(SELECT CASE WHEN a.ni < a.n THEN %s WHEN a.m >= 9.0e18 THEN %s ELSE %s END FROM (%s) AS a)",
		c.raise(name, "a value is not an integer of at most 18 digits (the evaluator computes exact decimals)", "CAST(a.n AS TEXT)"),
		c.raise(name, "its values could overflow 64 bits", "CAST(a.n AS TEXT)"), val, check)
}

// letValue compiles the integer arithmetic of a let to a text
// expression: a scalar subquery computing arith's expression over a row
// of its variables read as integers.
func (c *dlCompiler) letValue(x syn.Expr, name, dep string, bound map[string]binding) (string, error) {
	c.letVars, c.letConv = map[string]string{}, nil
	e, _, err := c.arith(x, name, dep, bound)
	if err != nil {
		return "", err
	}
	if len(c.letConv) == 0 {
		return "CAST(" + e + " AS TEXT)", nil
	}
	return fmt.Sprintf("(SELECT CAST(%s AS TEXT) FROM (SELECT %s) AS l)", e, strings.Join(c.letConv, ", ")), nil
}

// maxInt is the greatest 64-bit integer.
var maxInt = big.NewInt(math.MaxInt64)

// arith compiles an integer expression of a let: a 64-bit integer
// expression and a bound of its magnitude. Variables must hold
// canonical integers of at most 18 digits, constants be integers of at
// most 18 digits; a sum, difference or product that could leave 64 bits
// is checked first, as is a divisor of zero (the evaluator reports both
// as errors), and fails with a refusal of the let.
//
// dep is a text expression of the row for the refusals (see raise): a
// refusal of constants alone must not be folded into the statement.
func (c *dlCompiler) arith(x syn.Expr, name, dep string, bound map[string]binding) (string, *big.Int, error) {
	switch x := x.(type) {
	case *syn.Term:
		switch x.Kind {
		case syn.Computed:
			return c.arith(x.X, name, dep, bound)
		case syn.Var:
			b, ok := bound[x.Value]
			if !ok {
				return "", nil, c.refuse(x.Sp, "the unbound variable "+x.Value+" in a let", "")
			}
			// Each variable read as an integer once, in the operands'
			// row (see letValue).
			col, ok := c.letVars[x.Value]
			if !ok {
				col = "l.v" + strconv.Itoa(len(c.letVars)+1)
				c.letVars[x.Value] = col
				c.letConv = append(c.letConv, fmt.Sprintf("(CASE WHEN %s THEN %s ELSE %s END) AS %s", c.isInt18(b.val), c.bigint(b.val),
					c.raiseInt(name, "the value of "+x.Value+" is not an integer of at most 18 digits (the evaluator computes exact decimals)", b.val), strings.TrimPrefix(col, "l.")))
			}
			return col, new(big.Int).SetInt64(999_999_999_999_999_999), nil
		case syn.Num:
			n, err := strconv.ParseInt(x.Value, 10, 64)
			if err != nil || strconv.FormatInt(n, 10) != x.Value || n > 999_999_999_999_999_999 || n < -999_999_999_999_999_999 {
				return "", nil, c.refuse(x.Sp, name, "the constant "+x.Value+" is not an integer of at most 18 digits")
			}
			return c.bigint(x.Value), new(big.Int).Abs(big.NewInt(n)), nil
		}
		return "", nil, c.refuse(x.Sp, name, "only integer arithmetic on variables and integer constants compiles")
	case *syn.Unary:
		if x.Op != "-" {
			break
		}
		e, b, err := c.arith(x.X, name, dep, bound)
		if err != nil {
			return "", nil, err
		}
		return "(-" + e + ")", b, nil
	case *syn.Binary:
		if !strings.Contains("+-*/%", x.Op) || len(x.Op) != 1 {
			break
		}
		l, lb, err := c.arith(x.L, name, dep, bound)
		if err != nil {
			return "", nil, err
		}
		r, rb, err := c.arith(x.R, name, dep, bound)
		if err != nil {
			return "", nil, err
		}
		over := c.raiseInt(name, "it could overflow 64 bits (the evaluator reports an overflow)", dep)
		const max = "9223372036854775807"
		switch x.Op {
		case "+", "-":
			nb := new(big.Int).Add(lb, rb)
			e := "(" + l + " " + x.Op + " " + r + ")"
			if nb.Cmp(maxInt) <= 0 {
				return e, nb, nil
			}
			r2 := r
			if x.Op == "-" {
				r2 = "(-" + r + ")"
			}
			cond := fmt.Sprintf("(%[1]s > 0 AND %[2]s > %[3]s - %[1]s) OR (%[1]s < 0 AND %[2]s < -%[3]s - %[1]s)", l, r2, max)
			return fmt.Sprintf("(CASE WHEN %s THEN %s ELSE %s END)", cond, over, e), new(big.Int).Set(maxInt), nil
		case "*":
			nb := new(big.Int).Mul(lb, rb)
			e := "(" + l + " * " + r + ")"
			if nb.Cmp(maxInt) <= 0 {
				return e, nb, nil
			}
			cond := fmt.Sprintf("%[2]s <> 0 AND abs(%[1]s) > %[3]s / abs(%[2]s)", l, r, c.bigint(max))
			if c.d == DuckDB {
				cond = fmt.Sprintf("%[2]s <> 0 AND abs(%[1]s) > %[3]s // abs(%[2]s)", l, r, c.bigint(max))
			}
			return fmt.Sprintf("(CASE WHEN %s THEN %s ELSE %s END)", cond, over, e), new(big.Int).Set(maxInt), nil
		default:
			zero := c.raiseInt(name, "its divisor is zero (the evaluator reports a division by zero)", dep)
			e := c.idiv(l, r)
			nb := lb
			if x.Op == "%" {
				e = "(" + l + " % " + r + ")"
				if rb.Cmp(lb) < 0 {
					nb = rb
				}
			}
			return fmt.Sprintf("(CASE WHEN %s = 0 THEN %s ELSE %s END)", r, zero, e), nb, nil
		}
	}
	return "", nil, c.refuse(x.Span(), name, "only integer arithmetic (+ - * / %) on variables and integer constants compiles")
}
