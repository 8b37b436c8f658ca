// Package acp loads an ACP cache file (.acp.cache.json) and answers the
// queries of the ACP query interface: symbol, file, domain and call-graph
// lookups, constraint checks, search, variable expansion and sandboxed jq
// passthrough.
//
// A cache is loaded once and indexed by symbol name, qualified name, file
// and domain; every query after that is a map lookup or a walk over sorted
// keys, so results are deterministic.
package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/ctxql/ctxql/internal/files"
)

// DefaultCacheName is the cache file name looked up from the working
// directory upwards.
const DefaultCacheName = ".acp.cache.json"

// Cache is the decoded cache file. Field names follow the cache structure of
// the query interface specification.
type Cache struct {
	Version     string             `json:"version"`
	GeneratedAt string             `json:"generated_at"`
	GitCommit   string             `json:"git_commit,omitempty"`
	Project     json.RawMessage    `json:"project,omitempty"`
	Stats       Stats              `json:"stats"`
	Files       map[string]*File   `json:"files"`
	Symbols     map[string]*Symbol `json:"symbols"`
	Graph       Graph              `json:"graph"`
	Domains     map[string]*Domain `json:"domains"`
	Constraints Constraints        `json:"constraints"`
	Vars        map[string]*Var    `json:"vars,omitempty"`
}

// Stats holds the codebase statistics of the cache.
type Stats struct {
	Files              int     `json:"files"`
	Symbols            int     `json:"symbols"`
	Lines              int     `json:"lines"`
	AnnotationCoverage float64 `json:"annotation_coverage"`
}

// File is the metadata of one source file.
type File struct {
	Path      string   `json:"path" jsonschema:"the file path, relative to the project directory"`
	Module    string   `json:"module,omitempty" jsonschema:"the module the file belongs to"`
	Summary   string   `json:"summary,omitempty" jsonschema:"what the file does"`
	Lines     int      `json:"lines,omitempty" jsonschema:"the number of lines"`
	Language  string   `json:"language,omitempty" jsonschema:"the programming language"`
	Domains   []string `json:"domains,omitempty" jsonschema:"the domains the file belongs to"`
	Layer     string   `json:"layer,omitempty" jsonschema:"the architectural layer"`
	Stability string   `json:"stability,omitempty" jsonschema:"how stable the file is"`
}

// Symbol is the metadata of one symbol, keyed by its qualified name
// ("path:Name" or "path:Class.method").
type Symbol struct {
	Name          string `json:"name" jsonschema:"the symbol name"`
	QualifiedName string `json:"qualified_name" jsonschema:"the qualified name, path:Name or path:Class.method"`
	Type          string `json:"type,omitempty" jsonschema:"the kind of symbol (function, class, method, ...)"`
	File          string `json:"file,omitempty" jsonschema:"the file defining it"`
	Lines         []int  `json:"lines,omitempty" jsonschema:"its first and last line"`
	Signature     string `json:"signature,omitempty" jsonschema:"its signature"`
	Summary       string `json:"summary,omitempty" jsonschema:"what it does"`
	Exported      *bool  `json:"exported,omitempty" jsonschema:"whether it is exported"`
	Async         *bool  `json:"async,omitempty" jsonschema:"whether it is asynchronous"`
}

// SymbolView is the symbol record the CLI prints for `query symbol`: the
// fields of the specification's CLI example, in its order.
type SymbolView struct {
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Type          string `json:"type,omitempty"`
	File          string `json:"file,omitempty"`
	Lines         []int  `json:"lines,omitempty"`
	Signature     string `json:"signature,omitempty"`
	Summary       string `json:"summary,omitempty"`
}

// View returns the CLI projection of s.
func (s *Symbol) View() SymbolView {
	return SymbolView{s.Name, s.QualifiedName, s.Type, s.File, s.Lines, s.Signature, s.Summary}
}

// Graph is the call graph: forward maps a caller to its callees, reverse a
// callee to its callers.
type Graph struct {
	Forward map[string][]string `json:"forward"`
	Reverse map[string][]string `json:"reverse"`
}

// Domain is one domain with its files and symbols.
type Domain struct {
	Name        string   `json:"name" jsonschema:"the domain name"`
	Description string   `json:"description,omitempty" jsonschema:"what the domain covers"`
	Files       []string `json:"files" jsonschema:"the files of the domain"`
	Symbols     []string `json:"symbols" jsonschema:"the qualified names of its symbols"`
}

// Constraints indexes constraints by file and files by lock level.
type Constraints struct {
	ByFile      map[string]*FileConstraints `json:"by_file"`
	ByLockLevel map[string][]string         `json:"by_lock_level"`
}

// FileConstraints are the constraints of one file.
type FileConstraints struct {
	LockLevel  *string  `json:"lock_level"`
	LockReason *string  `json:"lock_reason,omitempty"`
	Style      string   `json:"style,omitempty"`
	Behavior   string   `json:"behavior,omitempty"`
	Quality    []string `json:"quality,omitempty"`
}

// Var is a variable definition: a name such as SYM_VALIDATE_SESSION bound to
// a symbol, file or domain (or a literal value) with a description.
type Var struct {
	Type        string `json:"type"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
}

// Index is a loaded cache with its lookup indexes. It is immutable after
// Load and safe for concurrent use.
type Index struct {
	Cache *Cache
	// Bytes is the cache file content.
	Bytes []byte
	// Path is the cache file path and Root the directory holding it, the
	// project root.
	Path, Root string

	byName       map[string][]string // symbol name -> sorted qualified names
	symbolsOfFil map[string][]string // file -> sorted qualified names
	fileNames    []string
	symbolNames  []string
	domainNames  []string

	rawOnce sync.Once
	raw     any
	rawErr  error
}

// Raw returns the cache decoded as plain JSON values (map[string]any, ...),
// the input of jq queries. It is decoded on first use.
func (ix *Index) Raw() (any, error) {
	ix.rawOnce.Do(func() {
		dec := json.NewDecoder(bytes.NewReader(ix.Bytes))
		dec.UseNumber()
		var raw any
		if err := dec.Decode(&raw); err != nil {
			ix.rawErr = fmt.Errorf("decode cache %s: %w", ix.Path, err)
			return
		}
		ix.raw = normalizeNumbers(raw)
	})
	return ix.raw, ix.rawErr
}

// Load reads and indexes the cache file at path.
func Load(path string) (*Index, error) { return LoadFrom(files.New(0, ""), path) }

// LoadFrom reads the cache file at path through r, which refuses anything
// but a regular file within its size limit (and, when confined, a file
// outside its directory), and indexes it.
func LoadFrom(r *files.Reader, path string) (*Index, error) {
	b, err := r.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read cache: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cache path: %w", err)
	}
	return Parse(b, abs)
}

// Parse indexes cache content b; path names the cache file and its
// directory is the project root.
func Parse(b []byte, path string) (*Index, error) {
	var c Cache
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("decode cache %s: %w", path, err)
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("decode cache %s: top level is not an object", path)
	}
	ix := &Index{Cache: &c, Bytes: b, Path: path, Root: filepath.Dir(path),
		byName: map[string][]string{}, symbolsOfFil: map[string][]string{}}
	for qn, s := range c.Symbols {
		if s == nil {
			s = &Symbol{}
			c.Symbols[qn] = s
		}
		if s.QualifiedName == "" {
			s.QualifiedName = qn
		}
		ix.byName[s.Name] = append(ix.byName[s.Name], qn)
		if s.File != "" {
			ix.symbolsOfFil[s.File] = append(ix.symbolsOfFil[s.File], qn)
		}
		ix.symbolNames = append(ix.symbolNames, qn)
	}
	for _, l := range ix.byName {
		sort.Strings(l)
	}
	for _, l := range ix.symbolsOfFil {
		sort.Strings(l)
	}
	for p, f := range c.Files {
		if f == nil {
			c.Files[p] = &File{Path: p}
		}
		ix.fileNames = append(ix.fileNames, p)
	}
	for n, d := range c.Domains {
		if d == nil {
			c.Domains[n] = &Domain{Name: n}
		}
		ix.domainNames = append(ix.domainNames, n)
	}
	sort.Strings(ix.symbolNames)
	sort.Strings(ix.fileNames)
	sort.Strings(ix.domainNames)
	return ix, nil
}

// normalizeNumbers turns json.Number into int (when integral and small) or
// float64, the number types gojq works with.
func normalizeNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalizeNumbers(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = normalizeNumbers(e)
		}
		return v
	case json.Number:
		if i, err := v.Int64(); err == nil && i >= -1<<53 && i <= 1<<53 {
			return int(i)
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// FindCache walks up from dir looking for DefaultCacheName and returns its
// path.
func FindCache(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find cache: %w", err)
	}
	for {
		p := filepath.Join(d, DefaultCacheName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no %s found in %s or any parent directory", DefaultCacheName, dir)
		}
		d = parent
	}
}
