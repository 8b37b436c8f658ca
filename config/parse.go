package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"
	yamlparser "github.com/goccy/go-yaml/parser"
	yamltoken "github.com/goccy/go-yaml/token"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// Error is a configuration error at a position in the file.
type Error struct {
	Path   string // the file name, when known
	Offset int    // byte offset of the offending node
	Line   int    // 1-based line
	Column int    // 1-based column in bytes
	Msg    string
}

// Error formats the error as "path:line:col: message".
func (e *Error) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// valueKind is the shape a key's value must have.
type valueKind uint8

const (
	kindObject valueKind = iota // a mapping with the fixed keys listed in keys
	kindMap                     // a mapping with user-chosen keys (globs, selectors)
	kindList                    // a sequence of strings
	kindString                  // a string
)

// keys lists every key path Parse accepts ("" is the document, "." joins
// keys, "*" stands for a user-chosen key) with the kind of its value. The
// schema test checks schema.json against this table.
var keys = map[string]valueKind{
	"":                    kindObject,
	"rules":               kindObject,
	"rules.select":        kindList,
	"rules.ignore":        kindList,
	"rules.severity":      kindMap,
	"rules.severity.*":    kindString,
	"per-file-ignores":    kindMap,
	"per-file-ignores.*":  kindList,
	"dialect":             kindObject,
	"dialect.default":     kindString,
	"dialect.files":       kindMap,
	"dialect.files.*":     kindString,
	"data":                kindMap,
	"data.*":              kindString,
	"embedded":            kindObject,
	"embedded.calls":      kindList,
	"embedded.extensions": kindList,
	"exclude":             kindList,
}

// severityNames are the accepted spellings of a severity.
var (
	severityNames = []string{"error", "warning", "info", "hint"}
	// SupportedExtensions are the host-file extensions embedded.extensions
	// accepts: the languages whose string literals ctxql can scan.
	supportedExtensions = []string{".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".py", ".go"}
	callPattern         = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)
)

// SupportedExtensions returns the extensions embedded.extensions accepts.
func SupportedExtensions() []string { return slices.Clone(supportedExtensions) }

// value is a YAML node reduced to what the configuration needs.
type value struct {
	kind  valueKind // kindMap for every mapping, kindList, kindString
	null  bool      // an empty value ("key:" with nothing after it)
	other string    // non-empty for scalars of another type: "a number", "a boolean"
	str   string
	items []*value
	keys  []*value // string keys of a mapping, in source order
	vals  []*value
	off   int
}

func (v *value) describe() string {
	switch {
	case v.null:
		return "nothing"
	case v.other != "":
		return v.other
	case v.kind == kindMap:
		return "a mapping"
	case v.kind == kindList:
		return "a list"
	}
	return "a string"
}

type parser struct {
	src  string
	file *syntax.File
}

func (p *parser) errAt(off int, format string, args ...any) *Error {
	pos := p.file.Position(off)
	return &Error{Offset: off, Line: pos.Line, Column: pos.Column, Msg: fmt.Sprintf(format, args...)}
}

// offset maps goccy's 1-based line and rune column to a byte offset (its own
// Offset field drifts after comments).
func (p *parser) offset(tk *yamltoken.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return p.file.OffsetRunes(tk.Position.Line, tk.Position.Column)
}

func parse(data []byte) (*Config, error) {
	src := string(data)
	p := &parser{src: src, file: syntax.NewFile(FileName, src)}
	f, err := parseYAML(data)
	if err != nil {
		type tokErr interface {
			GetToken() *yamltoken.Token
			GetMessage() string
		}
		var te tokErr
		if errors.As(err, &te) {
			return nil, p.errAt(p.offset(te.GetToken()), "invalid YAML: %s", te.GetMessage())
		}
		return nil, p.errAt(0, "invalid YAML: %s", err.Error())
	}
	var body ast.Node
	for _, d := range f.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if _, ok := d.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		if body != nil {
			return nil, p.errAt(p.offset(d.Body.GetToken()), "more than one YAML document")
		}
		body = d.Body
	}
	c := &Config{}
	if body == nil {
		return c, nil
	}
	root, err := p.conv(body, 0)
	if err != nil {
		return nil, err
	}
	if err := p.walk(c, root, "", nil); err != nil {
		return nil, err
	}
	return c, nil
}

const maxDepth = 32

// conv reduces a YAML node to a value, rejecting what the configuration
// never needs (aliases, tags, complex keys).
func (p *parser) conv(n ast.Node, depth int) (*value, error) {
	if depth > maxDepth {
		return nil, p.errAt(p.offset(n.GetToken()), "nesting too deep")
	}
	switch n := n.(type) {
	case *ast.AnchorNode:
		return p.conv(n.Value, depth+1)
	case *ast.AliasNode:
		return nil, p.errAt(p.offset(n.GetToken()), "YAML aliases are not supported")
	case *ast.TagNode:
		return nil, p.errAt(p.offset(n.GetToken()), "YAML tags are not supported")
	case *ast.SequenceEntryNode:
		return p.conv(n.Value, depth+1)
	case *ast.MappingValueNode:
		v := &value{kind: kindMap, off: p.offset(n.GetToken())}
		if err := p.pair(v, n, depth); err != nil {
			return nil, err
		}
		return v, nil
	case *ast.MappingNode:
		v := &value{kind: kindMap, off: p.offset(n.GetToken())}
		for _, mv := range n.Values {
			if err := p.pair(v, mv, depth); err != nil {
				return nil, err
			}
		}
		if len(n.Values) > 0 {
			v.off = v.keys[0].off
		}
		return v, nil
	case *ast.SequenceNode:
		v := &value{kind: kindList, off: p.offset(n.GetToken())}
		for _, e := range n.Values {
			if e == nil {
				continue
			}
			ev, err := p.conv(e, depth+1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, ev)
		}
		return v, nil
	case *ast.StringNode:
		return &value{kind: kindString, str: n.Value, off: p.offset(n.GetToken())}, nil
	case *ast.LiteralNode:
		return &value{kind: kindString, str: n.Value.Value, off: p.offset(n.GetToken())}, nil
	case *ast.NullNode:
		return &value{kind: kindString, null: true, off: p.offset(n.GetToken())}, nil
	case *ast.BoolNode:
		return &value{kind: kindString, other: "a boolean", off: p.offset(n.GetToken())}, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return &value{kind: kindString, other: "a number", off: p.offset(n.GetToken())}, nil
	case nil:
		return &value{kind: kindString, null: true}, nil
	}
	return nil, p.errAt(p.offset(n.GetToken()), "unsupported YAML node")
}

func (p *parser) pair(v *value, mv *ast.MappingValueNode, depth int) error {
	if mv.Key == nil {
		return p.errAt(p.offset(mv.GetToken()), "mapping entry without a key")
	}
	if mv.Key.IsMergeKey() {
		return p.errAt(p.offset(mv.Key.GetToken()), "YAML merge keys are not supported")
	}
	k, err := p.conv(mv.Key, depth+1)
	if err != nil {
		return err
	}
	if k.kind != kindString || k.null || k.other != "" {
		return p.errAt(k.off, "keys must be strings, got %s", k.describe())
	}
	val, err := p.conv(mv.Value, depth+1)
	if err != nil {
		return err
	}
	if val.null && val.off == 0 && mv.Value == nil {
		val.off = k.off
	}
	v.keys = append(v.keys, k)
	v.vals = append(v.vals, val)
	return nil
}

// childKeys returns the fixed keys of the object at schema path.
func childKeys(path string) []string {
	var out []string
	for k := range keys {
		if parent, name, ok := cutLast(k); ok && parent == path && name != "*" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func cutLast(k string) (parent, name string, ok bool) {
	if k == "" {
		return "", "", false
	}
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		return k[:i], k[i+1:], true
	}
	return "", k, true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// display names a key path for messages, with the user's keys in place of *.
func display(keyPath []string) string {
	if len(keyPath) == 0 {
		return "the configuration"
	}
	var b strings.Builder
	for i, k := range keyPath {
		if i > 0 {
			b.WriteByte('.')
		}
		if strings.ContainsAny(k, ".* \"") {
			fmt.Fprintf(&b, "%q", k)
		} else {
			b.WriteString(k)
		}
	}
	return b.String()
}

// walk checks v against the key table at schema path and stores leaves in c.
func (p *parser) walk(c *Config, v *value, path string, keyPath []string) error {
	kind := keys[path]
	want := map[valueKind]string{kindObject: "a mapping", kindMap: "a mapping", kindList: "a list of strings", kindString: "a string"}[kind]
	if v.null && kind != kindString {
		return nil // "key:" with nothing after it: same as absent
	}
	switch kind {
	case kindObject, kindMap:
		if v.kind != kindMap {
			return p.errAt(v.off, "%s: expected %s, got %s", display(keyPath), want, v.describe())
		}
		for i, k := range v.keys {
			child := join(path, k.str)
			if kind == kindMap {
				child = join(path, "*")
				if err := p.checkKey(path, k); err != nil {
					return err
				}
			} else if _, ok := keys[child]; !ok {
				return p.errAt(k.off, "unknown key %q in %s (known keys: %s)", k.str, display(keyPath), strings.Join(childKeys(path), ", "))
			}
			if err := p.walk(c, v.vals[i], child, append(slices.Clone(keyPath), k.str)); err != nil {
				return err
			}
		}
		return nil
	case kindList:
		if v.kind != kindList {
			return p.errAt(v.off, "%s: expected %s, got %s", display(keyPath), want, v.describe())
		}
		var strs []string
		for _, it := range v.items {
			if it.kind != kindString || it.null || it.other != "" {
				return p.errAt(it.off, "%s: expected a string, got %s", display(keyPath), it.describe())
			}
			if err := p.checkItem(path, it); err != nil {
				return err
			}
			strs = append(strs, it.str)
		}
		return p.store(c, path, keyPath, v, strs)
	default:
		if v.kind != kindString || v.null || v.other != "" {
			return p.errAt(v.off, "%s: expected %s, got %s", display(keyPath), want, v.describe())
		}
		if err := p.checkItem(path, v); err != nil {
			return err
		}
		return p.store(c, path, keyPath, v, []string{v.str})
	}
}

// checkKey validates a user-chosen key of the map at schema path.
func (p *parser) checkKey(path string, k *value) error {
	switch path {
	case "rules.severity":
		if k.str == "" {
			return p.errAt(k.off, "empty rule selector")
		}
	default: // per-file-ignores, dialect.files, data: globs
		if err := ValidGlob(k.str); err != nil {
			return p.errAt(k.off, "invalid glob %q: %v", k.str, err)
		}
	}
	return nil
}

// checkItem validates one string at schema path.
func (p *parser) checkItem(path string, v *value) error {
	s := v.str
	switch path {
	case "rules.select", "rules.ignore", "per-file-ignores.*":
		if s == "" {
			return p.errAt(v.off, "empty rule selector")
		}
	case "rules.severity.*":
		if !slices.Contains(severityNames, s) {
			return p.errAt(v.off, "unknown severity %q (want %s)", s, strings.Join(severityNames, ", "))
		}
	case "dialect.default", "dialect.files.*":
		if _, ok := pact.ParseDialect(s); !ok {
			return p.errAt(v.off, "unknown dialect %q (want %s)", s, strings.Join(pact.DialectNames(), " or "))
		}
	case "data.*":
		if s == "" {
			return p.errAt(v.off, "empty data path")
		}
	case "embedded.calls":
		if !callPattern.MatchString(s) {
			return p.errAt(v.off, "invalid call name %q (want a dotted name such as ctx.select)", s)
		}
	case "embedded.extensions":
		if !slices.Contains(supportedExtensions, s) {
			return p.errAt(v.off, "unsupported extension %q (want one of %s)", s, strings.Join(supportedExtensions, ", "))
		}
	case "exclude":
		if err := ValidGlob(s); err != nil {
			return p.errAt(v.off, "invalid glob %q: %v", s, err)
		}
	}
	return nil
}

// store records a leaf value.
func (p *parser) store(c *Config, path string, keyPath []string, v *value, strs []string) error {
	last := keyPath[len(keyPath)-1]
	switch path {
	case "rules.select":
		c.selectSet = true
		c.selectRules = append(c.selectRules, strs...)
	case "rules.ignore":
		c.ignoreRules = append(c.ignoreRules, strs...)
	case "rules.severity.*":
		sev, err := syntax.ParseSeverity(strs[0])
		if err != nil {
			return p.errAt(v.off, "%v", err)
		}
		c.severity = append(c.severity, severityEntry{selector: last, sev: sev})
	case "per-file-ignores.*":
		c.perFile = append(c.perFile, globRules{glob: last, selectors: strs})
	case "dialect.default":
		c.dialect, _ = pact.ParseDialect(strs[0])
	case "dialect.files.*":
		c.dialects = append(c.dialects, globDialect{glob: last, dialect: must(pact.ParseDialect(strs[0]))})
	case "data.*":
		c.data = append(c.data, globPath{glob: last, path: strs[0]})
	case "embedded.calls":
		c.calls = append([]string{}, strs...)
	case "embedded.extensions":
		c.extensions = append([]string{}, strs...)
	case "exclude":
		c.exclude = append(c.exclude, strs...)
	default:
		return p.errAt(v.off, "internal: no handler for key %s", display(keyPath))
	}
	return nil
}

// must returns the dialect of a name the checks before accepted.
func must(d pact.Dialect, _ bool) pact.Dialect { return d }

// parseYAML runs the YAML parser, turning a panic inside it into an error so
// that no input can crash the caller.
func parseYAML(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("yaml parser failure: %v", r)
		}
	}()
	return yamlparser.ParseBytes(data, 0)
}
