package lang

import (
	"context"
	"github.com/ctxql/ctxql/analysis/dllint"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

// DataPath resolves the sample data of the parsed file p named name, the
// same way for every tool: its "data:" pragma (relative to the file's
// directory; an empty one says the file has none), else the editor's
// setting (EditorData), else the configuration's data entry for the file.
// ok is false when nothing names data for the file.
func (s Settings) DataPath(name string, p *Parsed) (path string, ok bool) {
	if pr, found := p.DataPragma(); found {
		if pr.Path == "" {
			return "", false
		}
		return ResolveData(filepath.Dir(absNameIn(s.Dir, name)), pr.Path), true
	}
	if s.EditorData != nil {
		if path, ok := s.EditorData(name); ok {
			return path, true
		}
	}
	if s.Config != nil {
		if d := s.Config.DataFor(s.ConfigName(name)); d != "" {
			return d, true
		}
	}
	return "", false
}

// withSchema re-checks a Datalog program against the schema of its sample
// data, when the settings can load it, so that validity and the rules see
// the relations the data provides. Other files are returned as they are.
func (s Settings) withSchema(name string, p *Parsed) *Parsed {
	if _, ok := p.AST.(*datalog.Program); !ok || s.Load == nil || p.Info == nil {
		return p
	}
	path, ok := s.DataPath(name, p)
	if !ok {
		return p
	}
	d, err := s.Load(p.Lang, path)
	if err != nil || d == nil {
		return p
	}
	return p.WithData(d)
}

// WithData returns the parse of a Datalog program checked against the
// schema of its sample data d, with the rules' input (RuleInput): the
// relations the data provides are known, and the rules that look at the
// data's values run. Other files, a program that does not parse, and data
// of another language give p itself.
func (p *Parsed) WithData(d Data) *Parsed {
	prog, ok := p.AST.(*datalog.Program)
	if !ok || d == nil || d.Language() != Datalog || p.Info == nil {
		return p
	}
	schema := d.Schema()
	var numeric map[string][]bool
	if dd, isDL := d.(*datalogData); isDL {
		numeric = dd.numeric
	}
	info := datalog.Check(prog, schema)
	sample := &dllint.Sample{Info: info, Schema: schema, Numeric: numeric}
	return &Parsed{Lang: p.Lang, File: p.File, Dialect: p.Dialect, AST: p.AST, Info: info,
		Diagnostics: ValidateProgram(prog, info), RuleInput: sample}
}

// DataCache loads sample data once per language and path, for tools that
// read many files naming the same data. It is safe for concurrent use.
type DataCache struct {
	ctx  context.Context
	r    *files.Reader
	open EngineOpener
	mu   sync.Mutex
	m    map[dataKey]*dataEntry
}

// WithEngines makes the cache read data held in databases: a path that
// is an engine URL (IsEngineURL) is opened with open (LoadEngine).
func (c *DataCache) WithEngines(open EngineOpener) *DataCache {
	c.open = open
	return c
}

// ResolveData resolves a data path against dir: a relative file, or the
// relative file of a sqlite: or duckdb: URL; other URLs are kept.
func ResolveData(dir, path string) string {
	for _, scheme := range []string{"sqlite:", "duckdb:"} {
		if rest, ok := strings.CutPrefix(path, scheme); ok {
			if rest == "" || filepath.IsAbs(rest) {
				return path
			}
			return scheme + filepath.Join(dir, rest)
		}
	}
	if IsEngineURL(path) || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

type dataKey struct {
	id   ID
	path string
}

type dataEntry struct {
	once sync.Once
	d    Data
	err  error
}

// NewDataCache returns a cache that reads data through r (nil: the
// default reader).
func NewDataCache(ctx context.Context, r *files.Reader) *DataCache {
	return &DataCache{ctx: ctx, r: r, m: map[dataKey]*dataEntry{}}
}

// Load returns the data of language l at path, loading it on first use.
func (c *DataCache) Load(l *Language, path string) (Data, error) {
	k := dataKey{l.ID, path}
	c.mu.Lock()
	e, ok := c.m[k]
	if !ok {
		e = &dataEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		if IsEngineURL(path) {
			e.d, e.err = l.LoadEngine(c.ctx, c.open, path)
			return
		}
		e.d, e.err = l.Load(c.ctx, c.r, path)
	})
	return e.d, e.err
}

// DataPathText is DataPath for the text src of the file name, read without
// parsing it: the pragma stands in the leading comment block, which a scan
// of the text in the file's comment syntax finds as the parser does.
func (s Settings) DataPathText(name, src string) (path string, ok bool) {
	l := ForName(name)
	if l == nil {
		return "", false
	}
	return s.DataPath(name, &Parsed{Lang: l, File: syntax.NewFile(name, src)})
}
