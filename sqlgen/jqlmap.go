package sqlgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	evjql "github.com/ctxql/ctxql/eval/jql"
	syn "github.com/ctxql/ctxql/syntax/jql"
)

// JQL's flattened columns. A mapping file names, per domain, fields kept
// in columns of the domain's table besides the node table:
//
//	activities:
//	  columns:
//	    type: type
//	    artifacts.exitCode: exit_code
//
// A field's column C comes with C_kind, C_low, C_num, C_ts_sec and
// C_ts_nsec, the node columns of its value: when the field's path reaches
// exactly one value of the document and that is no array, the columns
// hold it (C its string); when it reaches none, C_kind is NULL; when it
// reaches several (arrays crossed) or an array, C_kind is 'multi' and a
// condition reads that document's nodes as without the mapping. So a
// condition on a mapped field is a test of the document's row, answered
// exactly as over the nodes. The mapping loaded is recorded in the
// database (JQLColumnsTable), where eval --engine reads it.
//
// A domain's mapping may add `nodes: mapped`: the node table then holds
// only what the columns cannot, the nodes of a mapped field in the
// documents where it is 'multi', and a condition on a field the mapping
// keeps in no column is refused. The tables shrink to the documents' rows
// and those nodes.

// JQLColumnsTable records the flattened fields of a database's JQL
// tables: domain, path (the JSON array of the field names), column.
const JQLColumnsTable = "ctxql_jql_columns"

// FlatField is a field kept in columns of its domain's table.
type FlatField struct {
	// Path is the field names from the document's root.
	Path []string
	// Column is the name of its string column, the prefix of the others.
	Column string
}

// JQLMapping is, per domain, its flattened fields. An entry with no path
// and no column (FlatField{}) says the domain's node table holds only the
// mapped fields' several values (`nodes: mapped`).
type JQLMapping map[string][]FlatField

// mappedNodesOnly reports whether fields say `nodes: mapped`.
func mappedNodesOnly(fields []FlatField) bool {
	return slices.ContainsFunc(fields, func(f FlatField) bool { return f.Column == "" })
}

// isColumnName reports whether s is a column name a mapping may give: a
// lower-case letter, then at most 39 lower-case letters, digits and
// underscores. (A function, not a regular expression: the program compiles
// nothing for it when it starts.)
func isColumnName(s string) bool {
	if len(s) == 0 || len(s) > 40 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// flatSuffixes are the columns of a flattened field after its own.
var flatSuffixes = []string{"_kind", "_low", "_num", "_ts_sec", "_ts_nsec"}

// ParseJQLMapping reads a mapping file (YAML or JSON): per domain
// (sessions, activities) "columns", a map of dotted field paths to column
// names (lower-case letters, digits and underscores, from a letter), and
// optionally "nodes", all (the default) or mapped.
func ParseJQLMapping(src []byte) (JQLMapping, error) {
	var raw map[string]struct {
		Columns map[string]string `yaml:"columns"`
		Nodes   string            `yaml:"nodes"`
	}
	if err := yaml.UnmarshalWithOptions(src, &raw, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	m := JQLMapping{}
	for dom, spec := range raw {
		if !slices.Contains(JQLDomains(), dom) {
			return nil, fmt.Errorf("mapping: unknown domain %q (want sessions or activities)", dom)
		}
		taken := map[string]bool{}
		for _, c := range JQLTables(dom)[0].Columns {
			taken[c.Name] = true
		}
		for _, path := range sortedKeys(spec.Columns) {
			col := spec.Columns[path]
			if !isColumnName(col) || reserved[col] {
				return nil, fmt.Errorf("mapping: %s.%s: column name %q is not a lower-case identifier of at most 40 characters", dom, path, col)
			}
			names := strings.Split(path, ".")
			if slices.Contains(names, "") {
				return nil, fmt.Errorf("mapping: %s: %q is not a field path", dom, path)
			}
			for _, c := range append([]string{col}, suffixed(col)...) {
				if taken[c] {
					return nil, fmt.Errorf("mapping: %s.%s: column %q is taken", dom, path, c)
				}
				taken[c] = true
			}
			m[dom] = append(m[dom], FlatField{Path: names, Column: col})
		}
		switch spec.Nodes {
		case "", "all":
		case "mapped":
			m[dom] = append(m[dom], FlatField{})
		default:
			return nil, fmt.Errorf("mapping: %s: nodes is %q (want all or mapped)", dom, spec.Nodes)
		}
	}
	return m, nil
}

func suffixed(col string) []string {
	out := make([]string, len(flatSuffixes))
	for i, s := range flatSuffixes {
		out[i] = col + s
	}
	return out
}

// JQLColumnsTableDef is the table recording the mapping.
func JQLColumnsTableDef() Table {
	return Table{Name: JQLColumnsTable, Columns: []Column{{"domain", Text}, {"path", Text}, {"col", Text}}}
}

// Rows hands emit the rows of JQLColumnsTable recording m.
func (m JQLMapping) Rows(emit func(table string, row []any) error) error {
	for _, dom := range sortedKeys(m) {
		for _, f := range m[dom] {
			// `nodes: mapped` is the row of path [] and no column.
			path := "[]"
			if f.Column != "" {
				path = pathKey(f.Path)
			}
			if err := emit(JQLColumnsTable, []any{dom, path, f.Column}); err != nil {
				return err
			}
		}
	}
	return nil
}

// JQLColumnsSQL selects the recorded mapping: domain, path, column.
func JQLColumnsSQL() string {
	return "SELECT domain, path, col FROM " + JQLColumnsTable + " ORDER BY domain, col"
}

// JQLMappingFromRows rebuilds a mapping from JQLColumnsSQL's rows.
func JQLMappingFromRows(rows [][3]string) (JQLMapping, error) {
	m := JQLMapping{}
	for _, r := range rows {
		if r[1] == "[]" && r[2] == "" {
			m[r[0]] = append(m[r[0]], FlatField{})
			continue
		}
		var names []string
		if err := yaml.Unmarshal([]byte(r[1]), &names); err != nil || len(names) == 0 {
			return nil, fmt.Errorf("%s: path %q is not a JSON array of names", JQLColumnsTable, r[1])
		}
		if !isColumnName(r[2]) {
			return nil, fmt.Errorf("%s: column %q is not a lower-case identifier", JQLColumnsTable, r[2])
		}
		m[r[0]] = append(m[r[0]], FlatField{Path: names, Column: r[2]})
	}
	return m, nil
}

// JQLTablesMapped returns the tables of one domain with the flattened
// columns of fields.
func JQLTablesMapped(domain string, fields []FlatField) []Table {
	ts := JQLTables(domain)
	for _, f := range fields {
		if f.Column == "" {
			continue
		}
		ts[0].Columns = append(ts[0].Columns, Column{f.Column, Text}, Column{f.Column + "_kind", Text}, Column{f.Column + "_low", Text},
			Column{f.Column + "_num", Float}, Column{f.Column + "_ts_sec", Int}, Column{f.Column + "_ts_nsec", Int})
		// Indexed on the kind first: a condition's test of the row
		// (C_kind = 'string' AND C = …) and the documents where the
		// field has several values (C_kind = 'multi'), the parts of a
		// compiled query, both read the same index.
		ts[0].Indexes = append(ts[0].Indexes, []string{f.Column + "_kind", f.Column}, []string{f.Column + "_kind", f.Column + "_num"})
	}
	return ts
}

// JQLRowsMapped derives the rows of one document as JQLRows does, the
// flattened fields' columns filled.
func JQLRowsMapped(domain string, ord int64, raw []byte, fields []FlatField, emit func(table string, row []any) error) error {
	if len(fields) == 0 {
		return JQLRows(domain, ord, raw, emit)
	}
	r, ok, err := evjql.TableRow(raw)
	if err != nil || !ok {
		return err
	}
	return jqlRows(domain, ord, raw, r, fields, emit)
}

// flatValues are the flattened columns of one field of a row: its only
// non-array node's columns, 'multi' for several nodes, NULLs for none.
func flatValues(nodes []evjql.Node, path []string) []any {
	out := []any{nil, nil, nil, nil, nil, nil}
	var found *evjql.Node
	for i := range nodes {
		if slices.Equal(nodes[i].Path, path) {
			if found != nil {
				out[1] = "multi"
				return out
			}
			found = &nodes[i]
		}
	}
	switch {
	case found == nil:
		return out
	case found.Kind == "array":
		out[1] = "multi"
		return out
	}
	nv := nodeValues(*found)
	// nodeValues: kind, str, low, num, ts_sec, ts_nsec.
	out[0], out[1], out[2], out[3], out[4], out[5] = nv[1], nv[0], nv[2], nv[3], nv[4], nv[5]
	return out
}

// field is the flattened column of a path, or "".
func (c *jqlCompiler) field(names []string) string {
	for _, f := range c.fields {
		if slices.Equal(f.Path, names) {
			return f.Column
		}
	}
	return ""
}

// flatCond is the test of one where entry's operators (other than
// exists) on a flattened field, in its two halves: single for the
// documents where the field's columns hold its value, multi for those
// where it has several (C_kind 'multi') and the node table answers.
type flatCond struct {
	col string
	// single are conjuncts over the document's row, the first
	// C_kind <> 'multi'.
	single []string
	// multi probes the document's nodes (without the test of C_kind).
	multi string
	// selective is whether an operator is not neq (flatBranches).
	selective bool
}

// either is the condition whole: one half or the other, by C_kind.
func (f flatCond) either() string {
	return fmt.Sprintf("((%s) OR (t.%s_kind = 'multi' AND %s))", strings.Join(f.single, " AND "), f.col, f.multi)
}

// flatGroup compiles the conditions of one where entry on a flattened
// field: exists tests its kind (conditions of the row, out), the other
// operators its columns, and the node table answers for documents where
// the field has several values (fc, unless every operator is exists).
func (c *jqlCompiler) flatGroup(conds []*syn.Condition, col, nodes string) (out []string, fc *flatCond, err error) {
	var tests, flat []string
	selective := false
	for _, cd := range conds {
		selective = selective || cd.Op != syn.OpExists && cd.Op != syn.OpNeq
		if cd.Op == syn.OpExists {
			not := "NOT "
			if !cd.Operand.Bool {
				not = ""
			}
			out = append(out, fmt.Sprintf("t.%s_kind IS %sNULL", col, not))
			continue
		}
		t, err := c.test(cd)
		if err != nil {
			return nil, nil, err
		}
		tests = append(tests, t)
		c.flat = col
		f, err := c.test(cd)
		c.flat = ""
		if err != nil {
			return nil, nil, err
		}
		flat = append(flat, f)
	}
	if len(tests) == 0 {
		return out, nil, nil
	}
	// The documents with several values probe their nodes (EXISTS, on
	// ord and path): IN would read every node of the path first.
	return out, &flatCond{
		col:       col,
		single:    append([]string{fmt.Sprintf("t.%s_kind <> 'multi'", col)}, flat...),
		multi:     fmt.Sprintf("EXISTS (%s AND n.ord = t.ord AND n.kind <> 'array' AND %s)", nodes, strings.Join(tests, " AND ")),
		selective: selective,
	}, nil
}

// flatBranches are the WHERE conditions of the parts of a query with
// tests on flattened fields, parts that hold disjoint sets of documents
// and together those of the query. The fields split on are those with a
// selective test (any operator but neq: a test a document passes only
// with a value of a kind named, the planner's way into the table); the
// parts are the documents where none of them is 'multi' (their tests of
// the row alone, conjuncts a planner can push into its scan of the
// table), then per field split on (in the order of the conditions) those
// where it is the first that is 'multi' (its C_kind = 'multi' and its
// nodes probed, the fields before it tested on the row, those after it
// either way). A field tested by neq alone, which most documents pass,
// is tested either way in every part. common holds in every part. No
// field to split on is one part, every field tested either way.
func flatBranches(common []string, fcs []flatCond) [][]string {
	var cols []string
	for _, f := range fcs {
		if f.selective && !slices.Contains(cols, f.col) {
			cols = append(cols, f.col)
		}
	}
	// The part of field i (-1: of none); j is field f's index in cols.
	part := func(i int) []string {
		w := slices.Clone(common)
		if i >= 0 {
			w = append(w, fmt.Sprintf("t.%s_kind = 'multi'", cols[i]))
		}
		for _, f := range fcs {
			switch j := slices.Index(cols, f.col); {
			case j < 0:
				w = append(w, f.either())
			case i < 0 || j < i:
				w = append(w, f.single...)
			case j == i:
				w = append(w, f.multi)
			default:
				w = append(w, f.either())
			}
		}
		return w
	}
	out := [][]string{part(-1)}
	for i := range cols {
		out = append(out, part(i))
	}
	return out
}
