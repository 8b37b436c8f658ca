package acp

import (
	"fmt"
	"sort"
	"strings"
)

// NotFoundError reports a lookup that found nothing.
type NotFoundError struct {
	Kind, Name string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s not found: %s", e.Kind, e.Name) }

// Symbol returns the symbol whose qualified name is name or, failing that,
// the symbols whose short name is name (sorted by qualified name). The first
// element is the answer; more than one means the short name is ambiguous.
func (ix *Index) Symbol(name string) ([]*Symbol, error) {
	if s, ok := ix.Cache.Symbols[name]; ok {
		return []*Symbol{s}, nil
	}
	qns := ix.byName[name]
	if len(qns) == 0 {
		return nil, &NotFoundError{"symbol", name}
	}
	out := make([]*Symbol, len(qns))
	for i, qn := range qns {
		out[i] = ix.Cache.Symbols[qn]
	}
	return out, nil
}

// File returns the metadata of the file at path.
func (ix *Index) File(path string) (*File, error) {
	if f, ok := ix.Cache.Files[path]; ok {
		return f, nil
	}
	return nil, &NotFoundError{"file", path}
}

// Domain returns the domain called name.
func (ix *Index) Domain(name string) (*Domain, error) {
	if d, ok := ix.Cache.Domains[name]; ok {
		return d, nil
	}
	return nil, &NotFoundError{"domain", name}
}

// DomainFiles returns the files of a domain, empty when it is unknown.
func (ix *Index) DomainFiles(name string) []string {
	if d, ok := ix.Cache.Domains[name]; ok && d.Files != nil {
		return d.Files
	}
	return []string{}
}

// DomainNames returns the domain names, sorted.
func (ix *Index) DomainNames() []string { return ix.domainNames }

// FileNames returns the file paths, sorted.
func (ix *Index) FileNames() []string { return ix.fileNames }

// SymbolNames returns the qualified symbol names, sorted.
func (ix *Index) SymbolNames() []string { return ix.symbolNames }

// SymbolsInFile returns the qualified names of the symbols defined in file.
func (ix *Index) SymbolsInFile(file string) []string { return ix.symbolsOfFil[file] }

// resolveQualified maps a short symbol name to its qualified name when the
// name is not itself a graph or symbol key and is unambiguous.
func (ix *Index) resolveQualified(name string) string {
	if _, ok := ix.Cache.Symbols[name]; ok {
		return name
	}
	if _, ok := ix.Cache.Graph.Forward[name]; ok {
		return name
	}
	if _, ok := ix.Cache.Graph.Reverse[name]; ok {
		return name
	}
	if qns := ix.byName[name]; len(qns) == 1 {
		return qns[0]
	}
	return name
}

// Callers returns the symbols that call the symbol qualifiedName (its
// reverse-graph entry), in cache order. An unknown symbol is a
// NotFoundError; a known symbol nobody calls has an empty list.
func (ix *Index) Callers(qualifiedName string) ([]string, error) {
	qn := ix.resolveQualified(qualifiedName)
	if l, ok := ix.Cache.Graph.Reverse[qn]; ok {
		return nonNil(l), nil
	}
	if ix.known(qn) {
		return []string{}, nil
	}
	return nil, &NotFoundError{"symbol", qualifiedName}
}

// Callees returns the symbols the symbol qualifiedName calls (its
// forward-graph entry), in cache order.
func (ix *Index) Callees(qualifiedName string) ([]string, error) {
	qn := ix.resolveQualified(qualifiedName)
	if l, ok := ix.Cache.Graph.Forward[qn]; ok {
		return nonNil(l), nil
	}
	if ix.known(qn) {
		return []string{}, nil
	}
	return nil, &NotFoundError{"symbol", qualifiedName}
}

func (ix *Index) known(qn string) bool {
	if _, ok := ix.Cache.Symbols[qn]; ok {
		return true
	}
	_, f := ix.Cache.Graph.Forward[qn]
	_, r := ix.Cache.Graph.Reverse[qn]
	return f || r
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// DomainSummary is one line of `query domains`.
type DomainSummary struct {
	Name    string `json:"name"`
	Files   int    `json:"files"`
	Symbols int    `json:"symbols"`
}

// DomainSummaries counts the files and symbols listed by each domain,
// sorted by domain name.
func (ix *Index) DomainSummaries() []DomainSummary {
	out := make([]DomainSummary, 0, len(ix.domainNames))
	for _, n := range ix.domainNames {
		d := ix.Cache.Domains[n]
		out = append(out, DomainSummary{Name: n, Files: len(d.Files), Symbols: len(d.Symbols)})
	}
	return out
}

// StatsView is the output of `query stats`: the cache's stored statistics
// plus the number of domains and of distinct file layers.
type StatsView struct {
	Files    int     `json:"files" jsonschema:"the number of files"`
	Symbols  int     `json:"symbols" jsonschema:"the number of symbols"`
	Lines    int     `json:"lines" jsonschema:"the number of lines"`
	Coverage float64 `json:"annotation_coverage" jsonschema:"the share of annotated symbols, 0 to 1"`
	Domains  int     `json:"domains" jsonschema:"the number of domains"`
	Layers   int     `json:"layers" jsonschema:"the number of distinct file layers"`
}

// Stats returns the statistics view.
func (ix *Index) Stats() StatsView {
	layers := map[string]bool{}
	for _, f := range ix.Cache.Files {
		if f.Layer != "" {
			layers[f.Layer] = true
		}
	}
	s := ix.Cache.Stats
	return StatsView{s.Files, s.Symbols, s.Lines, s.AnnotationCoverage, len(ix.Cache.Domains), len(layers)}
}

// SearchResult lists the symbols and files matching a search pattern.
type SearchResult struct {
	Pattern string   `json:"pattern" jsonschema:"the pattern searched for"`
	Symbols []string `json:"symbols" jsonschema:"the qualified names of the matching symbols"`
	Files   []string `json:"files" jsonschema:"the paths of the matching files"`
}

// Search returns the qualified symbol names and file paths that contain
// pattern, compared case-insensitively, each list sorted. An empty pattern
// matches nothing.
func (ix *Index) Search(pattern string) SearchResult {
	r := SearchResult{Pattern: pattern, Symbols: []string{}, Files: []string{}}
	if pattern == "" {
		return r
	}
	p := strings.ToLower(pattern)
	for _, qn := range ix.symbolNames {
		if strings.Contains(strings.ToLower(qn), p) {
			r.Symbols = append(r.Symbols, qn)
		}
	}
	for _, f := range ix.fileNames {
		if strings.Contains(strings.ToLower(f), p) {
			r.Files = append(r.Files, f)
		}
	}
	sort.Strings(r.Symbols)
	return r
}
