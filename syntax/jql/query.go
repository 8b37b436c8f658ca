// Package jql parses JQL queries, the JSON-shaped queries over the sessions
// and activities of an agent's local cache, and holds the JQL schema as data.
//
// A query is an object {from, select?, where?, order?, limit?, startAfter?}.
// Three text forms are accepted and remembered per query (see Form): strict
// JSON, the JavaScript object-literal form (unquoted keys, single quotes,
// trailing commas, comments, bare identifiers as strings) and YAML.
//
// JSON and the object-literal form share one small hand-written
// recursive-descent parser over a total lexer: JSON is a subset of the
// object-literal form, the parser records whether any relaxed syntax was
// used, and a hand-written parser makes per-query error recovery and exact
// byte spans (also inside escaped strings) straightforward, where a grammar
// library would need a second pass for both. YAML goes through
// github.com/goccy/go-yaml; byte offsets are recomputed from its line and
// column.
//
// Every key and value has a byte span; select and where paths also have a
// span per segment, for the '-' prefix, '*' and each '[]' marker.
package jql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/syntax"
)

// Diagnostic codes produced by parsing and checking.
const (
	// CodeSyntax marks text that is not a well-formed query document.
	CodeSyntax = "SyntaxError"
	// CodeInvalidQuery marks a well-formed document with a bad clause
	// (unknown key, wrong value type, bad order or limit).
	CodeInvalidQuery = "InvalidQuery"
	// CodeInvalidDomain marks a from that is not a known domain.
	CodeInvalidDomain = "InvalidDomain"
	// CodeInvalidPath marks a field path that does not exist in the schema.
	CodeInvalidPath = "InvalidPath"
	// CodeInvalidOperator marks a filter operator not supported for a field.
	CodeInvalidOperator = "InvalidOperator"
	// CodeInvalidCursor marks a startAfter id that names no document.
	CodeInvalidCursor = "InvalidCursor"
)

// Form is the text form a query was written in.
type Form int

// The text forms.
const (
	FormJSON Form = iota
	FormObjectLiteral
	FormYAML
)

// String returns "json", "object-literal" or "yaml".
func (f Form) String() string {
	switch f {
	case FormJSON:
		return "json"
	case FormObjectLiteral:
		return "object-literal"
	case FormYAML:
		return "yaml"
	}
	return "form(" + strconv.Itoa(int(f)) + ")"
}

// DefaultLimit and MaxLimit bound the number of results.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Segment is one step of a field path.
type Segment struct {
	// Name is the field name.
	Name string
	// Sp covers the name in the source.
	Sp syntax.Span
	// Array is true when the segment carries the explicit "[]" marker.
	Array bool
	// ArraySpan covers the "[]" marker when Array is true.
	ArraySpan syntax.Span
}

// Path is a dotted field path such as "artifacts.changeSet.gitPatch".
type Path struct {
	// Text is the path as written, without any '-' prefix.
	Text string
	// Sp covers the path text.
	Sp syntax.Span
	// Segments are the path's steps.
	Segments []Segment
}

// Names returns the segment names.
func (p Path) Names() []string {
	out := make([]string, len(p.Segments))
	for i, s := range p.Segments {
		out[i] = s.Name
	}
	return out
}

// SelectItem is one select expression: a path, "*" or an exclusion.
type SelectItem struct {
	// Sp covers the whole string literal.
	Sp syntax.Span
	// Star is true for "*".
	Star bool
	// StarSpan covers the '*'.
	StarSpan syntax.Span
	// Exclude is true for a '-' prefixed path.
	Exclude bool
	// ExcludeSpan covers the '-'.
	ExcludeSpan syntax.Span
	// Path is the selected or excluded path (empty for Star).
	Path Path
}

// Operators of a where condition.
const (
	OpEq       = "eq"
	OpNeq      = "neq"
	OpGt       = "gt"
	OpLt       = "lt"
	OpGte      = "gte"
	OpLte      = "lte"
	OpIn       = "in"
	OpContains = "contains"
	OpExists   = "exists"
)

// Operators lists every operator in documentation order.
func Operators() []string {
	return []string{OpEq, OpNeq, OpGt, OpLt, OpGte, OpLte, OpIn, OpContains, OpExists}
}

// Condition is one test in a where clause: a path, an operator and an operand.
type Condition struct {
	// Path is the tested field.
	Path Path
	// KeySpan covers the where key (the quoted path).
	KeySpan syntax.Span
	// Op is one of the Op constants.
	Op string
	// OpSpan covers the operator key, or the value for the equality shorthand.
	OpSpan syntax.Span
	// Shorthand is true for `path: literal`.
	Shorthand bool
	// Operand is the operand value (an array for "in").
	Operand *Value
}

// Query is one parsed JQL query. Fields are nil or zero when absent.
type Query struct {
	// Sp covers the query text.
	Sp syntax.Span
	// Form is the text form the query was written in.
	Form Form
	// Root is the raw document.
	Root *Value
	// From is the domain value.
	From *Value
	// Select lists the select expressions; nil when select is absent or empty.
	Select []*SelectItem
	// SelectValue is the raw select value.
	SelectValue *Value
	// Where lists the conditions, ANDed.
	Where []*Condition
	// WhereValue is the raw where value.
	WhereValue *Value
	// Order is "asc" or "desc" (the default).
	Order string
	// OrderValue is the raw order value.
	OrderValue *Value
	// Limit is the result limit (DefaultLimit when absent, at most MaxLimit).
	Limit int
	// LimitValue is the raw limit value.
	LimitValue *Value
	// StartAfter is the cursor id, "" when absent.
	StartAfter string
	// StartAfterValue is the raw startAfter value.
	StartAfterValue *Value
}

// Domain returns the from value as a string ("" when absent or not a string).
func (q *Query) Domain() string {
	if q.From == nil || q.From.Kind != KindString {
		return ""
	}
	return q.From.Str
}

// File is a parsed query file: one or more queries.
type File struct {
	// Name is the file name.
	Name string
	// Text is the source text.
	Text string
	// Queries are the queries in source order, partial where they had errors.
	Queries []*Query
	// Diagnostics are all parse diagnostics, in source order.
	Diagnostics []syntax.Diagnostic
}

func diag(span syntax.Span, code, msg string) syntax.Diagnostic {
	return syntax.Diagnostic{Span: span, Severity: syntax.SeverityError, Code: code, Message: code + ": " + msg}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// IsYAMLName reports whether a file name selects the YAML form.
func IsYAMLName(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// looksLikeYAML guesses the form of a query text: anything whose first
// significant character is not '{' is read as YAML.
func looksLikeYAML(src string) bool {
	lx := &lexer{src: src}
	lx.skipSpace()
	return lx.pos < len(src) && src[lx.pos] != '{'
}

// ParseFile parses a query file. Names ending in .yaml or .yml are read as
// YAML (documents separated by "---"); anything else as one or more JSON or
// object-literal queries one after another (a file whose text does not start
// with '{' is read as YAML too).
func ParseFile(name, src string) *File {
	f := &File{Name: name, Text: src}
	var docs []parsedDoc
	yaml := IsYAMLName(name) || looksLikeYAML(src)
	if yaml {
		docs = parseYAMLDocs(src)
	} else {
		docs = parseObjects(src)
	}
	for _, d := range docs {
		form := FormJSON
		if yaml {
			form = FormYAML
		} else if d.relaxed {
			form = FormObjectLiteral
		}
		q, ds := buildQuery(d.val, form)
		q.Sp = d.span
		f.Queries = append(f.Queries, q)
		f.Diagnostics = append(f.Diagnostics, d.diags...)
		f.Diagnostics = append(f.Diagnostics, ds...)
	}
	syntax.SortDiagnostics(f.Diagnostics)
	return f
}

// ParseQuery parses a single query, detecting its form. Text holding more
// than one query is an error reported at the second one.
func ParseQuery(src string) (*Query, []syntax.Diagnostic) {
	f := ParseFile("query", src)
	if len(f.Queries) == 0 {
		d := diag(syntax.Sp(0, 0), CodeSyntax, "empty query")
		return &Query{Order: "desc", Limit: DefaultLimit, Root: &Value{}}, []syntax.Diagnostic{d}
	}
	ds := f.Diagnostics
	if len(f.Queries) > 1 {
		ds = append(ds, diag(f.Queries[1].Sp, CodeSyntax, "expected a single query, found more"))
	}
	return f.Queries[0], ds
}

// buildQuery turns a raw document into a Query, reporting clause errors.
func buildQuery(v *Value, form Form) (*Query, []syntax.Diagnostic) {
	q := &Query{Form: form, Root: v, Order: "desc", Limit: DefaultLimit}
	var ds []syntax.Diagnostic
	add := func(span syntax.Span, code, format string, args ...any) {
		ds = append(ds, diag(span, code, sprintf(format, args...)))
	}
	if v == nil || v.Kind == KindInvalid {
		return q, nil
	}
	if v.Kind != KindObject {
		add(v.Sp, CodeInvalidQuery, "a query must be an object, found %s", v.Kind)
		return q, ds
	}
	seen := map[string]bool{}
	for _, m := range v.Members {
		k := m.Key.Str
		if seen[k] {
			add(m.Key.Sp, CodeInvalidQuery, "duplicate key %q", k)
		}
		seen[k] = true
		val := m.Value
		if val == nil {
			continue
		}
		switch k {
		case "from":
			q.From = val
			if val.Kind != KindString {
				add(val.Sp, CodeInvalidDomain, "from must be a string naming a domain (sessions or activities), found %s", val.Kind)
			}
		case "select":
			q.SelectValue = val
			items := []*Value{val}
			if val.Kind == KindArray {
				items = val.Elems
			}
			for _, it := range items {
				if it.Kind == KindInvalid {
					continue
				}
				if it.Kind != KindString {
					add(it.Sp, CodeInvalidQuery, "a select expression must be a string, found %s", it.Kind)
					continue
				}
				si, d := parseSelect(it)
				ds = append(ds, d...)
				if si != nil {
					q.Select = append(q.Select, si)
				}
			}
		case "where":
			q.WhereValue = val
			if val.Kind != KindObject {
				if val.Kind != KindInvalid {
					add(val.Sp, CodeInvalidQuery, "where must be an object, found %s", val.Kind)
				}
				continue
			}
			for _, wm := range val.Members {
				cs, d := parseCondition(wm)
				ds = append(ds, d...)
				q.Where = append(q.Where, cs...)
			}
		case "order":
			q.OrderValue = val
			if val.Kind == KindString && (val.Str == "asc" || val.Str == "desc") {
				q.Order = val.Str
			} else if val.Kind != KindInvalid {
				add(val.Sp, CodeInvalidQuery, "order must be 'asc' or 'desc'")
			}
		case "limit":
			q.LimitValue = val
			switch {
			case val.Kind != KindNumber:
				if val.Kind != KindInvalid {
					add(val.Sp, CodeInvalidQuery, "limit must be a positive integer, found %s", val.Kind)
				}
			case val.Num != float64(int64(val.Num)) || val.Num < 1:
				add(val.Sp, CodeInvalidQuery, "limit must be a positive integer, found %s", val.Str)
			case val.Num > MaxLimit:
				q.Limit = MaxLimit
				ds = append(ds, syntax.Diagnostic{Span: val.Sp, Severity: syntax.SeverityWarning, Code: CodeInvalidQuery,
					Message: sprintf("%s: limit %s exceeds the maximum %d; %d is used", CodeInvalidQuery, val.Str, MaxLimit, MaxLimit)})
			default:
				q.Limit = int(val.Num)
			}
		case "startAfter":
			q.StartAfterValue = val
			if val.Kind == KindString && val.Str != "" {
				q.StartAfter = val.Str
			} else if val.Kind != KindInvalid {
				add(val.Sp, CodeInvalidCursor, "startAfter must be a non-empty id string")
			}
		default:
			add(m.Key.Sp, CodeInvalidQuery, "unknown query key %q (want from, select, where, order, limit or startAfter)", k)
		}
	}
	if q.From == nil {
		add(syntax.Sp(v.Sp.Start, min(v.Sp.Start+1, v.Sp.End)), CodeInvalidDomain, "missing from (sessions or activities)")
	}
	return q, ds
}

// parseSelect parses one select expression string.
func parseSelect(v *Value) (*SelectItem, []syntax.Diagnostic) {
	si := &SelectItem{Sp: v.Sp}
	s := v.Str
	i := 0
	if strings.HasPrefix(s, "-") {
		si.Exclude = true
		si.ExcludeSpan = v.SubSpan(0, 1)
		i = 1
	}
	if s[i:] == "*" {
		if si.Exclude {
			return nil, []syntax.Diagnostic{diag(v.SubSpan(0, len(s)), CodeInvalidPath, "\"-*\" excludes everything; remove it")}
		}
		si.Star = true
		si.StarSpan = v.SubSpan(i, i+1)
		return si, nil
	}
	p, ds := parsePath(v, i)
	si.Path = p
	if len(ds) > 0 {
		return nil, ds
	}
	return si, nil
}

// parsePath parses the dotted path in v.Str[from:].
func parsePath(v *Value, from int) (Path, []syntax.Diagnostic) {
	s := v.Str
	p := Path{Text: s[from:], Sp: v.SubSpan(from, len(s))}
	if from == len(s) {
		return p, []syntax.Diagnostic{diag(v.Sp, CodeInvalidPath, "empty field path")}
	}
	var ds []syntax.Diagnostic
	start := from
	for i := from; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		seg := s[start:i]
		sg := Segment{Name: seg, Sp: v.SubSpan(start, i)}
		if strings.HasSuffix(seg, "[]") {
			sg.Name = seg[:len(seg)-2]
			sg.Array = true
			sg.Sp = v.SubSpan(start, i-2)
			sg.ArraySpan = v.SubSpan(i-2, i)
		}
		switch {
		case sg.Name == "":
			ds = append(ds, diag(v.SubSpan(start, max(i, min(i+1, len(s)))), CodeInvalidPath, "empty segment in field path "+strconv.Quote(p.Text)))
		case strings.ContainsAny(sg.Name, "[]*"):
			ds = append(ds, diag(sg.Sp, CodeInvalidPath, "invalid field name "+strconv.Quote(sg.Name)))
		}
		p.Segments = append(p.Segments, sg)
		start = i + 1
	}
	return p, ds
}

func isLiteral(v *Value) bool {
	switch v.Kind {
	case KindString, KindNumber, KindBool, KindNull:
		return true
	}
	return false
}

// parseCondition parses one where entry into one condition per operator.
func parseCondition(m *Member) ([]*Condition, []syntax.Diagnostic) {
	path, ds := parsePath(m.Key, 0)
	if len(ds) > 0 {
		return nil, ds
	}
	v := m.Value
	if v == nil || v.Kind == KindInvalid {
		return nil, nil
	}
	if isLiteral(v) {
		return []*Condition{{Path: path, KeySpan: m.Key.Sp, Op: OpEq, OpSpan: v.Sp, Shorthand: true, Operand: v}}, nil
	}
	if v.Kind == KindArray {
		return nil, []syntax.Diagnostic{diag(v.Sp, CodeInvalidOperator, "an array is not a filter value; use {in: [...]} for set membership")}
	}
	if len(v.Members) == 0 {
		return nil, []syntax.Diagnostic{diag(v.Sp, CodeInvalidOperator, "empty filter object; want one of eq, neq, gt, lt, gte, lte, in, contains, exists")}
	}
	var out []*Condition
	for _, om := range v.Members {
		op := om.Key.Str
		operand := om.Value
		if operand == nil || operand.Kind == KindInvalid {
			continue
		}
		c := &Condition{Path: path, KeySpan: m.Key.Sp, Op: op, OpSpan: om.Key.Sp, Operand: operand}
		switch op {
		case OpEq, OpNeq, OpGt, OpLt, OpGte, OpLte:
			if !isLiteral(operand) {
				ds = append(ds, diag(operand.Sp, CodeInvalidOperator, sprintf("%s needs a literal operand, found %s", op, operand.Kind)))
				continue
			}
			if (op != OpEq && op != OpNeq) && (operand.Kind == KindBool || operand.Kind == KindNull) {
				ds = append(ds, diag(operand.Sp, CodeInvalidOperator, sprintf("%s needs a number or string operand, found %s", op, operand.Kind)))
				continue
			}
		case OpIn:
			if operand.Kind != KindArray {
				ds = append(ds, diag(operand.Sp, CodeInvalidOperator, sprintf("in needs an array of literals, found %s", operand.Kind)))
				continue
			}
			bad := false
			for _, e := range operand.Elems {
				if !isLiteral(e) {
					ds = append(ds, diag(e.Sp, CodeInvalidOperator, sprintf("in needs an array of literals, found %s", e.Kind)))
					bad = true
				}
			}
			if bad {
				continue
			}
		case OpContains:
			if operand.Kind != KindString {
				ds = append(ds, diag(operand.Sp, CodeInvalidOperator, sprintf("contains needs a string operand, found %s", operand.Kind)))
				continue
			}
		case OpExists:
			if operand.Kind != KindBool {
				ds = append(ds, diag(operand.Sp, CodeInvalidOperator, sprintf("exists needs true or false, found %s", operand.Kind)))
				continue
			}
		default:
			ds = append(ds, diag(om.Key.Sp, CodeInvalidOperator, sprintf("unknown operator %q; want one of %s", op, strings.Join(Operators(), ", "))))
			continue
		}
		out = append(out, c)
	}
	return out, ds
}

// PathAt finds the select or where path whose text covers the byte offset
// off and returns it with the index of the segment at off (-1 when off is on
// a '.' or a '[]' marker). It returns nil when no path is there. Hover and
// completion use it.
func (q *Query) PathAt(off int) (*Path, int) {
	look := func(p *Path) (*Path, int) {
		if len(p.Segments) == 0 || !p.Sp.Touches(off) {
			return nil, 0
		}
		for i, s := range p.Segments {
			if s.Sp.Touches(off) {
				return p, i
			}
		}
		return p, -1
	}
	for _, s := range q.Select {
		if p, i := look(&s.Path); p != nil {
			return p, i
		}
	}
	for _, c := range q.Where {
		if p, i := look(&c.Path); p != nil {
			return p, i
		}
	}
	return nil, 0
}
