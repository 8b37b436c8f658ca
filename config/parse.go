package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/internal/yamltree"
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
	// callPattern is compiled the first time a configuration names calls.
	callPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)
	})
)

// SupportedExtensions returns the extensions embedded.extensions accepts.
func SupportedExtensions() []string { return slices.Clone(supportedExtensions) }

// describe names what a value is for messages.
func describe(v *yamltree.Node) string {
	if v.Kind == yamltree.Null {
		return "nothing"
	}
	return v.Kind.String()
}

type parser struct {
	file *syntax.File
}

func (p *parser) errAt(off int, format string, args ...any) *Error {
	pos := p.file.Position(off)
	return &Error{Offset: off, Line: pos.Line, Column: pos.Column, Msg: fmt.Sprintf(format, args...)}
}

// maxDepth bounds the nesting of a configuration.
const maxDepth = 32

// parse reads the YAML tree of a configuration, whose keys must be strings,
// and checks it against keys with walk.
func parse(data []byte) (*Config, error) {
	p := &parser{file: syntax.NewFile(FileName, string(data))}
	root, err := yamltree.Parse(p.file, yamltree.Options{
		MaxDepth: maxDepth,
		Key: func(_, k *yamltree.Node) error {
			if k.Kind != yamltree.String {
				return p.errAt(k.Pos, "keys must be strings, got %s", describe(k))
			}
			return nil
		},
	})
	if err != nil {
		var e *yamltree.Error
		if errors.As(err, &e) {
			return nil, p.errAt(e.Span.Start, "%s", e.Msg)
		}
		return nil, err
	}
	c := &Config{}
	if root == nil {
		return c, nil
	}
	if err := p.walk(c, root, "", nil); err != nil {
		return nil, err
	}
	return c, nil
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
func (p *parser) walk(c *Config, v *yamltree.Node, path string, keyPath []string) error {
	kind := keys[path]
	want := map[valueKind]string{kindObject: "a mapping", kindMap: "a mapping", kindList: "a list of strings", kindString: "a string"}[kind]
	if v.Kind == yamltree.Null && kind != kindString {
		return nil // "key:" with nothing after it: same as absent
	}
	switch kind {
	case kindObject, kindMap:
		if v.Kind != yamltree.Mapping {
			return p.errAt(v.Pos, "%s: expected %s, got %s", display(keyPath), want, describe(v))
		}
		for i, k := range v.Keys {
			child := join(path, k.Text)
			if kind == kindMap {
				child = join(path, "*")
				if err := p.checkKey(path, k); err != nil {
					return err
				}
			} else if _, ok := keys[child]; !ok {
				return p.errAt(k.Pos, "unknown key %q in %s (known keys: %s)", k.Text, display(keyPath), strings.Join(childKeys(path), ", "))
			}
			if err := p.walk(c, v.Vals[i], child, append(slices.Clone(keyPath), k.Text)); err != nil {
				return err
			}
		}
		return nil
	case kindList:
		if v.Kind != yamltree.List {
			return p.errAt(v.Pos, "%s: expected %s, got %s", display(keyPath), want, describe(v))
		}
		var strs []string
		for _, it := range v.Items {
			if it.Kind != yamltree.String {
				return p.errAt(it.Pos, "%s: expected a string, got %s", display(keyPath), describe(it))
			}
			if err := p.checkItem(path, it); err != nil {
				return err
			}
			strs = append(strs, it.Text)
		}
		return p.store(c, path, keyPath, v, strs)
	default:
		if v.Kind != yamltree.String {
			return p.errAt(v.Pos, "%s: expected %s, got %s", display(keyPath), want, describe(v))
		}
		if err := p.checkItem(path, v); err != nil {
			return err
		}
		return p.store(c, path, keyPath, v, []string{v.Text})
	}
}

// checkKey validates a user-chosen key of the map at schema path.
func (p *parser) checkKey(path string, k *yamltree.Node) error {
	switch path {
	case "rules.severity":
		if k.Text == "" {
			return p.errAt(k.Pos, "empty rule selector")
		}
	default: // per-file-ignores, dialect.files, data: globs
		if err := ValidGlob(k.Text); err != nil {
			return p.errAt(k.Pos, "invalid glob %q: %v", k.Text, err)
		}
	}
	return nil
}

// checkItem validates one string at schema path.
func (p *parser) checkItem(path string, v *yamltree.Node) error {
	s := v.Text
	switch path {
	case "rules.select", "rules.ignore", "per-file-ignores.*":
		if s == "" {
			return p.errAt(v.Pos, "empty rule selector")
		}
	case "rules.severity.*":
		if !slices.Contains(severityNames, s) {
			return p.errAt(v.Pos, "unknown severity %q (want %s)", s, strings.Join(severityNames, ", "))
		}
	case "dialect.default", "dialect.files.*":
		if _, ok := pact.ParseDialect(s); !ok {
			return p.errAt(v.Pos, "unknown dialect %q (want %s)", s, strings.Join(pact.DialectNames(), " or "))
		}
	case "data.*":
		if s == "" {
			return p.errAt(v.Pos, "empty data path")
		}
	case "embedded.calls":
		if !callPattern().MatchString(s) {
			return p.errAt(v.Pos, "invalid call name %q (want a dotted name such as ctx.select)", s)
		}
	case "embedded.extensions":
		if !slices.Contains(supportedExtensions, s) {
			return p.errAt(v.Pos, "unsupported extension %q (want one of %s)", s, strings.Join(supportedExtensions, ", "))
		}
	case "exclude":
		if err := ValidGlob(s); err != nil {
			return p.errAt(v.Pos, "invalid glob %q: %v", s, err)
		}
	}
	return nil
}

// store records a leaf value.
func (p *parser) store(c *Config, path string, keyPath []string, v *yamltree.Node, strs []string) error {
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
			return p.errAt(v.Pos, "%v", err)
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
		return p.errAt(v.Pos, "internal: no handler for key %s", display(keyPath))
	}
	return nil
}

// must returns the dialect of a name the checks before accepted.
func must(d pact.Dialect, _ bool) pact.Dialect { return d }
