package lsp

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/internal/fileuri"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Workspace symbols (workspace/symbol) are the outlines of the open
// documents and of the files of the workspace folders the language table
// knows, read through the workspace's reader (confined to the project when
// Options.Files is), each file's outline parsed once per version.

// maxWorkspaceFiles bounds the files of the workspace folders looked at;
// maxWorkspaceSymbols the symbols of one answer.
const (
	maxWorkspaceFiles   = 5000
	maxWorkspaceSymbols = 1000
)

// wireSymbolInformation is an LSP SymbolInformation.
type wireSymbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// outlineCache holds the outlines of the workspace's files, by path and
// version.
type outlineCache struct {
	mu sync.Mutex
	m  map[string]fileOutline
}

type fileOutline struct {
	mod  time.Time
	size int64
	syms []wireSymbolInformation
}

// workspaceSymbol answers workspace/symbol: the symbols whose name holds
// the query's characters in order (case-insensitively), the open
// documents' first, then those of the other files, by path.
func (s *server) workspaceSymbol(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Query string `json:"query"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	out := []wireSymbolInformation{}
	add := func(syms []wireSymbolInformation) bool {
		for _, y := range syms {
			if len(out) >= maxWorkspaceSymbols {
				return false
			}
			if fuzzyMatch(p.Query, y.Name) {
				out = append(out, y)
			}
		}
		return true
	}
	open := map[string]bool{}
	docs := s.session.all()
	slices.SortFunc(docs, func(a, b *Snapshot) int { return strings.Compare(a.URI, b.URI) })
	for _, snap := range docs {
		if path := FilePath(snap.URI); path != "" {
			open[filepath.Clean(path)] = true
		}
		if _, _, bad := snap.Degraded(); bad {
			continue
		}
		if !add(s.documentSymbols(ctx, snap)) {
			return out, nil
		}
	}
	for _, path := range s.workspaceFiles(ctx) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if open[path] {
			continue
		}
		if !add(s.fileSymbols(ctx, path)) {
			break
		}
	}
	return out, nil
}

// documentSymbols flattens a document's outline into SymbolInformation,
// each child naming its parent as container.
func (s *server) documentSymbols(ctx context.Context, snap *Snapshot) []wireSymbolInformation {
	sy, ok := snap.Lang.(Symbolizer)
	if !ok {
		return nil
	}
	var out []wireSymbolInformation
	var walk func(syms []Symbol, container string)
	walk = func(syms []Symbol, container string) {
		for _, y := range syms {
			name := y.Name
			if name == "" {
				name = "?"
			}
			out = append(out, wireSymbolInformation{Name: name, Kind: int(y.Kind), ContainerName: container,
				Location: Location{URI: snap.URI, Range: s.rangeOf(snap.File, y.Span)}})
			walk(y.Children, name)
		}
	}
	walk(sy.Symbols(ctx, snap), "")
	return out
}

// fileSymbols returns the symbols of a file of a workspace folder that is
// not open, from its outline, parsed once per version of the file.
func (s *server) fileSymbols(ctx context.Context, path string) []wireSymbolInformation {
	r := s.ws.reader()
	fi, err := r.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > s.ws.limit() {
		return nil
	}
	c := &s.outlines
	c.mu.Lock()
	fo, ok := c.m[path]
	c.mu.Unlock()
	if ok && fo.mod.Equal(fi.ModTime()) && fo.size == fi.Size() {
		return fo.syms
	}
	b, err := r.ReadFile(path)
	if err != nil {
		return nil
	}
	uri := fileuri.FromPath(path)
	l := languageFor(s.langs, uri, "")
	if l == nil {
		return nil
	}
	// A snapshot of its own, outside the session and the workspace: no
	// sample data is loaded for it.
	snap := &Snapshot{URI: uri, File: syntax.NewFile(uri, string(b)), Lang: l, Edited: -1, Limit: s.ws.limit()}
	syms := s.documentSymbols(ctx, snap)
	c.mu.Lock()
	if c.m == nil || len(c.m) > 4*maxWorkspaceFiles {
		c.m = map[string]fileOutline{}
	}
	c.m[path] = fileOutline{mod: fi.ModTime(), size: fi.Size(), syms: syms}
	c.mu.Unlock()
	return syms
}

// workspaceFiles lists the files of the workspace folders whose names the
// language table knows, by path, at most maxWorkspaceFiles; hidden
// directories and node_modules are skipped.
func (s *server) workspaceFiles(ctx context.Context) []string {
	s.mu.Lock()
	roots := slices.Clone(s.roots)
	s.mu.Unlock()
	r := s.ws.reader()
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := r.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if len(out) >= maxWorkspaceFiles || ctx.Err() != nil {
				return
			}
			name := e.Name()
			p := filepath.Join(dir, name)
			switch {
			case e.Type()&fs.ModeSymlink != 0:
			case e.IsDir():
				if !strings.HasPrefix(name, ".") && name != "node_modules" {
					walk(p)
				}
			case e.Type().IsRegular() && lang.ForName(name) != nil:
				out = append(out, p)
			}
		}
	}
	for _, root := range roots {
		walk(filepath.Clean(root))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fuzzyMatch reports whether name holds the characters of query in
// order, ignoring case; an empty query matches every name.
func fuzzyMatch(query, name string) bool {
	name = strings.ToLower(name)
	for _, c := range strings.ToLower(query) {
		i := strings.IndexRune(name, c)
		if i < 0 {
			return false
		}
		name = name[i+len(string(c)):]
	}
	return true
}
