package sqlgen

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/datalog"
)

// Datalog's layout: one table per relation of the data, named like it,
// columns c1…cN (text) in order, and the catalog
//
//	ctxql_relations(name, pos, type)
//
// of every relation's parameter types, from which an engine rebuilds the
// schema the program is checked against.

// RelationsTable is the catalog of the Datalog relations of a database.
const RelationsTable = "ctxql_relations"

// DatalogTables returns the tables of the relations of schema, and the
// catalog.
func DatalogTables(schema map[string][]string) []Table {
	out := []Table{{Name: RelationsTable, Columns: []Column{{"name", Text}, {"pos", Int}, {"type", Text}}},
		{Name: NumbersTable, Columns: []Column{{"v", Value}, {"k", Text}}, Indexes: [][]string{{"v"}}}}
	for _, name := range sortedKeys(schema) {
		t := Table{Name: name, Columns: columns(len(schema[name]))}
		// The first two columns indexed, for joins and constants.
		for i := range min(2, len(t.Columns)) {
			t.Indexes = append(t.Indexes, []string{t.Columns[i].Name})
		}
		out = append(out, t)
	}
	return out
}

// SchemaSQL selects the catalog: name, position, type.
func SchemaSQL() string {
	return "SELECT name, pos, type FROM " + RelationsTable + " ORDER BY name, pos"
}

// DatalogRows hands emit the catalog rows of schema, the distinct tuples
// of each relation, and the number keys of their values.
func DatalogRows(schema map[string][]string, tuples func(rel string) [][]string, emit func(table string, row []any) error) error {
	for _, name := range sortedKeys(schema) {
		for i, t := range schema[name] {
			if err := emit(RelationsTable, []any{name, int64(i + 1), t}); err != nil {
				return err
			}
		}
		seen := map[string]bool{}
		for _, tup := range tuples(name) {
			k := strings.Join(tup, "\x00")
			if seen[k] {
				continue
			}
			seen[k] = true
			row := make([]any, len(tup))
			for i, v := range tup {
				row[i] = v
			}
			if err := emit(name, row); err != nil {
				return err
			}
		}
	}
	return numberRows(schema, tuples, emit)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// columns are c1…cN, text.
func columns(n int) []Column {
	out := make([]Column, n)
	for i := range out {
		out[i] = Column{Name: "c" + strconv.Itoa(i+1), Type: Value}
	}
	return out
}

// DatalogRelation is the SQL of one derived relation: one statement whose
// rows are its distinct tuples, in no particular order.
type DatalogRelation struct {
	// Name is the relation.
	Name string
	// Arity is its number of columns.
	Arity int
	// SQL is the statement.
	SQL string
}

// DatalogError refuses a construct of a program at its span.
type DatalogError struct {
	// Span is where the construct is.
	Span syntax.Span
	*UnsupportedError
}

// Unwrap returns the *UnsupportedError.
func (e *DatalogError) Unwrap() error { return e.UnsupportedError }

// newDLCompiler returns the compiler of prog for dialect d, knowing which
// relations its rules derive.
func newDLCompiler(prog *syn.Program, info *syn.Info, schema map[string][]string, d Dialect) (*dlCompiler, error) {
	c := &dlCompiler{d: d, prog: prog, info: info, schema: schema, derived: map[string]bool{}, consts: programConsts(prog.Rules), sets: map[string]bool{}, computed: computedCols(prog.Rules)}
	for _, st := range info.Strata {
		for _, r := range st {
			c.derived[r] = true
		}
	}
	// The tables and CTEs of a derived relation R are named d_R, n_R,
	// w_R, c_R and r_R: a relation of such a name would be shadowed.
	for _, rel := range sortedKeys(c.derived) {
		for _, p := range []string{"d_", "n_", "w_", "c_", "r_"} {
			if _, ok := info.Relations[p+rel]; ok {
				return nil, c.refuse(c.firstRule(rel), "the relation "+p+rel+" beside the derived relation "+rel, "the compiled SQL names its own tables of "+rel+" so")
			}
			if _, ok := schema[p+rel]; ok {
				return nil, c.refuse(c.firstRule(rel), "the relation "+p+rel+" beside the derived relation "+rel, "the compiled SQL names its own tables of "+rel+" so")
			}
		}
	}
	for _, decl := range prog.Decls {
		if decl.DS != nil {
			return nil, c.refuse(decl.Sp, "the "+decl.DS.Name+" relation "+decl.Name.Name, "its closure is not compiled")
		}
	}
	return c, nil
}

// CompileDatalog compiles a checked program (info is syn.Check's answer
// with the data's schema) to one statement per relation of outputs (in
// their order), each a WITH RECURSIVE over every derived relation of the
// program in stratum order: a non-recursive relation is a CTE of the
// union of its rules, a relation whose rules read it at most once each
// (linear recursion) a recursive CTE: its other rules UNION its
// recursive ones (set semantics). Negated atoms read lower strata only
// (the check guarantees it) and become NOT EXISTS. A relation the data
// also holds unites its table with its rules. What is refused, by name,
// at its span: what docs/sql.md lists (lets of expressions other than
// integer arithmetic, computed and lattice terms, relations without
// columns, …), and recursion that is not linear (mutual, or a rule
// reading its own relation twice). Aggregates and lets the database
// cannot compute as the evaluator does on the data are refused by the
// statement when it runs (see Refused).
func CompileDatalog(prog *syn.Program, info *syn.Info, schema map[string][]string, d Dialect, outputs []string) ([]DatalogRelation, error) {
	c, err := newDLCompiler(prog, info, schema, d)
	if err != nil {
		return nil, err
	}
	var ctes []string
	for _, st := range info.Strata {
		if len(st) > 1 {
			return nil, c.refuse(c.firstRule(st[0]), "mutual recursion ("+strings.Join(st, ", ")+")", "a recursive CTE defines one relation; see CompileDatalogScript")
		}
		if c.lattice(st[0]) {
			return nil, c.refuse(c.firstRule(st[0]), "the lattice relation "+st[0], "its join is not a set union; see CompileDatalogScript")
		}
		cte, err := c.relation(st[0])
		if err != nil {
			return nil, err
		}
		ctes = append(ctes, cte)
	}
	var out []DatalogRelation
	for _, name := range outputs {
		ri := info.Relations[name]
		if ri == nil || len(ri.Types) == 0 {
			return nil, c.refuse(c.firstRule(name), "the relation "+name+" without columns", "a SQL row has at least one")
		}
		cols := make([]string, len(ri.Types))
		for i := range cols {
			cols[i] = "c" + strconv.Itoa(i+1)
		}
		var b strings.Builder
		if len(ctes) > 0 {
			b.WriteString("WITH RECURSIVE\n")
			b.WriteString(strings.Join(ctes, ",\n"))
			b.WriteString("\n")
		}
		// A CTE that is a UNION holds distinct tuples already.
		distinct := "DISTINCT "
		if c.sets[name] {
			distinct = ""
		}
		fmt.Fprintf(&b, "SELECT %s%s FROM %s", distinct, strings.Join(cols, ", "), c.source(name))
		out = append(out, DatalogRelation{Name: name, Arity: len(cols), SQL: b.String()})
	}
	return out, nil
}

// CompileDatalogRule compiles a query rule (checked by syn.CheckRule):
// evaluated once over the data, its body atoms read the relations'
// tables (the head's too), and its statement returns its own tuples only.
func CompileDatalogRule(r *syn.Rule, info *syn.Info, d Dialect) (DatalogRelation, error) {
	c := &dlCompiler{d: d, info: info, derived: map[string]bool{}, consts: programConsts([]*syn.Rule{r}), computed: computedCols([]*syn.Rule{r})}
	n := len(r.Head.Args)
	if n == 0 {
		return DatalogRelation{}, c.refuse(r.Sp, "the relation "+r.Head.Name.Name+" without columns", "a SQL row has at least one")
	}
	var alts []string
	for _, x := range syn.Expand(r) {
		s, err := c.rule(x, x.Head, "", "")
		if err != nil {
			return DatalogRelation{}, err
		}
		alts = append(alts, s)
	}
	if len(alts) == 1 {
		return DatalogRelation{Name: r.Head.Name.Name, Arity: n, SQL: "SELECT DISTINCT" + strings.TrimPrefix(alts[0], "SELECT")}, nil
	}
	return DatalogRelation{Name: r.Head.Name.Name, Arity: n, SQL: strings.Join(alts, "\nUNION ")}, nil
}

type dlCompiler struct {
	d       Dialect
	prog    *syn.Program
	info    *syn.Info
	schema  map[string][]string
	derived map[string]bool
	// consts are the number keys of the program's constants.
	consts map[string]string
	// sets are the derived relations whose CTE is a UNION (distinct).
	sets map[string]bool
	// computed are the columns of derived relations that may hold
	// values rules compute (counts, sums, generators, lets), which the
	// numbers table lacks: their keys are computed in SQL.
	computed map[string]map[int]bool
	// letVars and letConv are the variables of the let being compiled
	// and their conversions to integers (letValue).
	letVars map[string]string
	letConv []string
}

// computedCols returns, per relation, the columns that may hold values
// the rules compute: a head column of a variable bound by a generator, a
// let or an aggregate, or read from such a column.
func computedCols(rules []*syn.Rule) map[string]map[int]bool {
	out := map[string]map[int]bool{}
	for changed := true; changed; {
		changed = false
		for _, r0 := range rules {
			for _, r := range syn.Expand(r0) {
				vars := map[string]bool{}
				for _, it := range r.Body {
					switch {
					case it.For != nil && it.For.Var.Kind == syn.Var:
						vars[it.For.Var.Value] = true
					case it.Let != nil && it.Let.Var.Kind == syn.Var:
						vars[it.Let.Var.Value] = true
					case it.Agg != nil && it.Agg.Var != nil && it.Agg.Var.Kind == syn.Var:
						vars[it.Agg.Var.Value] = true
					case it.Atom != nil && !it.Atom.Negated:
						for k, t := range it.Atom.Args {
							if t.Kind == syn.Var && out[it.Atom.Name.Name][k] {
								vars[t.Value] = true
							}
						}
					}
				}
				for _, h := range r.AllHeads() {
					for k, t := range h.Args {
						if (t.Kind == syn.Var && vars[t.Value] || t.Kind == syn.Computed) && !out[h.Name.Name][k] {
							if out[h.Name.Name] == nil {
								out[h.Name.Name] = map[int]bool{}
							}
							out[h.Name.Name][k] = true
							changed = true
						}
					}
				}
			}
		}
	}
	return out
}

func (c *dlCompiler) refuse(sp syntax.Span, construct, why string) error {
	return &DatalogError{Span: sp, UnsupportedError: &UnsupportedError{Construct: construct, Dialect: c.d, Why: why}}
}

func (c *dlCompiler) firstRule(rel string) syntax.Span {
	for _, r := range c.prog.Rules {
		for _, h := range r.AllHeads() {
			if h.Name.Name == rel {
				return r.Sp
			}
		}
	}
	return syntax.Span{}
}

// cteName is the CTE of a derived relation.
func cteName(rel string) string { return Ident("d_" + rel) }

// source is what a body atom of rel reads: its CTE or its table.
func (c *dlCompiler) source(rel string) string {
	if c.derived[rel] {
		return cteName(rel)
	}
	return Ident(rel)
}

// relation compiles the CTE of one derived relation.
func (c *dlCompiler) relation(rel string) (string, error) {
	ri := c.info.Relations[rel]
	n := len(ri.Types)
	if n == 0 {
		return "", c.refuse(c.firstRule(rel), "the relation "+rel+" without columns", "a SQL row has at least one")
	}
	var base, rec, direct []string
	if _, ok := c.schema[rel]; ok {
		cols := make([]string, n)
		for i := range cols {
			cols[i] = "c" + strconv.Itoa(i+1)
		}
		base = append(base, fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), Ident(rel)))
	}
	for _, r0 := range c.prog.Rules {
		for _, r := range syn.Expand(r0) {
			h := r.Head
			if h.Name.Name != rel {
				continue
			}
			self := 0
			for _, it := range r.Body {
				if it.Atom != nil && !it.Atom.Negated && it.Atom.Name.Name == rel {
					self++
				}
			}
			if self > 1 {
				return "", c.refuse(r.Sp, "non-linear recursion ("+rel+" read twice by one rule)", "a recursive CTE may read its relation once; see CompileDatalogScript")
			}
			self1 := ""
			if self == 1 && c.d != SQLite {
				// Read through the one reference of the recursive term.
				sel := make([]string, n)
				for i := range sel {
					sel[i] = fmt.Sprintf("rec.c%d AS c%d", i+1, i+1)
				}
				self1 = "(SELECT " + strings.Join(sel, ", ") + ")"
			}
			s, err := c.rule(r, h, rel, self1)
			if err != nil {
				return "", err
			}
			if self == 1 {
				rec = append(rec, s)
				// The rule reading the CTE itself, for a relation of one
				// recursive rule.
				if s, err = c.rule(r, h, rel, ""); err != nil {
					return "", err
				}
				direct = append(direct, s)
			} else {
				base = append(base, s)
			}
		}
	}
	cols := make([]string, n)
	for i := range cols {
		cols[i] = "c" + strconv.Itoa(i+1)
	}
	if len(base) == 0 {
		nulls := make([]string, n)
		for i := range nulls {
			nulls[i] = "CAST(NULL AS TEXT)"
		}
		base = append(base, "SELECT "+strings.Join(nulls, ", ")+" WHERE 1 = 0")
	}
	if len(rec) == 1 {
		rec = direct
	}
	if len(rec) > 1 && c.d != SQLite {
		// PostgreSQL and DuckDB take one recursive term reading the
		// relation once: several recursive rules read its new rows
		// through a lateral union.
		sel := make([]string, n)
		for i := range sel {
			sel[i] = fmt.Sprintf("x.c%d", i+1)
		}
		rec = []string{fmt.Sprintf("SELECT %s FROM %s AS rec, LATERAL (\n    %s) AS x(%s)", strings.Join(sel, ", "), cteName(rel),
			strings.Join(rec, "\n    UNION "), strings.Join(cols, ", "))}
	}
	if len(base)+len(rec) > 1 {
		c.sets[rel] = true
	}
	body := strings.Join(append(base, rec...), "\n  UNION ")
	return fmt.Sprintf("%s(%s) AS (\n  %s)", cteName(rel), strings.Join(cols, ", "), body), nil
}

// rule compiles one rule for one of its heads to a SELECT.
// When self is set, the atom of the relation rel reads it instead of the
// relation's CTE.
func (c *dlCompiler) rule(r *syn.Rule, head *syn.Atom, rel, self string) (string, error) {
	return c.ruleFrom(r, head, func(_ int, name string) string {
		if self != "" && name == rel {
			return self
		}
		return c.source(name)
	})
}

// plain refuses the lattice and pattern forms of a term other than a
// variable, a wildcard or a constant, which stand for the term itself
// ("Dual(x)", "?x", "?Dual(x)").
func (c *dlCompiler) plain(t *syn.Term) error {
	switch {
	case t.Kind == syn.Var || t.Kind == syn.Wildcard || t.IsConst():
		return nil
	case !t.Dual.IsZero():
		return c.refuse(t.Sp, "the lattice term "+t.Text, "not compiled yet")
	case !t.Pattern.IsZero():
		return c.refuse(t.Sp, "the pattern "+t.Text, "not compiled yet")
	}
	return nil
}

// constant is a constant term's value as text: the canonical value the
// evaluator interns.
func (c *dlCompiler) constant(t *syn.Term) (string, error) {
	switch {
	case t.Kind == syn.Computed:
		return "", c.refuse(t.Sp, "the computed term "+t.Text, "not compiled yet")
	case t.Kind == syn.Str || t.Kind == syn.Num || t.Kind == syn.Bool:
		return c.d.String(t.Value)
	}
	return "", c.refuse(t.Sp, "the term "+t.Text, "not compiled yet")
}

// SortTuples orders tuples as the evaluator prints them: bytewise, column
// by column.
func SortTuples(ts [][]string) {
	slices.SortFunc(ts, func(a, b []string) int {
		for i := range a {
			if c := strings.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	})
}

// Script is a semi-naive evaluation driven by ctxql: statements run in
// order on one connection, loops repeated until their count is zero.
type Script struct {
	// Steps run in order.
	Steps []Step
	// Cleanup drops what the steps created; run it whatever happened.
	Cleanup []string
}

// Step is a list of statements run once, or a loop.
type Step struct {
	// Stmts run once, in order; for a loop, once per round.
	Stmts []string
	// Loop, when set, makes the step a loop: after each round Count
	// (one row, one integer) is read, and the loop ends when it is zero.
	Loop bool
	// Count counts the new tuples of a round.
	Count string
}

// Text prints the script for reading: statements ending in semicolons,
// each loop between comments saying when it ends.
func (s *Script) Text() string {
	var b strings.Builder
	for _, st := range s.Steps {
		if st.Loop {
			b.WriteString("-- repeat until this counts 0: " + st.Count + "\n")
		}
		for _, q := range st.Stmts {
			b.WriteString(q + ";\n")
		}
		if st.Loop {
			b.WriteString("-- end repeat\n")
		}
	}
	return b.String()
}

// deltaName and newName are a derived relation's tables of the tuples
// new in the last round and in this one.
func deltaName(rel string) string { return Ident("n_" + rel) }
func newName(rel string) string   { return Ident("w_" + rel) }

// CompileDatalogScript compiles a checked program as CompileDatalog
// does, for any recursion: each derived relation is a temporary table
// filled stratum by stratum by semi-naive evaluation, which the engine
// drives (Script); the returned statements then select each output
// relation's table. Mutual and non-linear recursion compile; the other
// refusals of CompileDatalog stand.
func CompileDatalogScript(prog *syn.Program, info *syn.Info, schema map[string][]string, d Dialect, outputs []string) (*Script, []DatalogRelation, error) {
	c, err := newDLCompiler(prog, info, schema, d)
	if err != nil {
		return nil, nil, err
	}
	sc := &Script{}
	for _, st := range info.Strata {
		if err := c.latticeStratum(st); err != nil {
			return nil, nil, err
		}
		lat := len(latticesOf(c, st)) > 0
		for _, rel := range st {
			n := len(info.Relations[rel].Types)
			if n == 0 {
				return nil, nil, c.refuse(c.firstRule(rel), "the relation "+rel+" without columns", "a SQL row has at least one")
			}
			var cols []string
			for i := range n {
				cols = append(cols, fmt.Sprintf("c%d %s", i+1, d.SQLType(Value)))
			}
			tables := []string{cteName(rel), deltaName(rel), newName(rel)}
			if c.lattice(rel) {
				tables = append(tables, latticeTable(rel))
			}
			for _, t := range tables {
				sc.Steps = append(sc.Steps, Step{Stmts: []string{"DROP TABLE IF EXISTS " + t, fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s)", t, strings.Join(cols, ", "))}})
				sc.Cleanup = append(sc.Cleanup, "DROP TABLE IF EXISTS "+t)
			}
		}
		if lat {
			t := roundTable(st[0])
			sc.Steps = append(sc.Steps, Step{Stmts: []string{"DROP TABLE IF EXISTS " + t, fmt.Sprintf("CREATE TEMPORARY TABLE %s (n %s)", t, d.SQLType(Int)), "INSERT INTO " + t + " VALUES (0)"}})
			sc.Cleanup = append(sc.Cleanup, "DROP TABLE IF EXISTS "+t)
		}
		in := map[string]bool{}
		for _, rel := range st {
			in[rel] = true
		}
		// The first round: the data's tuples and the rules reading no
		// relation of the stratum.
		init := Step{}
		var loop []string
		for _, rel := range st {
			var base, variants []string
			if _, ok := schema[rel]; ok {
				base = append(base, "SELECT * FROM "+Ident(rel))
			}
			for _, r0 := range prog.Rules {
				for _, r := range syn.Expand(r0) {
					h := r.Head
					if h.Name.Name != rel {
						continue
					}
					var occ []int // positions of the stratum's atoms among the positive ones
					k := 0
					for _, it := range r.Body {
						if it.Atom != nil && !it.Atom.Negated {
							if in[it.Atom.Name.Name] {
								occ = append(occ, k)
							}
							k++
						}
					}
					if len(occ) == 0 {
						s, err := c.ruleFrom(r, h, func(_ int, name string) string { return c.source(name) })
						if err != nil {
							return nil, nil, err
						}
						base = append(base, s)
						continue
					}
					// One variant per atom of the stratum, that atom reading
					// the last round's new tuples.
					for _, o := range occ {
						s, err := c.ruleFrom(r, h, func(k int, name string) string {
							if k == o {
								return deltaName(name)
							}
							return c.source(name)
						})
						if err != nil {
							return nil, nil, err
						}
						variants = append(variants, s)
					}
				}
			}
			n := len(info.Relations[rel].Types)
			switch {
			case c.lattice(rel):
				// The candidates' best values per key.
				if len(base) > 0 {
					init.Stmts = append(init.Stmts, fmt.Sprintf("INSERT INTO %s SELECT DISTINCT * FROM (%s) AS b", latticeTable(rel), strings.Join(base, " UNION ")),
						c.latticeBest(rel, n), fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", cteName(rel), newName(rel)), "DELETE FROM "+newName(rel))
				}
			case len(base) > 0:
				init.Stmts = append(init.Stmts, fmt.Sprintf("INSERT INTO %s SELECT DISTINCT * FROM (%s) AS b", cteName(rel), strings.Join(base, " UNION ")))
			}
			init.Stmts = append(init.Stmts, fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", deltaName(rel), cteName(rel)))
			switch {
			case len(variants) == 0:
			case c.lattice(rel):
				// A round's delta: the keys whose best value improved.
				loop = append(loop, "DELETE FROM "+latticeTable(rel),
					fmt.Sprintf("INSERT INTO %s SELECT * FROM (%s) AS v", latticeTable(rel), strings.Join(variants, " UNION ")),
					"DELETE FROM "+newName(rel), c.latticeBest(rel, n))
			default:
				loop = append(loop, "DELETE FROM "+newName(rel),
					fmt.Sprintf("INSERT INTO %s SELECT * FROM (%s) AS v EXCEPT SELECT * FROM %s", newName(rel), strings.Join(variants, " UNION "), cteName(rel)))
			}
		}
		sc.Steps = append(sc.Steps, init)
		if len(loop) == 0 {
			continue
		}
		var counts []string
		if lat {
			loop = append(loop, c.latticeGuard(st))
		}
		for _, rel := range st {
			loop = append(loop, "DELETE FROM "+deltaName(rel), fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", deltaName(rel), newName(rel)))
			if c.lattice(rel) {
				loop = append(loop, latticeReplace(rel, len(info.Relations[rel].Types))...)
			} else {
				loop = append(loop, fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", cteName(rel), newName(rel)))
			}
			counts = append(counts, "(SELECT count(*) FROM "+deltaName(rel)+")")
		}
		sc.Steps = append(sc.Steps, Step{Stmts: loop, Loop: true, Count: "SELECT " + strings.Join(counts, " + ")})
	}
	var out []DatalogRelation
	for _, name := range outputs {
		n := len(info.Relations[name].Types)
		cols := make([]string, n)
		for i := range cols {
			cols[i] = "c" + strconv.Itoa(i+1)
		}
		out = append(out, DatalogRelation{Name: name, Arity: n, SQL: fmt.Sprintf("SELECT DISTINCT %s FROM %s", strings.Join(cols, ", "), cteName(name))})
	}
	return sc, out, nil
}

// NeedsScript reports whether a checked program has recursion that a
// recursive CTE cannot hold exactly: a stratum of several relations
// (mutual recursion) or a rule reading its own stratum more than once
// (non-linear recursion). Such a program compiles with
// CompileDatalogScript.
func NeedsScript(prog *syn.Program, info *syn.Info) bool {
	for _, st := range info.Strata {
		if len(st) > 1 {
			return true
		}
		if ri := info.Relations[st[0]]; ri != nil && ri.Lattice && len(ri.Types) > 0 {
			return true
		}
		for _, r0 := range prog.Rules {
			for _, r := range syn.Expand(r0) {
				if r.Head.Name.Name != st[0] {
					continue
				}
				self := 0
				for _, it := range r.Body {
					if it.Atom != nil && !it.Atom.Negated && it.Atom.Name.Name == st[0] {
						self++
					}
				}
				if self > 1 {
					return true
				}
			}
		}
	}
	return false
}
