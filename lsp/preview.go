package lsp

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/syntax"
)

// RunResult is the outcome of evaluating one query against a document's
// sample data.
type RunResult struct {
	Span    syntax.Span // the query that ran
	Count   int         // number of results (ids, rows, derived facts)
	Result  any         // the whole result, JSON-encodable
	Sample  []any       // the first results, for previews
	Elapsed time.Duration
	Err     error // the query or the data failed; Count and Result are unset
}

// Runner evaluates the query at a byte offset against the document's
// sample data. ok is false when there is no query there or no data is
// configured for the document.
type Runner interface {
	Run(ctx context.Context, s *Snapshot, off int) (r RunResult, ok bool)
}

// Querier lists the spans of the queries a document holds, for code
// lenses and inlay hints.
type Querier interface {
	Queries(s *Snapshot) []syntax.Span
}

// previewLimit caps the results a preview carries; defaultRunTimeout
// bounds one evaluation unless the "runTimeout" setting says otherwise.
const (
	previewLimit      = 50
	defaultRunTimeout = 2 * time.Second
)

// runTimeout is the time one evaluation for this snapshot may take.
func (s *Snapshot) runTimeout() time.Duration {
	if s.Workspace != nil && s.Workspace.config != nil {
		if t := s.Workspace.config().RunTimeout; t > 0 {
			return t
		}
	}
	return defaultRunTimeout
}

// MethodPreview is the server-to-client notification carrying the result
// of the query being edited or run: {uri, range, count, results (the first
// 50), elapsed_ms, error?}.
const MethodPreview = "ctxql/preview"

type previewParams struct {
	URI       string  `json:"uri"`
	Range     Range   `json:"range"`
	Count     int     `json:"count"`
	Results   []any   `json:"results"`
	ElapsedMS float64 `json:"elapsed_ms"`
	Error     string  `json:"error,omitempty"`
}

func (s *server) previewOf(snap *Snapshot, r RunResult) previewParams {
	p := previewParams{URI: snap.URI, Range: s.rangeOf(snap.File, r.Span), Count: r.Count, Results: r.Sample,
		ElapsedMS: float64(r.Elapsed.Microseconds()) / 1000}
	if p.Results == nil {
		p.Results = []any{}
	}
	if r.Err != nil {
		p.Error = r.Err.Error()
	}
	return p
}

// run evaluates the query at off once per snapshot: code lenses, inlay
// hints, hovers, previews and data-aware diagnostics share the result.
func run(ctx context.Context, snap *Snapshot, off int) (RunResult, bool) {
	r, ok := snap.Lang.(Runner)
	if !ok || snap.Workspace == nil || snap.Workspace.DataPath(snap) == "" {
		return RunResult{}, false // every runner needs sample data: do not even parse
	}
	q, ok := snap.Lang.(Querier)
	if !ok {
		return r.Run(ctx, snap, off)
	}
	for _, sp := range q.Queries(snap) {
		if sp.Touches(off) {
			key := sp.Start
			if v, ok := snap.memo.Load(key); ok {
				res := v.(memoRun)
				return res.r, res.ok
			}
			res, ok := r.Run(ctx, snap, off)
			if ctx.Err() == nil {
				snap.memo.Store(key, memoRun{res, ok})
			}
			return res, ok
		}
	}
	return RunResult{}, false
}

type memoRun struct {
	r  RunResult
	ok bool
}

// preview pushes the result of the query around off, unless ctx was
// cancelled by a newer edit.
func (s *server) preview(ctx context.Context, snap *Snapshot, off int) {
	res, ok := run(ctx, snap, off)
	if !ok || ctx.Err() != nil || s.session.get(snap.URI) != snap {
		return
	}
	if err := s.conn.Notify(ctx, MethodPreview, s.previewOf(snap, res)); err != nil {
		s.log.printf("%s: %v", MethodPreview, err)
	}
}

// workspace is what every snapshot shares: the sample data loaded for the
// documents, the settings that locate it and the .ctxql.yaml files of the
// documents' directories.
type workspace struct {
	mu      sync.Mutex
	data    map[string]*loaded // by kind and path
	config  func() Config
	project map[string]*projectConfig // by directory
	lines   lineCache                 // PACT findings per line text
}

// projectConfig is a directory's .ctxql.yaml, as loaded at a time.
type projectConfig struct {
	cfg     *config.Config
	path    string    // the file, "" when none applies
	mod     time.Time // its modification time when loaded
	checked time.Time
}

// Project returns the .ctxql.yaml configuration that applies to a document
// (the default one when none is found or the file is invalid), reloading it
// when it changed. It is nil for documents that are not files.
func (w *workspace) Project(snap *Snapshot) *config.Config {
	doc := FilePath(snap.URI)
	if w == nil || doc == "" {
		return nil
	}
	dir := filepath.Dir(doc)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.project == nil {
		w.project = map[string]*projectConfig{}
	}
	pc := w.project[dir]
	if pc != nil && time.Since(pc.checked) < time.Second {
		return pc.cfg
	}
	if pc != nil && pc.path != "" {
		if fi, err := os.Stat(pc.path); err == nil && fi.ModTime().Equal(pc.mod) {
			pc.checked = time.Now()
			return pc.cfg
		}
	}
	cfg, path, err := config.Load(dir)
	if err != nil || cfg == nil {
		cfg = config.Default()
	}
	pc = &projectConfig{cfg: cfg, path: path, checked: time.Now()}
	if fi, err := os.Stat(path); path != "" && err == nil {
		pc.mod = fi.ModTime()
	}
	w.project[dir] = pc
	return cfg
}

type loaded struct {
	mod  time.Time
	size int64
	val  any
	err  error
}

func newWorkspace(config func() Config) *workspace {
	return &workspace{data: map[string]*loaded{}, config: config}
}

// FilePath returns the file system path of a document URI, or "" for
// other schemes.
func FilePath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || (u.Scheme != "file" && u.Scheme != "") {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// DataPath returns the sample data file for a document: a "data:" pragma
// in a comment on one of its first five lines ("// data: ./sample.json", or
// "# data: ..." in YAML), relative to the document; else the data entry of
// the nearest .ctxql.yaml that matches it; else the first matching "data"
// glob of the editor settings. It returns "" when none names one.
func (w *workspace) DataPath(snap *Snapshot) string {
	doc := FilePath(snap.URI)
	sc := bufio.NewScanner(strings.NewReader(snap.File.Text()))
	for i := 0; i < 5 && sc.Scan(); i++ {
		line := strings.TrimSpace(sc.Text())
		for _, lead := range []string{"//", "#"} {
			rest, ok := strings.CutPrefix(line, lead)
			if !ok {
				continue
			}
			if p, ok := strings.CutPrefix(strings.TrimSpace(rest), "data:"); ok {
				p = strings.TrimSpace(p)
				if p != "" && !filepath.IsAbs(p) && doc != "" {
					p = filepath.Join(filepath.Dir(doc), p)
				}
				return p
			}
		}
	}
	if p := w.Project(snap); p != nil && doc != "" {
		if d := p.DataFor(doc); d != "" {
			return d
		}
	}
	if w == nil || w.config == nil {
		return ""
	}
	cfg := w.config()
	for _, d := range cfg.Data {
		if matchPath(d.Glob, filepath.ToSlash(doc)) {
			return d.Path
		}
	}
	return ""
}

// matchPath matches a glob (config.Match syntax) against the end of a
// slash path, so that "queries/*.pact" matches "/w/queries/a.pact": the
// editor settings name no directory the globs are relative to.
func matchPath(glob, p string) bool {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i := range parts {
		if config.Match(glob, strings.Join(parts[i:], "/")) {
			return true
		}
	}
	return false
}

// Load returns the data at path decoded by load, loading it once and again
// only when the file's size or modification time changed. load runs with
// the workspace locked and must not call its methods.
func (w *workspace) Load(kind, path string, load func(string) (any, error)) (any, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	key := kind + "\x00" + path
	w.mu.Lock()
	defer w.mu.Unlock()
	if l := w.data[key]; l != nil && l.mod.Equal(fi.ModTime()) && l.size == fi.Size() {
		return l.val, l.err
	}
	v, err := load(path)
	w.data[key] = &loaded{mod: fi.ModTime(), size: fi.Size(), val: v, err: err}
	return v, err
}
