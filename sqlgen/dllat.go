package sqlgen

import (
	"fmt"
	"strings"

	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// A lattice relation keeps, per combination of its other columns (its
// key), the best value of its last column: the greatest, or the least
// for a Dual column, numbers compared as numbers and other text byte by
// byte. The evaluator's rules read every improvement while the relation's
// stratum runs, in the order they arrive; the driver loop keeps the best
// value per key only, and a round's delta is the keys it improved. Both
// give the same answer when the lattice values flow through the
// stratum's rules only by monotone steps (checked by latticeStratum) and
// compare in one total order (checked on the data, see latticeBest):
//
//   - a rule of the stratum reads a lattice value of the stratum into a
//     variable that it uses once more only, in the value column of its
//     head, which is a lattice of the same order, as the value itself,
//     that value plus or minus a constant or a variable bound otherwise
//     (v ↦ v + e is monotone whatever the sign of e), or the sum of two
//     such values (monotone in each): what the evaluator
//     derives from a value that is later improved on is never better
//     than what the improved value derives, so the best values are the
//     best over all derivations in both;
//   - nothing else of the stratum reads it: no condition, let, join,
//     negation, aggregate or key column, and no relation of the stratum
//     that is not a lattice (they would keep what the replaced values
//     gave them). Higher strata read the final values freely.

// latticeStratum checks the rules of a stratum holding lattice relations
// for the monotone flow above, refusing by name what does not keep to it.
func (c *dlCompiler) latticeStratum(st []string) error {
	lat := map[string]bool{}
	for _, rel := range st {
		if c.lattice(rel) {
			lat[rel] = true
		}
	}
	if len(lat) == 0 {
		return nil
	}
	in := map[string]bool{}
	for _, rel := range st {
		in[rel] = true
	}
	for _, r0 := range c.prog.Rules {
		for _, r := range syn.Expand(r0) {
			if !in[r.Head.Name.Name] {
				continue
			}
			if err := c.latticeRule(r, lat); err != nil {
				return err
			}
		}
	}
	return nil
}

// lattice reports whether rel is a lattice relation with columns.
func (c *dlCompiler) lattice(rel string) bool {
	ri := c.info.Relations[rel]
	return ri != nil && ri.Lattice && len(ri.Types) > 0
}

// dual reports whether rel's lattice keeps the least value.
func (c *dlCompiler) dual(rel string) bool {
	ri := c.info.Relations[rel]
	return ri != nil && ri.Dual
}

// latticeRule checks one rule of a lattice stratum (lat its lattice
// relations).
func (c *dlCompiler) latticeRule(r *syn.Rule, lat map[string]bool) error {
	// The variables holding a lattice value of the stratum, and the
	// relation each is the value of.
	lv := map[string]string{}
	var defs []*syn.Term
	for _, it := range r.Body {
		a := it.Atom
		if a == nil || a.Negated || !lat[a.Name.Name] || len(a.Args) == 0 {
			continue
		}
		t := a.Args[len(a.Args)-1]
		switch t.Kind {
		case syn.Wildcard:
		case syn.Var:
			if _, ok := lv[t.Value]; ok {
				return c.refuse(t.Sp, "a join on the lattice value "+t.Value+" of "+a.Name.Name+" inside its stratum", "the evaluator's answer would depend on the order improvements arrive")
			}
			lv[t.Value] = a.Name.Name
			defs = append(defs, t)
		default:
			return c.refuse(t.Sp, "a constant lattice value of "+a.Name.Name+" read inside its stratum", "the evaluator's answer would depend on the order improvements arrive")
		}
	}
	if len(lv) == 0 {
		return nil
	}
	isDef := func(t *syn.Term) bool {
		for _, d := range defs {
			if d == t {
				return true
			}
		}
		return false
	}
	// find returns a variable of lv a node reads (not where it is bound).
	find := func(n syn.Node) *syn.Term {
		var hit *syn.Term
		if n == nil {
			return nil
		}
		syn.Inspect(n, func(m syn.Node) bool {
			if t, ok := m.(*syn.Term); ok && hit == nil && t.Kind == syn.Var && !isDef(t) {
				if _, ok := lv[t.Value]; ok {
					hit = t
				}
			}
			return hit == nil
		})
		return hit
	}
	why := "the evaluator's answer would depend on the order improvements arrive"
	for _, it := range r.Body {
		var n syn.Node
		what := ""
		switch {
		case it.Atom != nil && it.Atom.Negated:
			n, what = it.Atom, "a negation reading"
		case it.Atom != nil:
			n, what = it.Atom, "a join on"
		case it.Cond != nil:
			n, what = it.Cond, "a condition reading"
		case it.If != nil:
			n, what = it.If, "a condition reading"
		case it.Let != nil:
			n, what = it.Let, "a let reading"
		case it.Agg != nil:
			n, what = it.Agg, "an aggregate reading"
		case it.For != nil:
			n, what = it.For, "a generator reading"
		}
		if n == nil {
			continue
		}
		if t := find(n); t != nil {
			return c.refuse(t.Sp, what+" the lattice value "+t.Value+" of "+lv[t.Value]+" inside its stratum", why)
		}
	}
	h := r.Head
	for k, arg := range h.Args {
		t := find(arg)
		if t == nil {
			continue
		}
		if !lat[h.Name.Name] {
			return c.refuse(t.Sp, "the lattice value "+t.Value+" of "+lv[t.Value]+" read by "+h.Name.Name+", a relation of its stratum that is not a lattice", why)
		}
		if k < len(h.Args)-1 {
			return c.refuse(t.Sp, "the lattice value "+t.Value+" of "+lv[t.Value]+" in a key column of "+h.Name.Name, why)
		}
		if !c.monotone(arg, lv) {
			var x syn.Expr = arg
			if arg.Kind == syn.Computed {
				x = arg.X
			}
			return c.refuse(arg.Sp, "the lattice value "+t.Value+" of "+lv[t.Value]+" through "+exprText(c, x), "only the value itself, it plus or minus a constant or a variable that is not a lattice value of the stratum, or the sum of two lattice values keeps the answer independent of the order improvements arrive")
		}
		var opp *syn.Term
		syn.Inspect(arg, func(m syn.Node) bool {
			if u, ok := m.(*syn.Term); ok && u.Kind == syn.Var && opp == nil {
				if rel, ok := lv[u.Value]; ok && c.dual(rel) != c.dual(h.Name.Name) {
					opp = u
				}
			}
			return opp == nil
		})
		if opp != nil {
			return c.refuse(opp.Sp, "the lattice value "+opp.Value+" of "+lv[opp.Value]+" in "+h.Name.Name+", a lattice of the opposite order", why)
		}
	}
	return nil
}

// monotone reports whether a head's value term is v, v + e, v - e or
// e + v with v a variable of lv and e a constant or a variable not in
// lv, or v + u with v and u two variables of lv: monotone in each.
func (c *dlCompiler) monotone(t *syn.Term, lv map[string]string) bool {
	var x syn.Expr = t
	for {
		tt, ok := x.(*syn.Term)
		if !ok || tt.Kind != syn.Computed {
			break
		}
		x = tt.X
	}
	isLV := func(x syn.Expr) bool {
		tt, ok := x.(*syn.Term)
		if !ok {
			return false
		}
		_, in := lv[tt.Value]
		return tt.Kind == syn.Var && in
	}
	other := func(x syn.Expr) bool {
		tt, ok := x.(*syn.Term)
		if !ok {
			return false
		}
		_, in := lv[tt.Value]
		return tt.Kind == syn.Num || tt.Kind == syn.Var && !in
	}
	switch x := x.(type) {
	case *syn.Term:
		return isLV(x)
	case *syn.Binary:
		switch x.Op {
		case "+":
			return isLV(x.L) && (other(x.R) || isLV(x.R)) || other(x.L) && isLV(x.R)
		case "-":
			return isLV(x.L) && other(x.R)
		}
	}
	return false
}

// latticeTable is a lattice relation's table of a round's candidate
// tuples.
func latticeTable(rel string) string { return Ident("c_" + rel) }

// roundTable counts the rounds of a stratum holding lattices.
func roundTable(rel string) string { return Ident("r_" + rel) }

// latticeBest is the INSERT of the rows of w_REL: per key of the
// candidates in c_REL, the best value among them and the key's current
// one in d_REL, where it differs from the current one. It refuses the
// key's values where the database cannot order them as the evaluator
// does: numbers mixed with other text (the evaluator's comparison is not
// a total order then, and its answer depends on the order values
// arrive), or a number not spelled as the evaluator prints one (of two
// spellings of a number it keeps the first to arrive).
func (c *dlCompiler) latticeBest(rel string, n int) string {
	fn := "max"
	if c.dual(rel) {
		fn = "min"
	}
	var ukeys, skeys, wkeys, akeys, bcols, eqx, eqo []string
	for i := 1; i < n; i++ {
		col := fmt.Sprintf("c%d", i)
		ukeys = append(ukeys, "u."+col)
		skeys = append(skeys, "s."+col)
		wkeys = append(wkeys, "w."+col)
		akeys = append(akeys, "a."+col)
		eqx = append(eqx, fmt.Sprintf("x.%[1]s = o.%[1]s", col))
		eqo = append(eqo, fmt.Sprintf("o.%[1]s = b.%[1]s", col))
	}
	for i := 1; i <= n; i++ {
		bcols = append(bcols, fmt.Sprintf("b.c%d", i))
	}
	last := fmt.Sprintf("c%d", n)
	exists := "SELECT 1 FROM " + latticeTable(rel) + " AS x"
	if len(eqx) > 0 {
		exists += " WHERE " + strings.Join(eqx, " AND ")
	}
	all := make([]string, n)
	for i := range all {
		all[i] = fmt.Sprintf("o.c%d", i+1)
	}
	u := fmt.Sprintf("SELECT * FROM %s UNION SELECT %s FROM %s AS o WHERE EXISTS (%s)", latticeTable(rel), strings.Join(all, ", "), cteName(rel), exists)
	key := c.lookupKey("u."+last, c.computed[rel][n-1])
	s := fmt.Sprintf("SELECT 0 AS z, %s, %s AS k FROM (%s) AS u", strings.Join(append(ukeys, "u."+last), ", "), key, u)
	part := strings.Join(append([]string{"s.z"}, skeys...), ", ")
	w := fmt.Sprintf("SELECT %s, s.k, %s(s.k%s) OVER (PARTITION BY %s) AS e FROM (%s) AS s", strings.Join(append([]string{"s.z"}, append(skeys, "s."+last)...), ", "), fn, c.coll(), part, s)
	group := strings.Join(append([]string{"w.z"}, wkeys...), ", ")
	a := fmt.Sprintf("SELECT %s, count(*) AS n, count(w.k) AS nk, sum(CASE WHEN w.k IS NOT NULL AND NOT %s THEN 1 ELSE 0 END) AS bad, min(CASE WHEN w.k = w.e THEN w.%s END) AS bn, %s(w.%s%s) AS bt FROM (%s) AS w GROUP BY %s",
		group, c.isCanon("w."+last), last, fn, last, c.coll(), w, group)
	name := "the lattice " + rel
	dep := "CAST(a.n AS TEXT)"
	best := fmt.Sprintf("CASE WHEN a.nk > 0 AND a.nk < a.n THEN %s WHEN a.bad > 0 THEN %s WHEN a.nk = a.n THEN a.bn ELSE a.bt END",
		c.raise(name, "its values mix numbers and other text, which the evaluator orders by the order they arrive", dep),
		c.raise(name, "a number among its values is not spelled as the evaluator prints one, and of two spellings it keeps the first to arrive", dep))
	b := fmt.Sprintf("SELECT %s AS %s FROM (%s) AS a", strings.Join(append(akeys, best), ", "), last, a)
	if len(akeys) > 0 {
		b = fmt.Sprintf("SELECT %s, %s AS %s FROM (%s) AS a", strings.Join(akeys, ", "), best, last, a)
	}
	cur := fmt.Sprintf("SELECT 1 FROM %s AS o WHERE %s", cteName(rel), strings.Join(append(eqo, fmt.Sprintf("o.%[1]s = b.%[1]s", last)), " AND "))
	return fmt.Sprintf("INSERT INTO %s SELECT %s FROM (%s) AS b WHERE NOT EXISTS (%s)", newName(rel), strings.Join(bcols, ", "), b, cur)
}

// latticeReplace is the statements that replace the rows of d_REL whose
// key improved by the rows of w_REL.
func latticeReplace(rel string, n int) []string {
	var eq []string
	for i := 1; i < n; i++ {
		eq = append(eq, fmt.Sprintf("x.c%[1]d = %[2]s.c%[1]d", i, cteName(rel)))
	}
	del := "DELETE FROM " + cteName(rel) + " WHERE EXISTS (SELECT 1 FROM " + newName(rel) + " AS x"
	if len(eq) > 0 {
		del += " WHERE " + strings.Join(eq, " AND ")
	}
	return []string{del + ")", fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", cteName(rel), newName(rel))}
}

// latticeGuard is the statement counting a lattice stratum's rounds
// that refuses the program when a round improves values after more
// rounds than the stratum has tuples (plus two): the best values then
// improve around a cycle of the rules, and the evaluator, which derives
// the same improvements, does not terminate either. (Without such a
// cycle a round's improvement has a derivation in which no tuple or key
// repeats along a path, so no deeper than the tuples there are.)
func (c *dlCompiler) latticeGuard(st []string) string {
	var all, news []string
	for _, rel := range st {
		all = append(all, "(SELECT count(*) FROM "+cteName(rel)+")")
		news = append(news, "(SELECT count(*) FROM "+newName(rel)+")")
	}
	r := roundTable(st[0])
	return fmt.Sprintf("UPDATE %s SET n = CASE WHEN n > %s + 2 AND %s > 0 THEN %s ELSE n + 1 END", r, strings.Join(all, " + "), strings.Join(news, " + "),
		c.raiseInt("the lattice "+strings.Join(latticesOf(c, st), ", "), "its values keep improving around a cycle of its rules (the evaluator does not terminate)", "CAST(n AS TEXT)"))
}

func latticesOf(c *dlCompiler, st []string) []string {
	var out []string
	for _, rel := range st {
		if c.lattice(rel) {
			out = append(out, rel)
		}
	}
	return out
}
