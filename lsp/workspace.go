package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/fileuri"
	"github.com/ctxql/ctxql/lang"
)

// workspace is what every snapshot shares: the sample data loaded for the
// documents, the settings that locate it and the .ctxql.yaml files of the
// documents' directories. Every file it reads goes through internal/files:
// regular files only (a FIFO, /dev/stdin or /dev/zero is refused, never
// waited on); sample data within the data size setting, a .ctxql.yaml
// within maxConfigBytes; both through Options.Files when it is set.
type workspace struct {
	mu      sync.Mutex
	config  func() Config
	project map[string]*projectConfig // by directory
	// files, when set, reads the sample data and the configuration
	// (Options.Files);
	// raiseTimeout says how to raise the evaluation time limit
	// (Options.RaiseTimeout).
	files        *files.Reader
	raiseTimeout string
	// openEngine opens data held in databases (Options.OpenEngine).
	openEngine lang.EngineOpener
	lines      lineCache // PACT findings per line text
	// data holds the loaded sample data; evals the evaluations over it.
	data  dataCache
	evals evalCaches
	ids   idCache
	// overlay returns the editor's text of an open file (an unsaved
	// .ctxql.yaml), if any.
	overlay func(path string) ([]byte, bool)
	// inUse returns the sample data paths the open documents use.
	inUse func() map[string]bool
}

// projectConfig is the configuration of a directory: its .ctxql.yaml with
// the editor's project settings laid over it, as loaded at a time.
type projectConfig struct {
	cfg     *config.Config
	path    string    // the .ctxql.yaml, "" when none applies
	mod     time.Time // its modification time when loaded
	size    int64
	gen     int // the settings generation it was merged with
	checked time.Time
	err     error // the file or the merged settings were invalid
}

// maxConfigBytes bounds a .ctxql.yaml.
const maxConfigBytes = 1 << 20

func newWorkspace(config func() Config) *workspace {
	return &workspace{config: config}
}

// settings returns the server's settings.
func (w *workspace) settings() Config {
	if w == nil || w.config == nil {
		return Config{}
	}
	return w.config()
}

// limit is the document size limit in force.
func (w *workspace) limit() int64 { return w.settings().maxDocumentBytes() }

// reader opens sample data under the data size limit.
func (w *workspace) reader() *files.Reader {
	if w.files != nil {
		return w.files
	}
	return files.New(w.settings().maxDataBytes(), "the "+settingMaxDataBytes+" setting")
}

// configReader reads the .ctxql.yaml files: through Options.Files when
// it is set (confined to its project), else under maxConfigBytes.
func (w *workspace) configReader() *files.Reader {
	if w.files != nil {
		return w.files
	}
	return files.New(maxConfigBytes, "")
}

// invalidate forgets the loaded configurations: the settings or a
// .ctxql.yaml changed.
func (w *workspace) invalidate() {
	w.mu.Lock()
	w.project = nil
	w.mu.Unlock()
	w.forgetIDs()
}

// Project returns the configuration that applies to a document: the
// nearest .ctxql.yaml with the editor's project settings laid over it (the
// defaults when there is neither, or when both are invalid), reloading it
// when the file changed. It is nil for documents that are not files.
func (w *workspace) Project(snap *Snapshot) *config.Config {
	cfg, _ := w.project1(snap)
	return cfg
}

// Dialect resolves the PACT dialect of the document's lines without a
// pragma through the language table's one resolution function: the
// editor's dialect setting, else .ctxql.yaml, else v2.
func (w *workspace) Dialect(snap *Snapshot) lang.Dialect {
	if w == nil {
		return lang.V2
	}
	set := lang.Settings{Editor: w.settings().EditorDialect, Config: w.Project(snap)}
	return set.Dialect(FilePath(snap.URI), lang.DialectUnset)
}

// ProjectErr is the problem with the configuration of a document, if any.
func (w *workspace) ProjectErr(snap *Snapshot) error {
	_, err := w.project1(snap)
	return err
}

func (w *workspace) project1(snap *Snapshot) (*config.Config, error) {
	doc := FilePath(snap.URI)
	if w == nil || doc == "" {
		return nil, nil
	}
	dir := filepath.Dir(doc)
	set := w.settings()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.project == nil {
		w.project = map[string]*projectConfig{}
	}
	pc := w.project[dir]
	if pc != nil && pc.gen == set.Gen {
		if time.Since(pc.checked) < time.Second {
			return pc.cfg, pc.err
		}
		if pc.path != "" {
			if fi, err := w.configReader().Stat(pc.path); err == nil && fi.ModTime().Equal(pc.mod) && fi.Size() == pc.size {
				pc.checked = time.Now()
				return pc.cfg, pc.err
			}
		}
	}
	pc = loadProject(w.configReader(), dir, set, w.overlay)
	w.project[dir] = pc
	return pc.cfg, pc.err
}

// loadProject finds the .ctxql.yaml of dir (walking up) through r and
// merges the editor's project settings over it. A confined reader
// (Options.Files) reads nothing outside its directory: a configuration
// there is not looked at.
func loadProject(r *files.Reader, dir string, set Config, overlay func(string) ([]byte, bool)) *projectConfig {
	pc := &projectConfig{gen: set.Gen, checked: time.Now()}
	var raw []byte
	for d := dir; ; {
		p := filepath.Join(d, config.FileName)
		fi, err := r.Stat(p)
		if err == nil && !fi.IsDir() {
			pc.path, pc.mod, pc.size = p, fi.ModTime(), fi.Size()
			if text, ok := overlayOf(overlay, p); ok {
				raw, err = text, nil
			} else {
				raw, err = r.ReadFile(p)
			}
			if err != nil {
				pc.err = fmt.Errorf("configuration %s: %w", p, err)
				raw = nil
			}
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	name := pc.path
	if name == "" {
		name = filepath.Join(dir, config.FileName) // editor globs are relative to the document's directory
	}
	var fileCfg *config.Config
	if raw != nil {
		c, err := config.ParseFile(name, raw)
		if err != nil {
			pc.err = err
		} else {
			fileCfg = c
		}
	}
	if set.Project == nil {
		pc.cfg = fileCfg
		if pc.cfg == nil {
			pc.cfg = config.Default()
		}
		return pc
	}
	// Lay the editor's keys over the file's (a valid file; an invalid one
	// counts as empty).
	base := map[string]any{}
	if fileCfg != nil {
		var m map[string]any
		if yaml.Unmarshal(raw, &m) == nil && m != nil {
			base = m
		}
	}
	merged, err := json.Marshal(mergeSettings(base, set.Project))
	if err == nil {
		var c *config.Config
		if c, err = config.ParseFile(name, merged); err == nil {
			pc.cfg = c
			return pc
		}
	}
	pc.err = fmt.Errorf("editor settings: %w", err)
	pc.cfg = fileCfg
	if pc.cfg == nil {
		pc.cfg = config.Default()
	}
	return pc
}

func overlayOf(overlay func(string) ([]byte, bool), p string) ([]byte, bool) {
	if overlay == nil {
		return nil, false
	}
	return overlay(p)
}

// FilePath returns the file system path of a document URI, or "" for
// other schemes.
func FilePath(uri string) string {
	return fileuri.Path(uri)
}

// dataPragma returns the document's "data:" pragma as the language
// table reads it (lang.Parsed.DataPragma, the one parser of the pragma).
func dataPragma(s *Snapshot) (lang.Pragma, bool) {
	tl := tableOf(s)
	if tl == nil {
		return lang.Pragma{}, false
	}
	return (&lang.Parsed{Lang: tl, File: s.File}).DataPragma()
}

// DataPath returns the sample data file for a document as the language
// table resolves it (lang.Settings.DataPath): its "data:" pragma, relative
// to the document; else the first matching "data" glob of the editor
// settings; else the data entry of the nearest .ctxql.yaml that matches
// it. It returns "" when none names one, and for documents of no table
// language (query test files name their data per case).
func (w *workspace) DataPath(snap *Snapshot) string {
	tl := tableOf(snap)
	if tl == nil {
		return ""
	}
	set := lang.Settings{
		Config: w.Project(snap),
		EditorData: func(name string) (string, bool) {
			doc := FilePath(name)
			for _, d := range w.settings().Data {
				if matchPath(d.Glob, filepath.ToSlash(doc)) {
					return d.Path, true
				}
			}
			return "", false
		},
	}
	path, _ := set.DataPath(snap.File.Name(), &lang.Parsed{Lang: tl, File: snap.File})
	return path
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
