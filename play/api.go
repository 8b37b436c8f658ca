package play

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
)

//go:embed all:dist
var dist embed.FS

//go:embed examples
var examples embed.FS

// assetHandler serves the built page's assets.
func assetHandler() http.Handler {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embedded tree always has dist
	}
	return http.FileServerFS(sub)
}

// page serves the page itself. The editor adds its styles in <style>
// elements: the page's policy allows those carrying a nonce made for this
// answer, which the page reads from its meta element.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	b, err := dist.ReadFile("dist/index.html")
	if err != nil {
		http.Error(w, "the page is missing from this build", http.StatusInternalServerError)
		return
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		http.Error(w, "ctxql play: "+err.Error(), http.StatusInternalServerError)
		return
	}
	nonce := base64.StdEncoding.EncodeToString(raw[:])
	b = bytes.Replace(b, []byte(`content="STYLE-NONCE"`), []byte(`content="`+nonce+`"`), 1)
	w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "style-src 'self'", "style-src 'self' 'nonce-"+nonce+"'", 1))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// infoLanguage describes a query language to the page.
type infoLanguage struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Extensions []string `json:"extensions"`
	Comment    string   `json:"comment"`
	Dialects   []string `json:"dialects,omitempty"`
	// Steps: ctxql.explain counts what each step of a query left (the
	// page's funnel); Proofs: ctxql.why proves a result (its Why panel).
	Steps  bool `json:"steps"`
	Proofs bool `json:"proofs"`
}

// example is one entry of the examples menu.
type example struct {
	Name  string `json:"name"`
	Lang  string `json:"lang"`
	Query string `json:"query"` // file under examples/
	Data  string `json:"data"`  // file under examples/
}

// info tells the page about the project, the languages, the examples and
// the limits.
func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	ex, _ := exampleList()
	out := map[string]any{
		"version":       s.opts.Version,
		"root":          fileURI(s.dir),
		"project":       filepath.Base(s.dir),
		"languages":     infoLanguages(),
		"examples":      ex,
		"maxPasteBytes": s.budget.MaxPasteBytes,
		"maxQueryBytes": s.budget.MaxQueryBytes,
		"timeoutMs":     s.budget.Timeout.Milliseconds(),
	}
	if s.opts.Path != "" {
		p, _ := s.projectPath(s.opts.Path)
		out["path"] = s.rel(p)
	}
	if s.opts.Data != "" {
		p, _ := s.projectPath(s.opts.Data)
		out["data"] = s.rel(p)
	}
	writeJSON(w, out)
}

// fileURI writes an absolute file path as a file: URI.
func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// exampleList reads the examples menu.
func exampleList() ([]example, error) {
	b, err := examples.ReadFile("examples/examples.json")
	if err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	var ex []example
	if err := json.Unmarshal(b, &ex); err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	return ex, nil
}

// example serves one file of the examples.
func (s *Server) example(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		http.Error(w, "no such example", http.StatusNotFound)
		return
	}
	b, err := examples.ReadFile(path.Join("examples", name))
	if err != nil {
		http.Error(w, "no such example", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(b)
}

// file serves a file of the project (a query file to open), read through
// the confined reader under the query size limit.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	p, err := s.projectPath(r.URL.Query().Get("path"))
	if err != nil {
		httpFileError(w, err)
		return
	}
	rd, err := files.Confined(s.dir, s.budget.MaxQueryBytes, "--max-query-bytes")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer rd.Close()
	b, err := rd.ReadFile(p)
	if err != nil {
		httpFileError(w, err)
		return
	}
	writeJSON(w, map[string]any{"path": s.rel(p), "uri": fileURI(p), "text": string(b)})
}

// httpFileError answers a refused or failed file read.
func httpFileError(w http.ResponseWriter, err error) {
	code := http.StatusBadRequest
	switch {
	case errors.Is(err, files.ErrOutside):
		code = http.StatusForbidden
	case errors.Is(err, fs.ErrNotExist):
		code = http.StatusNotFound
	case errors.Is(err, files.ErrTooLarge):
		code = http.StatusRequestEntityTooLarge
	}
	http.Error(w, "ctxql play: "+err.Error(), code)
}

// maxListed bounds the files the page is offered.
const maxListed = 2000

// list offers the project's query and sample data files (by suffix),
// skipping hidden directories and node_modules.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	var queries, data []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 12 || len(queries)+len(data) >= maxListed {
			return
		}
		ents, err := s.files.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			name := e.Name()
			p := filepath.Join(dir, name)
			switch {
			case strings.HasPrefix(name, ".") || name == "node_modules":
			case e.IsDir():
				walk(p, depth+1)
			case lang.ForName(name) != nil && slices.Contains(lang.Queries(), lang.ForName(name)):
				queries = append(queries, s.rel(p))
			case isDataName(name):
				data = append(data, s.rel(p))
			}
			if len(queries)+len(data) >= maxListed {
				return
			}
		}
	}
	walk(s.dir, 0)
	sort.Strings(queries)
	sort.Strings(data)
	writeJSON(w, map[string]any{"queries": queries, "data": data})
}

// isDataName reports whether a file name looks like sample data.
func isDataName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".yaml", ".yml", ".jsonl":
		return lang.ForName(name) == nil
	}
	return false
}

// pasteData stores pasted sample data (the body, at most MaxPasteBytes) in
// the server's private directory and names it for the page's settings.
func (s *Server) pasteData(w http.ResponseWriter, r *http.Request) {
	ext := r.URL.Query().Get("ext")
	switch ext {
	case "json", "yaml", "jsonl":
	default:
		http.Error(w, "ctxql play: ext must be json, yaml or jsonl", http.StatusBadRequest)
		return
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			http.Error(w, fmt.Sprintf("ctxql play: pasted data larger than %d bytes", s.budget.MaxPasteBytes), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "ctxql play: "+err.Error(), http.StatusBadRequest)
		return
	}
	sum := sha256.Sum256(b)
	name := hex.EncodeToString(sum[:16]) + "." + ext
	if err := os.WriteFile(filepath.Join(s.paste, name), b, 0o600); err != nil {
		http.Error(w, "ctxql play: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, map[string]any{"data": pastePrefix + name})
}

// pastePath returns the file of pasted data name.
func (s *Server) pastePath(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", errors.New("no such pasted data")
	}
	p := filepath.Join(s.paste, name)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", errors.New("no such pasted data")
	}
	return p, nil
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
