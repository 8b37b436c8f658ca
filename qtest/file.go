// Package qtest runs unit tests of queries: files named *.ctxqltest.yaml
// that pin what PACT, JQL and Datalog queries return on sample data, as
// "opa test" pins Rego policies. A test file lists cases; each names a
// query (inline, or one in a query file by line or relation), its data (a
// file or inline JSON/YAML) and what it expects: exact results, a count,
// results it includes or excludes, or an error code. The format is
// documented in docs/test.md; its JSON Schema is schema.json beside this
// file.
//
// Every question about a language (which language a query file is, its
// dialect, validity, evaluation, explanation) goes to the language table,
// package lang: qtest is a front door like the command line and the
// language server.
package qtest

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/internal/yamltree"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Suffixes are the file name suffixes of test files.
var Suffixes = []string{".ctxqltest.yaml", ".ctxqltest.yml"}

// IsTestFile reports whether name is a test file by its suffix.
func IsTestFile(name string) bool {
	n := strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/")))
	for _, s := range Suffixes {
		if strings.HasSuffix(n, s) && len(n) > len(s) {
			return true
		}
	}
	return false
}

// File is a parsed test file.
type File struct {
	Name  string
	Src   *syntax.File
	Cases []*Case
	// Diagnostics are the file's errors, at their positions; a file with
	// errors runs none of its cases.
	Diagnostics []syntax.Diagnostic
}

// Data is the sample data of a case: a file (relative to the test file) or
// an inline JSON value.
type Data struct {
	Path   string
	Inline json.RawMessage
	Sp     syntax.Span
}

// Expect is one expected JSON value with the span of its text in the test
// file (what --update replaces).
type Expect struct {
	Value json.RawMessage
	Sp    syntax.Span
	// Items are the spans of the value's list items (results kept by
	// --update).
	Items []json.RawMessage
}

// Case is one test case.
type Case struct {
	Name string
	Sp   syntax.Span // the case's mapping in the test file

	Language string // a language id of the table; "" when File names it
	Dialect  string // "v1", "v2" or "" (the query file's resolved dialect)
	Query    string // an inline query
	QuerySp  syntax.Span
	File     string // a query file, relative to the test file
	FileSp   syntax.Span
	Line     int    // the 1-based line of the query in File; 0 when not given
	Relation string // the Datalog relation whose tuples are the result
	Data     *Data

	Want     *Expect
	Count    *int
	CountSp  syntax.Span
	Includes *Expect
	Excludes *Expect
	Error    string
	ErrorSp  syntax.Span
}

// keys lists the keys of the document and of a case, with the kinds each
// accepts.
var (
	fileKeys = map[string][]nodeKind{
		"language": {yamltree.String},
		"dialect":  {yamltree.String},
		"file":     {yamltree.String},
		"data":     {yamltree.String, yamltree.Mapping, yamltree.List},
		"tests":    {yamltree.List},
	}
	caseKeys = map[string][]nodeKind{
		"name":     {yamltree.String},
		"language": {yamltree.String},
		"dialect":  {yamltree.String},
		"file":     {yamltree.String},
		"line":     {yamltree.Number},
		"relation": {yamltree.String},
		"query":    {yamltree.String},
		"data":     {yamltree.String, yamltree.Mapping, yamltree.List},
		"want":     {yamltree.List},
		"count":    {yamltree.Number},
		"includes": {yamltree.List},
		"excludes": {yamltree.List},
		"error":    {yamltree.String},
	}
)

// Parse parses a test file. It never fails: errors are diagnostics of the
// file, each at its position.
func Parse(name string, src []byte) *File {
	f := &File{Name: name, Src: syntax.NewFile(name, string(src))}
	root, err := parseYAML(f.Src)
	if err != nil {
		f.errorf(err.(*yamltree.Error).Span, "%s", err.(*yamltree.Error).Msg)
		return f
	}
	if root.Kind != yamltree.Mapping {
		f.errorf(root.Span, "a test file is a mapping with a tests list, not %s", root.Kind)
		return f
	}
	if !f.checkKeys(root, fileKeys, "the test file") {
		return f
	}
	def := &Case{}
	f.fields(def, root, true)
	tests := root.Get("tests")
	if tests == nil {
		f.errorf(syntax.Sp(0, 0), "a test file needs a tests list")
		return f
	}
	seen := map[string]bool{}
	for _, it := range tests.Items {
		if it.Kind != yamltree.Mapping {
			f.errorf(it.Span, "a test case is a mapping, not %s", it.Kind)
			continue
		}
		if !f.checkKeys(it, caseKeys, "a test case") {
			continue
		}
		c := &Case{Sp: it.Span, Language: def.Language, Dialect: def.Dialect, File: def.File, FileSp: def.FileSp, Data: def.Data}
		f.fields(c, it, false)
		f.checkCase(c, it, seen)
		f.Cases = append(f.Cases, c)
	}
	if len(f.Cases) == 0 && len(f.Diagnostics) == 0 {
		f.errorf(tests.Span, "the tests list has no cases")
	}
	return f
}

func (f *File) errorf(sp syntax.Span, format string, args ...any) {
	f.Diagnostics = append(f.Diagnostics, syntax.Diagnostic{
		Span: sp, Severity: syntax.SeverityError, Code: "test-file", Origin: syntax.OriginSyntax,
		Message: fmt.Sprintf(format, args...),
	})
}

// checkKeys reports unknown keys and values of the wrong kind.
func (f *File) checkKeys(n *yamltree.Node, keys map[string][]nodeKind, what string) bool {
	ok := true
	for i, k := range n.Keys {
		kinds, known := keys[k.Text]
		if !known {
			f.errorf(k.Span, "unknown key %q in %s (known: %s)", k.Text, what, knownKeys(keys))
			ok = false
			continue
		}
		v := n.Vals[i]
		good := false
		for _, kd := range kinds {
			good = good || v.Kind == kd
		}
		if !good {
			var want []string
			for _, kd := range kinds {
				want = append(want, kd.String())
			}
			f.errorf(v.Span, "%s must be %s, not %s", k.Text, strings.Join(want, " or "), v.Kind)
			ok = false
		}
	}
	return ok
}

func knownKeys(keys map[string][]nodeKind) string {
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

// fields copies the keys of n into c; top is the document (defaults).
func (f *File) fields(c *Case, n *yamltree.Node, top bool) {
	for i, k := range n.Keys {
		v := n.Vals[i]
		switch k.Text {
		case "name":
			c.Name = v.Text
		case "language":
			c.Language = v.Text
		case "dialect":
			if v.Text != "v1" && v.Text != "v2" {
				f.errorf(v.Span, "dialect must be v1 or v2, not %q", v.Text)
			}
			c.Dialect = v.Text
		case "file":
			c.File, c.FileSp = v.Text, v.Span
		case "line":
			c.Line = f.positive(v, "line")
		case "relation":
			if !lang.IsDatalogIdent(v.Text) {
				f.errorf(v.Span, "relation must be a relation name, not %q", v.Text)
			}
			c.Relation = v.Text
		case "query":
			c.Query, c.QuerySp = v.Text, v.Span
		case "data":
			if v.Kind == yamltree.String {
				c.Data = &Data{Path: v.Text, Sp: v.Span}
			} else {
				c.Data = &Data{Inline: jsonValue(v), Sp: v.Span}
			}
		case "want":
			c.Want = expect(v)
		case "count":
			n := f.positive(v, "count")
			if v.Text == "0" {
				n = 0
			}
			c.Count, c.CountSp = &n, v.Span
		case "includes":
			c.Includes = expect(v)
		case "excludes":
			c.Excludes = expect(v)
		case "error":
			c.Error, c.ErrorSp = v.Text, v.Span
		}
	}
}

func expect(v *yamltree.Node) *Expect {
	e := &Expect{Value: jsonValue(v), Sp: v.Span}
	for _, it := range v.Items {
		e.Items = append(e.Items, jsonValue(it))
	}
	return e
}

// positive reads a whole number ≥ 1 (or 0 for count).
func (f *File) positive(v *yamltree.Node, key string) int {
	var n int
	if _, err := fmt.Sscanf(v.Text, "%d", &n); err != nil || fmt.Sprint(n) != v.Text || n < 0 || (n == 0 && key != "count") {
		f.errorf(v.Span, "%s must be a whole number of at least %d, not %s", key, map[bool]int{true: 0, false: 1}[key == "count"], v.Text)
		return 0
	}
	return n
}

// checkCase reports what a case lacks or has twice.
func (f *File) checkCase(c *Case, n *yamltree.Node, seen map[string]bool) {
	if c.Name == "" {
		f.errorf(n.Span, "a test case needs a name")
	} else if seen[c.Name] {
		f.errorf(n.Get("name").Span, "a test case named %q comes earlier in the file", c.Name)
	}
	seen[c.Name] = true
	if n.Get("query") != nil && n.Get("line") != nil {
		f.errorf(n.Get("line").Span, "a case names its query inline (query) or by line in a file (line), not both")
	}
	if c.Query == "" && c.File == "" {
		f.errorf(n.Span, "test case %q names no query: give query, or file (with line or relation)", c.Name)
	}
	if c.Query != "" && c.Language == "" && c.File == "" {
		f.errorf(n.Get("query").Span, "an inline query needs a language (pact, jql or datalog), or a file whose language it shares")
	}
	if c.Want == nil && c.Count == nil && c.Includes == nil && c.Excludes == nil && c.Error == "" {
		f.errorf(n.Span, "test case %q expects nothing: give want, count, includes, excludes or error", c.Name)
	}
	if c.Error != "" && (c.Want != nil || c.Count != nil || c.Includes != nil || c.Excludes != nil) {
		f.errorf(n.Get("error").Span, "a case that expects an error expects no results")
	}
}
