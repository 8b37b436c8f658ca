package sqlgen

import (
	"fmt"
	"slices"
	"strings"

	evjql "github.com/ctxql/ctxql/eval/jql"
	"github.com/ctxql/ctxql/internal/jsonenc"
	"github.com/ctxql/ctxql/syntax"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// JQL's layout: per domain (sessions, activities) one table of documents
// and one of their nodes.
//
//	<domain>(ord, id, cid, ct_rank, ct_sec, ct_nsec, ct_str, doc)
//	<domain>_nodes(ord, path, kind, str, low, num, ts_sec, ts_nsec)
//
// ord is the document's position in the data (ties of the sort key keep
// it), id and the ct_ columns the sort key (createTime, then id), cid the
// id a startAfter cursor matches (NULL when id is no string), doc the
// document as written. A node is every value a field path reaches, arrays
// crossed: path is the JSON array of its field names, kind its JSON type,
// str a string (low its lower case when that differs), num a number,
// ts_sec/ts_nsec the instant of a string that reads as an RFC 3339 time.

// JQLDomains are the JQL domains, each a table of the layout.
func JQLDomains() []string { return []string{"sessions", "activities"} }

// JQLTables returns the tables of one domain.
func JQLTables(domain string) []Table {
	return []Table{
		{Name: domain, Columns: []Column{
			{"ord", Int}, {"id", Text}, {"cid", Text}, {"ct_rank", Int}, {"ct_sec", Int}, {"ct_nsec", Int}, {"ct_str", Text}, {"doc", JSON},
		}, Indexes: [][]string{{"ord"}, {"cid"}, {"ct_rank", "ct_sec", "ct_nsec", "ct_str", "id"}}},
		{Name: domain + "_nodes", Columns: []Column{
			{"ord", Int}, {"path", Text}, {"kind", Text}, {"str", Text}, {"low", Text}, {"num", Float}, {"ts_sec", Int}, {"ts_nsec", Int},
		}, Indexes: [][]string{{"path", "str"}, {"path", "num"}, {"ord", "path"}}},
	}
}

// JQLRows derives the rows of one document of a domain, the ord-th (from
// 0) of the data, and hands each to emit with its table's name. A document
// that is not an object has no rows.
func JQLRows(domain string, ord int64, raw []byte, emit func(table string, row []any) error) error {
	r, ok, err := evjql.TableRow(raw)
	if err != nil || !ok {
		return err
	}
	return jqlRows(domain, ord, raw, r, nil, emit)
}

// jqlRows emits the rows of a document's table row r, the columns of the
// flattened fields after the others.
func jqlRows(domain string, ord int64, raw []byte, r evjql.Row, fields []FlatField, emit func(table string, row []any) error) error {
	var cid any
	if r.HasCursorID {
		cid = r.CursorID
	}
	row := []any{ord, r.ID, cid, int64(r.Rank), r.Sec, int64(r.Nsec), r.Str, string(raw)}
	var multi [][]string // with `nodes: mapped`, the paths whose nodes are kept
	for _, f := range fields {
		if f.Column == "" {
			continue
		}
		v := flatValues(r.Nodes, f.Path)
		if v[1] == "multi" {
			multi = append(multi, f.Path)
		}
		row = append(row, v...)
	}
	if err := emit(domain, row); err != nil {
		return err
	}
	only := mappedNodesOnly(fields)
	for _, n := range r.Nodes {
		if only && !slices.ContainsFunc(multi, func(p []string) bool { return slices.Equal(p, n.Path) }) {
			continue
		}
		if err := emit(domain+"_nodes", append([]any{ord, pathKey(n.Path)}, nodeValues(n)...)); err != nil {
			return err
		}
	}
	return nil
}

// nodeValues are a node's kind, str, low, num, ts_sec and ts_nsec.
func nodeValues(n evjql.Node) []any {
	row := []any{n.Kind, nil, nil, nil, nil, nil}
	switch n.Kind {
	case "string":
		row[1] = n.Str
		if n.HasLower {
			row[2] = n.Lower
		}
		if n.IsTime {
			row[4], row[5] = n.Sec, int64(n.Nsec)
		}
	case "number":
		row[3] = n.Num
	}
	return row
}

// pathKey is the path column's value: the JSON array of the names.
func pathKey(names []string) string {
	b, _ := jsonenc.Marshal(names)
	return string(b)
}

// JQLQuery is a compiled JQL query.
type JQLQuery struct {
	// SQL is the SELECT returning the stored documents (column doc) of the
	// result, in order, after the cursor, cut to the limit.
	SQL string
	// CursorSQL, when the query has a startAfter cursor, counts the
	// documents the cursor names; none makes the query invalid, as in
	// process.
	CursorSQL string
	// Warnings are the query's non-fatal diagnostics.
	Warnings []syntax.Diagnostic
}

// CompileJQL compiles a parsed query. An invalid query is the evaluator's
// *jql.QueryError; a construct the dialect cannot answer exactly is an
// *UnsupportedError.
func CompileJQL(q *syn.Query, parseDiags []syntax.Diagnostic, d Dialect) (*JQLQuery, error) {
	return CompileJQLMapped(q, parseDiags, d, nil)
}

// CompileJQLMapped compiles a parsed query over tables loaded with the
// mapping m: a condition on a field the mapping keeps in columns of the
// domain's table tests those columns (and the node table only for the
// documents where the field has several values).
func CompileJQLMapped(q *syn.Query, parseDiags []syntax.Diagnostic, d Dialect, m JQLMapping) (*JQLQuery, error) {
	warns, err := evjql.Prepare(q, parseDiags)
	if err != nil {
		return nil, err
	}
	c := &jqlCompiler{d: d, dom: q.Domain(), fields: m[q.Domain()]}
	var where []string
	var fcs []flatCond
	// The conditions of one where entry (one key) hold for one and the
	// same value, as the evaluator's groups.
	for i := 0; i < len(q.Where); {
		j := i + 1
		for j < len(q.Where) && q.Where[j].KeySpan == q.Where[i].KeySpan {
			j++
		}
		ws, fc, err := c.group(q.Where[i:j])
		if err != nil {
			return nil, err
		}
		where = append(where, ws...)
		if fc != nil {
			fcs = append(fcs, *fc)
		}
		i = j
	}
	dir := "DESC"
	if q.Order == "asc" {
		dir = "ASC"
	}
	var b strings.Builder
	from := Ident(c.dom) + " AS t"
	out := &JQLQuery{Warnings: warns}
	if q.StartAfter != "" {
		lit, err := d.String(q.StartAfter)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "WITH cur AS (SELECT ct_rank, ct_sec, ct_nsec, ct_str, id FROM %s WHERE cid = %s ORDER BY ord LIMIT 1)\n", Ident(c.dom), lit)
		from += ", cur"
		where = append(where, after(dir))
		out.CursorSQL = fmt.Sprintf("SELECT count(*) FROM %s WHERE cid = %s", Ident(c.dom), lit)
	}
	order := fmt.Sprintf("ORDER BY %%[1]sct_rank %[1]s, %%[1]sct_sec %[1]s, %%[1]sct_nsec %[1]s, %%[1]sct_str %[1]s, %%[1]sid, %%[1]sord\nLIMIT %[2]d", dir, q.Limit)
	parts := flatBranches(where, fcs)
	if len(parts) == 1 {
		fmt.Fprintf(&b, "SELECT t.doc FROM %s", from)
		writeWhere(&b, "\n", parts[0])
		fmt.Fprintf(&b, "\n"+order, "t.")
		out.SQL = b.String()
		return out, nil
	}
	// Tests on flattened fields: one part per set of flatBranches, each
	// sorted and cut to the limit, their union sorted and cut again. In
	// one WHERE, a field's test of the row would be an OR with its test of
	// the nodes, and a planner that pushes no OR of two columns into its
	// scan of the table (DuckDB) would read every row.
	b.WriteString("SELECT u.doc FROM (")
	for i, w := range parts {
		if i > 0 {
			b.WriteString("\n  UNION ALL")
		}
		fmt.Fprintf(&b, "\n  SELECT * FROM (SELECT t.doc, t.ct_rank, t.ct_sec, t.ct_nsec, t.ct_str, t.id, t.ord FROM %s", from)
		writeWhere(&b, "\n    ", w)
		fmt.Fprintf(&b, "\n    "+strings.ReplaceAll(order, "\n", "\n    ")+") AS b%d", "t.", i)
	}
	fmt.Fprintf(&b, "\n) AS u\n"+order, "u.")
	out.SQL = b.String()
	return out, nil
}

// writeWhere writes the conditions w as a WHERE clause, each on a line
// after nl.
func writeWhere(b *strings.Builder, nl string, w []string) {
	for i, c := range w {
		if i == 0 {
			b.WriteString(nl + "WHERE ")
		} else {
			b.WriteString(nl + "  AND ")
		}
		b.WriteString(c)
	}
}

// after is the condition that a row comes after the cursor in the order:
// the createTime columns in dir, then id ascending.
func after(dir string) string {
	op := "<"
	if dir == "ASC" {
		op = ">"
	}
	cols := []string{"ct_rank", "ct_sec", "ct_nsec", "ct_str"}
	var alts []string
	for i := range cols {
		var eq []string
		for _, c := range cols[:i] {
			eq = append(eq, fmt.Sprintf("t.%s = cur.%s", c, c))
		}
		alts = append(alts, strings.Join(append(eq, fmt.Sprintf("t.%s %s cur.%s", cols[i], op, cols[i])), " AND "))
	}
	var eq []string
	for _, c := range cols {
		eq = append(eq, fmt.Sprintf("t.%s = cur.%s", c, c))
	}
	alts = append(alts, strings.Join(append(eq, "t.id > cur.id"), " AND "))
	return "((" + strings.Join(alts, ") OR (") + "))"
}

type jqlCompiler struct {
	d      Dialect
	dom    string
	fields []FlatField
	// flat is the column of the field being compiled, when the mapping
	// flattens it; the tests then read the document's row, not a node.
	flat string
}

// col is a column of the value tested: the node n's, or the flattened
// field's on the document's row t.
func (c *jqlCompiler) col(name string) string {
	if c.flat == "" {
		return "n." + name
	}
	if name == "str" {
		return "t." + c.flat
	}
	return "t." + c.flat + "_" + name
}

// group compiles the conditions of one where entry: an exists test per
// exists operator, and one node of the path satisfying every other
// operator.
func (c *jqlCompiler) group(conds []*syn.Condition) ([]string, *flatCond, error) {
	path, err := c.d.String(pathKey(conds[0].Path.Names()))
	if err != nil {
		return nil, nil, err
	}
	// A semi-join on the node table: the planner can start from the
	// nodes of the path (an index on path and value) or probe them per
	// document.
	nodes := fmt.Sprintf("SELECT n.ord FROM %s AS n WHERE n.path = %s", Ident(c.dom+"_nodes"), path)
	if f := c.field(conds[0].Path.Names()); f != "" {
		return c.flatGroup(conds, f, nodes)
	}
	if mappedNodesOnly(c.fields) {
		return nil, nil, &UnsupportedError{Construct: "a condition on " + strings.Join(conds[0].Path.Names(), "."), Dialect: c.d,
			Why: "the mapping keeps the field in no column and the node table holds only the mapped fields (nodes: mapped)"}
	}
	var out, tests []string
	for _, cd := range conds {
		if cd.Op == syn.OpExists {
			not := ""
			if !cd.Operand.Bool {
				not = "NOT "
			}
			out = append(out, fmt.Sprintf("t.ord %sIN (%s)", not, nodes))
			continue
		}
		t, err := c.test(cd)
		if err != nil {
			return nil, nil, err
		}
		tests = append(tests, t)
	}
	if len(tests) > 0 {
		out = append(out, fmt.Sprintf("t.ord IN (%s AND n.kind <> 'array' AND %s)", nodes, strings.Join(tests, " AND ")))
	}
	return out, nil, nil
}

// test compiles one operator over the node n; the result is never NULL.
func (c *jqlCompiler) test(cd *syn.Condition) (string, error) {
	switch cd.Op {
	case syn.OpEq:
		return c.equal(cd.Operand)
	case syn.OpNeq:
		e, err := c.equal(cd.Operand)
		return "NOT " + e, err
	case syn.OpIn:
		var alts []string
		for _, e := range cd.Operand.Elems {
			s, err := c.equal(e)
			if err != nil {
				return "", err
			}
			alts = append(alts, s)
		}
		if len(alts) == 0 {
			return "1 = 0", nil
		}
		return "(" + strings.Join(alts, " OR ") + ")", nil
	case syn.OpContains:
		lit, err := c.d.String(strings.ToLower(cd.Operand.Str))
		if err != nil {
			return "", err
		}
		f := "instr(COALESCE(%[1]s, %[2]s), %[3]s) > 0"
		if c.d == Postgres {
			f = "strpos(COALESCE(%[1]s, %[2]s), %[3]s) > 0"
		}
		return "(" + c.col("kind") + " = 'string' AND " + fmt.Sprintf(f, c.col("low"), c.col("str"), lit) + ")", nil
	case syn.OpGt, syn.OpLt, syn.OpGte, syn.OpLte:
		return c.compare(cd.Op, cd.Operand)
	}
	return "", &UnsupportedError{Construct: "the operator " + cd.Op, Dialect: c.d}
}

// equal is the evaluator's equality of a node and a literal: numbers by
// value, strings byte for byte or, when both read as times, as instants.
func (c *jqlCompiler) equal(v *syn.Value) (string, error) {
	switch v.Kind {
	case syn.KindString:
		lit, err := c.d.String(v.Str)
		if err != nil {
			return "", err
		}
		if sec, nsec, ok := evjql.LiteralTime(v.Str); ok {
			return fmt.Sprintf("(%s = 'string' AND (%s = %s OR COALESCE(%s = %d AND %s = %d, 1 = 0)))", c.col("kind"), c.col("str"), lit, c.col("ts_sec"), sec, c.col("ts_nsec"), nsec), nil
		}
		return fmt.Sprintf("(%s = 'string' AND %s = %s)", c.col("kind"), c.col("str"), lit), nil
	case syn.KindNumber:
		return fmt.Sprintf("(%s = 'number' AND %s = %s)", c.col("kind"), c.col("num"), c.d.Float(v.Num)), nil
	case syn.KindBool:
		if v.Bool {
			return "(" + c.col("kind") + " = 'true')", nil
		}
		return "(" + c.col("kind") + " = 'false')", nil
	case syn.KindNull:
		return "(" + c.col("kind") + " = 'null')", nil
	}
	return "", &UnsupportedError{Construct: "a " + v.Kind.String() + " operand", Dialect: c.d}
}

// compare is the evaluator's order of a node and a literal of its kind.
func (c *jqlCompiler) compare(op string, v *syn.Value) (string, error) {
	sym := map[string]string{syn.OpGt: ">", syn.OpLt: "<", syn.OpGte: ">=", syn.OpLte: "<="}[op]
	switch v.Kind {
	case syn.KindNumber:
		return fmt.Sprintf("(%s = 'number' AND %s %s %s)", c.col("kind"), c.col("num"), sym, c.d.Float(v.Num)), nil
	case syn.KindString:
		lit, err := c.d.String(v.Str)
		if err != nil {
			return "", err
		}
		if sec, nsec, ok := evjql.LiteralTime(v.Str); ok {
			strict := sym[:1]
			k, str, ts, tn := c.col("kind"), c.col("str"), c.col("ts_sec"), c.col("ts_nsec")
			return fmt.Sprintf("(%s = 'string' AND CASE WHEN %s IS NULL THEN %s %s %s ELSE %s %s %d OR (%s = %d AND %s %s %d) END)",
				k, ts, str, sym, lit, ts, strict, sec, ts, sec, tn, sym, nsec), nil
		}
		return fmt.Sprintf("(%s = 'string' AND %s %s %s)", c.col("kind"), c.col("str"), sym, lit), nil
	}
	return "", &UnsupportedError{Construct: "the operator " + op + " on a " + v.Kind.String(), Dialect: c.d}
}
