// Package config reads .ctxql.yaml, the project configuration of ctxql: which
// rules run and how severe they are, per-file rule ignores, the default PACT
// dialect, sample data files for previews and data-aware checks, the calls
// whose string arguments are embedded queries, and excluded paths.
//
// The file is found by walking up from a directory (Load). Keys are checked
// strictly: an unknown key, a value of the wrong type or an invalid value is
// an *Error carrying the line and column of the offending node. The JSON
// Schema in schema.json describes exactly the keys Parse accepts.
//
// File arguments of the query methods (Enabled, Dialect, DataFor, Excluded)
// may be absolute or relative to the directory holding the configuration
// file. Glob patterns always use "/" and are relative to that directory; see
// Match for their syntax.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// FileName is the name of the configuration file Load looks for.
const FileName = ".ctxql.yaml"

// DefaultCalls are the embedded-query calls used when the configuration names
// none.
var defaultCalls = []string{"ctx.select"}

// defaultExtensions are the host-file extensions searched for embedded queries
// when the configuration names none.
var defaultExtensions = []string{".ts", ".js", ".py", ".go"}

// DefaultCalls returns the embedded-query call names used when embedded.calls
// is not configured.
func DefaultCalls() []string { return slices.Clone(defaultCalls) }

// DefaultExtensions returns the host-file extensions searched for embedded
// queries when embedded.extensions is not configured.
func DefaultExtensions() []string { return slices.Clone(defaultExtensions) }

// Config is a parsed configuration. The zero value is not useful; use
// Default, Parse, ParseFile or Load. A Config is immutable after creation and
// safe for concurrent use.
type Config struct {
	dir string // absolute directory of the configuration file; "" after Parse

	selectSet   bool // rules.select was given (an empty list selects nothing)
	selectRules []string
	ignoreRules []string
	severity    []severityEntry
	perFile     []globRules
	dialect     pact.Dialect
	dialects    []globDialect
	data        []globPath
	calls       []string
	extensions  []string
	exclude     []string

	names map[string]string // rule name → code, from WithRuleNames
}

type severityEntry struct {
	selector string
	sev      syntax.Severity
}

type globRules struct {
	glob      string
	selectors []string
}

type globDialect struct {
	glob    string
	dialect pact.Dialect
}

type globPath struct {
	glob string
	path string
}

// Default returns the configuration used when no .ctxql.yaml exists: every
// rule enabled at its default severity, dialect v2, no data files, the call
// "ctx.select" in .ts, .js, .py and .go files, nothing excluded.
func Default() *Config { return &Config{} }

// Dir returns the absolute directory of the configuration file, or "" for a
// configuration made by Default or Parse.
func (c *Config) Dir() string { return c.dir }

// WithRuleNames returns a copy of c that also resolves rule names in rule
// selectors (rules.select, rules.ignore, rules.severity keys and
// per-file-ignores). names maps a rule name such as "legacy-cont-offset" to
// its code such as "PACT002". The map is copied.
func (c *Config) WithRuleNames(names map[string]string) *Config {
	cp := *c
	cp.names = make(map[string]string, len(names))
	for n, code := range names {
		cp.names[n] = code
	}
	return &cp
}

// MaxFileBytes is the largest configuration file Load reads.
const MaxFileBytes = 1 << 20

// Load finds FileName in dir or the nearest of its parent directories and
// parses it; when dir names a file the search starts in its directory. It returns the configuration and the absolute path of the file
// it read, or Default() and "" when there is none up to the file-system root.
func Load(dir string) (*Config, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", fmt.Errorf("config: %w", err)
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		abs = filepath.Dir(abs) // a file: start from its directory
	}
	// A regular file of bounded size only: a FIFO or a device named
	// .ctxql.yaml must not hang or flood whatever loads the configuration.
	fr := files.New(MaxFileBytes, "")
	for d := abs; ; {
		p := filepath.Join(d, FileName)
		data, err := fr.ReadFile(p)
		switch {
		case err == nil:
			c, err := ParseFile(p, data)
			if err != nil {
				return nil, "", err
			}
			return c, p, nil
		case errors.Is(err, fs.ErrNotExist):
		default:
			if info, serr := os.Stat(p); serr == nil && info.IsDir() {
				break // a directory with that name is not a configuration
			}
			return nil, "", fmt.Errorf("config: %w", err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Default(), "", nil
		}
		d = parent
	}
}

// ParseFile parses data as the configuration file at path. Globs and data
// paths are then relative to the directory of path, and errors name path.
func ParseFile(path string, data []byte) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := parse(data)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
		}
		return nil, err
	}
	c.dir = filepath.Dir(abs)
	return c, nil
}

// Parse parses a configuration that belongs to no directory: relative file
// arguments are matched as given, absolute ones only by patterns that are not
// anchored (no "/" or a leading "**/"), and data paths resolve against the
// working directory of the process.
func Parse(data []byte) (*Config, error) { return parse(data) }

// Calls returns the dotted call names whose first string argument is an
// embedded query, by default ["ctx.select"].
func (c *Config) Calls() []string {
	if c.calls == nil {
		return DefaultCalls()
	}
	return slices.Clone(c.calls)
}

// Extensions returns the host-file extensions searched for embedded queries,
// by default [".ts", ".js", ".py", ".go"].
func (c *Config) Extensions() []string {
	if c.extensions == nil {
		return DefaultExtensions()
	}
	return slices.Clone(c.extensions)
}

// Embedded reports whether file has one of the Extensions and so may hold
// embedded queries.
func (c *Config) Embedded(file string) bool {
	ext := path.Ext(filepath.ToSlash(file))
	return ext != "" && slices.Contains(c.Extensions(), ext)
}

// Excluded reports whether file, or a directory containing it, matches one of
// the exclude globs.
func (c *Config) Excluded(file string) bool {
	rel, ok := c.rel(file)
	if !ok {
		return false
	}
	for _, g := range c.exclude {
		if Match(g, rel) {
			return true
		}
	}
	return false
}

// Dialect returns the PACT dialect for file: the last dialect.files glob that
// matches it, else dialect.default, else pact.V2. A "// pact: vN" pragma in
// the file still overrides it.
func (c *Config) Dialect(file string) pact.Dialect {
	if d, ok := c.DialectSet(file); ok {
		return d
	}
	return pact.V2
}

// DialectSet returns the PACT dialect the configuration names for file (the
// last dialect.files glob that matches it, else dialect.default) and true,
// or DialectUnset and false when it names none.
func (c *Config) DialectSet(file string) (pact.Dialect, bool) {
	if rel, ok := c.rel(file); ok {
		for i := len(c.dialects) - 1; i >= 0; i-- {
			if Match(c.dialects[i].glob, rel) {
				return c.dialects[i].dialect, true
			}
		}
	}
	if c.dialect != pact.DialectUnset {
		return c.dialect, true
	}
	return pact.DialectUnset, false
}

// DataFor returns the absolute path of the sample data file configured for
// file (the last data glob that matches it), or "" when none is. The data
// may be a database: an engine URL (postgres://…, postgresql://…) is
// returned as written, and the file of sqlite:FILE or duckdb:FILE resolves
// as a data file does.
func (c *Config) DataFor(file string) string {
	rel, ok := c.rel(file)
	if !ok {
		return ""
	}
	for i := len(c.data) - 1; i >= 0; i-- {
		if !Match(c.data[i].glob, rel) {
			continue
		}
		d := c.data[i].path
		if strings.HasPrefix(d, "postgres://") || strings.HasPrefix(d, "postgresql://") {
			return d
		}
		scheme := ""
		for _, s := range []string{"sqlite:", "duckdb:"} {
			if rest, ok := strings.CutPrefix(d, s); ok && rest != "" {
				scheme, d = s, rest
			}
		}
		p := filepath.FromSlash(d)
		if filepath.IsAbs(p) {
			return scheme + filepath.Clean(p)
		}
		if c.dir != "" {
			return scheme + filepath.Join(c.dir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		return scheme + abs
	}
	return ""
}

// Enabled reports whether the rule with code runs on file. A selector is a
// code ("PACT002"), a code prefix made of capital letters optionally
// followed by digits ("PACT", "PACT00"), a rule name known through
// WithRuleNames, or "ALL". Without rules.select every rule is selected;
// an empty rules.select list selects none. When
// both rules.select and rules.ignore match a code, the more specific
// selector wins (a code or a name beats a longer prefix, which beats a
// shorter one, which beats ALL); on a tie ignore wins. Finally a
// per-file-ignores entry whose glob matches file and whose selectors match
// code disables the rule for that file.
func (c *Config) Enabled(code, file string) bool {
	if c.selectSet || len(c.ignoreRules) > 0 {
		sel := -1
		if !c.selectSet {
			sel = 0
		}
		for _, s := range c.selectRules {
			sel = max(sel, c.specificity(s, code))
		}
		ign := -1
		for _, s := range c.ignoreRules {
			ign = max(ign, c.specificity(s, code))
		}
		if sel < 0 || ign >= sel {
			return false
		}
	}
	if len(c.perFile) == 0 {
		return true
	}
	rel, ok := c.rel(file)
	if !ok {
		return true
	}
	for _, pf := range c.perFile {
		if !Match(pf.glob, rel) {
			continue
		}
		for _, s := range pf.selectors {
			if c.specificity(s, code) >= 0 {
				return false
			}
		}
	}
	return true
}

// Severity returns the configured severity for code, or def when
// rules.severity has no matching entry. Keys are selectors as in Enabled;
// the most specific matching key wins.
func (c *Config) Severity(code string, def syntax.Severity) syntax.Severity {
	best, sev := -1, def
	for _, e := range c.severity {
		if s := c.specificity(e.selector, code); s > best {
			best, sev = s, e.sev
		}
	}
	return sev
}

// exactSpecificity ranks an exact code or a rule name above any prefix.
const exactSpecificity = 1 << 20

// specificity returns how specifically selector matches code, or -1.
func (c *Config) specificity(selector, code string) int {
	switch {
	case selector == code:
		return exactSpecificity
	case c.names != nil && c.names[selector] == code && code != "":
		return exactSpecificity
	case selector == "ALL":
		return 0
	case isCodePrefix(selector) && strings.HasPrefix(code, selector):
		return len(selector)
	}
	return -1
}

// isCodePrefix reports whether s has the shape of a code or code prefix:
// capital letters optionally followed by digits.
func isCodePrefix(s string) bool {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	if i == 0 {
		return false
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == len(s)
}

// rel converts a file argument to a slash-separated path relative to the
// configuration directory. ok is false for files outside it.
func (c *Config) rel(file string) (string, bool) {
	if file == "" {
		return "", false
	}
	if filepath.IsAbs(file) {
		if c.dir == "" {
			return strings.TrimLeft(filepath.ToSlash(filepath.Clean(file)), "/"), true
		}
		r, err := filepath.Rel(c.dir, file)
		if err != nil {
			return "", false
		}
		file = r
	}
	r := path.Clean(filepath.ToSlash(file))
	if r == "." || r == ".." || strings.HasPrefix(r, "../") || strings.HasPrefix(r, "/") {
		return "", false
	}
	return r, true
}
