package jqllint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/analysis"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/jql"
)

var invalidDomain = &analysis.Analyzer{
	Code: "JQL001", Name: "invalid-domain", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityError, Fix: analysis.SafeFix,
	Doc: analysis.Doc{
		Summary: "The from clause names no domain of the schema",
		Details: "A query reads one domain, `sessions` or `activities`; any other name is the specification's " +
			"InvalidDomain error and the query cannot run. When exactly one domain is spelled close to the " +
			"name (a few typed letters apart, or differing only in case) the fix replaces the name with it; " +
			"when several are close, each is offered as an unsafe fix. A missing or non-string from is a " +
			"parse error and not reported here.",
		Bad:  "{from: 'activites', where: {type: 'agentMessaged'}}",
		Good: "{from: 'activities', where: {type: 'agentMessaged'}}",
	},
	Run: runInvalidDomain,
}

func runInvalidDomain(p *analysis.Pass) error {
	f, s := input(p)
	if f == nil {
		return nil
	}
	for _, q := range f.Queries {
		if q == nil || q.From == nil || q.From.Kind != jql.KindString || s.Domain(q.From.Str) != nil {
			continue
		}
		names := s.DomainNames()
		d := syntax.Diagnostic{Span: q.From.Sp,
			Message: fmt.Sprintf("unknown domain %q; want %s", q.From.Str, strings.Join(names, " or "))}
		cands := closest(q.From.Str, names)
		inner := q.From.SubSpan(0, len(q.From.Str))
		if len(cands) > 0 && editable(p.File, inner, q.From.Str) {
			for _, c := range cands {
				d.SuggestedFixes = append(d.SuggestedFixes, syntax.SuggestedFix{
					Message:   fmt.Sprintf("Replace with %q", c),
					TextEdits: []syntax.TextEdit{{Span: inner, NewText: c}},
					Unsafe:    len(cands) > 1,
				})
			}
			d.Message += fmt.Sprintf("; did you mean %s?", quoteAll(cands))
		}
		p.Report(d)
	}
	return nil
}

var unknownField = &analysis.Analyzer{
	Code: "JQL002", Name: "unknown-field", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityError, Fix: analysis.SafeFix,
	Doc: analysis.Doc{
		Summary: "A select or where path names a field the schema does not have",
		Details: "Paths are resolved against the schema of the query's domain, arrays crossed implicitly. In " +
			"where, an unknown path is the specification's InvalidPath error (reported as an error); in select, " +
			"the path simply selects nothing (the specification's EDGE-01 case) and is reported as a warning. " +
			"The diagnostic points at the first segment that does not resolve. When exactly one field of the " +
			"object there is spelled close to it, and every later segment can be repaired the same way, the fix " +
			"rewrites the path; with several close fields each repair is offered as an unsafe fix. Computed " +
			"fields are never suggested for a where path because they cannot be filtered.",
		Bad:  "{from: 'activities', where: {'artifacts.exitCod': {neq: 0}}}",
		Good: "{from: 'activities', where: {'artifacts.exitCode': {neq: 0}}}",
	},
	Run: runUnknownField,
}

func runUnknownField(p *analysis.Pass) error {
	eachQuery(p, func(q *jql.Query, d *jql.Domain) {
		for _, it := range q.Select {
			if it == nil || it.Star {
				continue
			}
			reportUnknown(p, d, it.Path, false)
		}
		seen := map[syntax.Span]bool{}
		for _, c := range q.Where {
			if c == nil || seen[c.KeySpan] {
				continue
			}
			seen[c.KeySpan] = true
			reportUnknown(p, d, c.Path, true)
		}
	})
	return nil
}

func reportUnknown(p *analysis.Pass, d *jql.Domain, path jql.Path, filter bool) {
	if len(path.Segments) == 0 {
		return
	}
	r := d.Resolve(path)
	if r.Bad < 0 || r.Bad >= len(path.Segments) {
		return
	}
	dg := syntax.Diagnostic{Span: path.Segments[r.Bad].Sp, Message: r.Reason}
	if !filter {
		dg.Severity = syntax.SeverityWarning
		dg.Message += "; the path selects nothing"
	}
	alts := repairs(p.File, d, path, r.Bad, filter)
	if len(alts) > 0 {
		var names []string
		for _, a := range alts {
			names = append(names, a.path)
			dg.SuggestedFixes = append(dg.SuggestedFixes, syntax.SuggestedFix{
				Message: fmt.Sprintf("Replace with %q", a.path), TextEdits: a.edits, Unsafe: len(alts) > 1})
		}
		dg.Message += fmt.Sprintf("; did you mean %s?", quoteAll(names))
	}
	p.Report(dg)
}

// repair is one way to rewrite a path so that it resolves.
type repair struct {
	path  string
	edits []syntax.TextEdit
}

// repairs returns the rewrites of path that resolve, starting at its first
// bad segment: one per close candidate for that segment, each later bad
// segment repaired only when exactly one field is close to it.
func repairs(f *syntax.File, d *jql.Domain, path jql.Path, bad int, filter bool) []repair {
	t := d.Root
	for i := 0; i < bad; i++ {
		fl := t.Lookup(path.Segments[i].Name)
		if fl == nil {
			return nil
		}
		t = elem(fl.Type)
	}
	if t == nil || t.Kind != jql.TObject {
		return nil
	}
	var out []repair
	for _, c := range closest(path.Segments[bad].Name, fieldNames(t, filter)) {
		r, ok := complete(f, t, path, bad, c, filter)
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// complete repairs path from segment i on, segment i becoming first.
func complete(f *syntax.File, t *jql.Type, path jql.Path, i int, first string, filter bool) (repair, bool) {
	var r repair
	names := path.Names()
	for j := i; j < len(path.Segments); j++ {
		sg := path.Segments[j]
		name := sg.Name
		if j == i {
			name = first
		} else if t.Lookup(name) == nil {
			cs := closest(name, fieldNames(t, filter))
			if len(cs) != 1 {
				return r, false
			}
			name = cs[0]
		}
		if name != sg.Name {
			if !editable(f, sg.Sp, sg.Name) {
				return r, false
			}
			r.edits = append(r.edits, syntax.TextEdit{Span: sg.Sp, NewText: name})
		}
		fl := t.Lookup(name)
		if fl == nil || fl.Type == nil || sg.Array && fl.Type.Kind != jql.TArray || filter && fl.Computed {
			return r, false
		}
		names[j] = name
		t = elem(fl.Type)
	}
	r.path = strings.Join(names, ".")
	return r, len(r.edits) > 0
}

func fieldNames(t *jql.Type, filter bool) []string {
	var out []string
	if t == nil {
		return nil
	}
	for _, f := range t.Fields {
		if filter && f.Computed {
			continue
		}
		out = append(out, f.Name)
	}
	return out
}

func elem(t *jql.Type) *jql.Type {
	if t != nil && t.Kind == jql.TArray {
		return t.Elem
	}
	return t
}

// editable reports whether span holds exactly text in the source, so that
// replacing it is a plain rename (no escapes or recomputed offsets).
func editable(f *syntax.File, span syntax.Span, text string) bool {
	return f != nil && span.Valid(f.Len()) && f.Slice(span) == text
}

var operatorTypeMismatch = &analysis.Analyzer{
	Code: "JQL003", Name: "operator-type-mismatch", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A where operator or operand does not fit the type of its field",
		Details: "This is the specification's InvalidOperator error, following its operator table: `exists` " +
			"applies to every field; object fields (and arrays of objects) support only `exists`; `contains` " +
			"needs a string field (timestamps are strings); `gt`, `lt`, `gte` and `lte` are not defined on " +
			"booleans and compare numbers with numbers and strings with strings; `eq`, `neq`, the equality " +
			"shorthand and every element of `in` need a literal of the field's type (`null` fits every field). " +
			"An equality across types never holds, so such a condition filters out every document (and a `neq` " +
			"across types holds wherever the field exists, which is never what was meant).",
		Bad:  "{from: 'activities', where: {'artifacts.exitCode': {contains: '1'}}}",
		Good: "{from: 'activities', where: {'artifacts.exitCode': {neq: 0}}}",
	},
	Run: runOperatorTypeMismatch,
}

func runOperatorTypeMismatch(p *analysis.Pass) error {
	eachQuery(p, func(q *jql.Query, d *jql.Domain) {
		for _, c := range q.Where {
			if c == nil {
				continue
			}
			r := d.Resolve(c.Path)
			fl := r.Field()
			if r.Bad >= 0 || fl == nil || fl.Computed || fl.Type == nil {
				continue
			}
			checkOperator(p, c, fl)
		}
	})
	return nil
}

func checkOperator(p *analysis.Pass, c *jql.Condition, fl *jql.Field) {
	t := elem(fl.Type)
	if t == nil {
		return
	}
	k := t.Kind
	path := strconv.Quote(c.Path.Text)
	switch {
	case c.Op == jql.OpExists:
		return
	case k == jql.TObject || k == jql.TArray:
		p.Reportf(c.OpSpan, "%s is not supported on %s, an object field; only exists is", opName(c), path)
		return
	case c.Op == jql.OpContains && k != jql.TString && k != jql.TTimestamp:
		p.Reportf(c.OpSpan, "contains is not supported on %s, a %s field; only on strings", path, k)
		return
	case (c.Op == jql.OpGt || c.Op == jql.OpLt || c.Op == jql.OpGte || c.Op == jql.OpLte) && k == jql.TBoolean:
		p.Reportf(c.OpSpan, "%s is not supported on %s, a boolean field", c.Op, path)
		return
	}
	if c.Operand == nil {
		return
	}
	operands := []*jql.Value{c.Operand}
	if c.Op == jql.OpIn && c.Operand.Kind == jql.KindArray {
		operands = c.Operand.Elems
	}
	for _, v := range operands {
		if v == nil || fits(v.Kind, k) || c.Op == jql.OpContains {
			continue
		}
		outcome := "it never matches"
		if c.Op == jql.OpNeq {
			outcome = "it holds for every document that has the field"
		}
		p.Reportf(v.Sp, "%s compares %s, a %s field, with a %s; %s", opName(c), path, k, v.Kind, outcome)
	}
}

func opName(c *jql.Condition) string {
	if c.Shorthand {
		return "the equality shorthand"
	}
	return c.Op
}

// fits reports whether a literal of kind v can equal a value of type k.
func fits(v jql.Kind, k jql.TypeKind) bool {
	switch v {
	case jql.KindNull:
		return true
	case jql.KindString:
		return k == jql.TString || k == jql.TTimestamp
	case jql.KindNumber:
		return k == jql.TNumber
	case jql.KindBool:
		return k == jql.TBoolean
	}
	return true // arrays and objects are the parser's errors
}

var computedFieldFilter = &analysis.Analyzer{
	Code: "JQL004", Name: "computed-field-filter", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityError, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A where clause filters on a computed field",
		Details: "Computed fields (`artifactCount` and `summary` of activities, `durationMs` of sessions) are " +
			"derived at query time: the specification says they \"can be selected but not filtered\". Select " +
			"them instead, or filter on the stored fields they are computed from.",
		Bad:  "{from: 'activities', where: {artifactCount: {gt: 0}}}",
		Good: "{from: 'activities', select: ['id', 'artifactCount'], where: {'artifacts.type': {exists: true}}}",
	},
	Run: runComputedFieldFilter,
}

func runComputedFieldFilter(p *analysis.Pass) error {
	eachQuery(p, func(q *jql.Query, d *jql.Domain) {
		seen := map[syntax.Span]bool{}
		for _, c := range q.Where {
			if c == nil || seen[c.KeySpan] {
				continue
			}
			r := d.Resolve(c.Path)
			if fl := r.Field(); r.Bad < 0 && fl != nil && fl.Computed {
				seen[c.KeySpan] = true
				p.Reportf(c.Path.Sp, "%s is a computed field: it can be selected but not filtered", fl.Name)
			}
		}
	})
	return nil
}

var limitOutOfRange = &analysis.Analyzer{
	Code: "JQL005", Name: "limit-out-of-range", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityError, Fix: analysis.SafeFix,
	Doc: analysis.Doc{
		Summary: "The limit is not an integer from 1 to 1000",
		Details: "The specification defines limit as a positive integer with a maximum of 1000. A limit below " +
			"1 or with a fraction is an error. A limit above 1000 is a warning: the engine uses 1000, so the " +
			"safe fix writes 1000, which keeps the query's results and says what it does. A limit that is not " +
			"a number is a parse error and not reported here.",
		Bad:  "{from: 'sessions', limit: 5000}",
		Good: "{from: 'sessions', limit: 1000}",
	},
	Run: runLimitOutOfRange,
}

func runLimitOutOfRange(p *analysis.Pass) error {
	f, _ := input(p)
	if f == nil {
		return nil
	}
	for _, q := range f.Queries {
		if q == nil || q.LimitValue == nil || q.LimitValue.Kind != jql.KindNumber {
			continue
		}
		v := q.LimitValue
		switch {
		case v.Num != float64(int64(v.Num)) || v.Num < 1:
			p.Reportf(v.Sp, "limit %s is not an integer from 1 to %d", v.Str, jql.MaxLimit)
		case v.Num > jql.MaxLimit:
			max := strconv.Itoa(jql.MaxLimit)
			p.Report(syntax.Diagnostic{Span: v.Sp, Severity: syntax.SeverityWarning,
				Message: fmt.Sprintf("limit %s exceeds the maximum %s; %s is used", v.Str, max, max),
				SuggestedFixes: []syntax.SuggestedFix{{Message: "Replace with " + max,
					TextEdits: []syntax.TextEdit{{Span: v.Sp, NewText: max}}}}})
		}
	}
	return nil
}

var excludedVariantField = &analysis.Analyzer{
	Code: "JQL006", Name: "excluded-variant-field", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityWarning, Fix: analysis.NoFix,
	Doc: analysis.Doc{
		Summary: "A where clause filters on a type-conditional field that its type filter excludes",
		Details: "Some fields exist only on some variants of a discriminated union: an activity's `message` " +
			"only on agentMessaged and userMessaged, `plan` only on planGenerated, and so on. When the same " +
			"query restricts the discriminator (`type`) with eq, in or neq to variants that lack the field, " +
			"the condition on the field never holds and the query returns nothing (only `exists: false` " +
			"still matches, and is not reported). Conditions reached through an array are not reported: " +
			"different array elements may satisfy the two conditions.",
		Bad:  "{from: 'activities', where: {type: 'planGenerated', message: {contains: 'done'}}}",
		Good: "{from: 'activities', where: {type: 'agentMessaged', message: {contains: 'done'}}}",
	},
	Run: runExcludedVariantField,
}

func runExcludedVariantField(p *analysis.Pass) error {
	eachQuery(p, func(q *jql.Query, d *jql.Domain) {
		seen := map[syntax.Span]bool{}
		for _, c := range q.Where {
			if c == nil || c.Op == jql.OpExists && c.Operand != nil && c.Operand.Kind == jql.KindBool && !c.Operand.Bool {
				continue
			}
			t := d.Root
			for i, sg := range c.Path.Segments {
				if t == nil {
					break
				}
				fl := t.Lookup(sg.Name)
				if fl == nil || fl.Type == nil {
					break
				}
				if len(fl.Variants) > 0 && t.Discriminator != "" && !seen[sg.Sp] {
					prefix := append(slices.Clone(c.Path.Names()[:i]), t.Discriminator)
					if allowed, filter := variantsAllowed(q, strings.Join(prefix, "."), t); filter != nil &&
						!slices.ContainsFunc(fl.Variants, func(v string) bool { return slices.Contains(allowed, v) }) {
						seen[sg.Sp] = true
						p.Report(syntax.Diagnostic{Span: sg.Sp,
							Message: fmt.Sprintf("%s exists only when %s is %s, but the %s filter allows %s; the condition never matches",
								sg.Name, t.Discriminator, strings.Join(fl.Variants, " or "), t.Discriminator, describe(allowed)),
							Related: []syntax.RelatedInfo{{Span: filter.KeySpan, Message: "the " + t.Discriminator + " filter"}}})
					}
				}
				if fl.Type.Kind == jql.TArray {
					break // later conditions may hold on different elements
				}
				t = fl.Type
			}
		}
	})
	return nil
}

// variantsAllowed intersects the values the query's conditions on the
// discriminator path allow. It returns the last such condition, or nil
// when there is none.
func variantsAllowed(q *jql.Query, path string, owner *jql.Type) ([]string, *jql.Condition) {
	disc := owner.Lookup(owner.Discriminator)
	var all []string
	if disc != nil && disc.Type != nil {
		all = disc.Type.Enum
	}
	var allowed []string
	var last *jql.Condition
	restrict := func(c *jql.Condition, vals []string) {
		if last == nil {
			allowed = vals
		} else {
			allowed = slices.DeleteFunc(allowed, func(v string) bool { return !slices.Contains(vals, v) })
		}
		last = c
	}
	for _, c := range q.Where {
		if c == nil || c.Path.Text != path && strings.Join(c.Path.Names(), ".") != path || c.Operand == nil {
			continue
		}
		switch {
		case c.Op == jql.OpEq && c.Operand.Kind == jql.KindString:
			restrict(c, []string{c.Operand.Str})
		case c.Op == jql.OpIn && c.Operand.Kind == jql.KindArray:
			var vals []string
			for _, e := range c.Operand.Elems {
				if e != nil && e.Kind == jql.KindString {
					vals = append(vals, e.Str)
				}
			}
			restrict(c, vals)
		case c.Op == jql.OpNeq && c.Operand.Kind == jql.KindString && len(all) > 0:
			restrict(c, slices.DeleteFunc(slices.Clone(all), func(v string) bool { return v == c.Operand.Str }))
		}
	}
	return allowed, last
}

var unknownEnumValue = &analysis.Analyzer{
	Code: "JQL007", Name: "unknown-enum-value", Category: "correctness", Language: analysis.JQL,
	Severity: syntax.SeverityWarning, Fix: analysis.SafeFix,
	Doc: analysis.Doc{
		Summary: "A filter compares an enumerated field with a value outside its enumeration",
		Details: "Some string fields take a fixed set of values: an activity's `type` and `originator`, a " +
			"session's `state`, an artifact's `type`. An `eq`, `neq`, equality shorthand or `in` operand outside " +
			"that set is almost always a misspelling: `eq` and `in` then match nothing the schema describes. " +
			"It is a warning because stored data may carry values newer than the schema. When exactly one " +
			"value of the set is close (a few letters apart or differing only in case) the fix writes it; with " +
			"several, each is offered as an unsafe fix.",
		Bad:  "{from: 'activities', where: {type: 'agentMesaged'}}",
		Good: "{from: 'activities', where: {type: 'agentMessaged'}}",
	},
	Run: runUnknownEnumValue,
}

func runUnknownEnumValue(p *analysis.Pass) error {
	eachQuery(p, func(q *jql.Query, d *jql.Domain) {
		for _, c := range q.Where {
			if c == nil || c.Operand == nil || c.Op != jql.OpEq && c.Op != jql.OpNeq && c.Op != jql.OpIn {
				continue
			}
			r := d.Resolve(c.Path)
			fl := r.Field()
			if r.Bad >= 0 || fl == nil || fl.Computed {
				continue
			}
			t := elem(fl.Type)
			if t == nil || t.Kind != jql.TString || len(t.Enum) == 0 {
				continue
			}
			operands := []*jql.Value{c.Operand}
			if c.Op == jql.OpIn && c.Operand.Kind == jql.KindArray {
				operands = c.Operand.Elems
			}
			for _, v := range operands {
				if v == nil || v.Kind != jql.KindString || slices.Contains(t.Enum, v.Str) {
					continue
				}
				dg := syntax.Diagnostic{Span: v.Sp, Severity: syntax.SeverityWarning,
					Message: fmt.Sprintf("%q is not a value of %q (%s)", v.Str, c.Path.Text, strings.Join(t.Enum, ", "))}
				inner := v.SubSpan(0, len(v.Str))
				if cands := closest(v.Str, t.Enum); len(cands) > 0 && editable(p.File, inner, v.Str) {
					for _, cand := range cands {
						dg.SuggestedFixes = append(dg.SuggestedFixes, syntax.SuggestedFix{
							Message:   fmt.Sprintf("Replace with %q", cand),
							TextEdits: []syntax.TextEdit{{Span: inner, NewText: cand}},
							Unsafe:    len(cands) > 1,
						})
					}
					dg.Message += fmt.Sprintf("; did you mean %s?", quoteAll(cands))
				}
				p.Report(dg)
			}
		}
	})
	return nil
}

func describe(vals []string) string {
	if len(vals) == 0 {
		return "no value"
	}
	return "only " + strings.Join(vals, " or ")
}

// closest returns the names close to s: equal but for case, or within a
// small edit distance (transpositions count once). The nearest come first.
func closest(s string, names []string) []string {
	limit := max(1, min(2, len(s)/3))
	best := map[string]int{}
	for _, n := range names {
		if n == s {
			continue
		}
		d := distance(strings.ToLower(s), strings.ToLower(n))
		if strings.EqualFold(n, s) {
			d = 0
		}
		if d <= limit {
			best[n] = d
		}
	}
	out := make([]string, 0, len(best))
	for n := range best {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b string) int {
		if best[a] != best[b] {
			return best[a] - best[b]
		}
		return strings.Compare(a, b)
	})
	return out
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, " or ")
}
