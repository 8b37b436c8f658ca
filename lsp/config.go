package lsp

import (
	"context"
	"encoding/json"
	"math"
	"sort"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxql/ctxql/lang"
)

// Config is the "ctxql" settings section a client may send in
// initializationOptions, answer to workspace/configuration or push with
// workspace/didChangeConfiguration. Its project keys are the keys of
// .ctxql.yaml, with the same meaning and the same JSON schema
// (config/schema.json): an editor setting wins over the document's
// .ctxql.yaml, which wins over the defaults. The other keys belong to the
// server:
//
//	{"rules": {"select": ["PACT"], "ignore": [...], "severity": {...}},
//	 "dialect": {"default": "v1", "files": {"old/*.pact": "v1"}},
//	 "per-file-ignores": {...}, "embedded": {"calls": [...]}, "exclude": [...],
//	 "data": {"*.pact": "/w/sample.json"}, // sample data by file glob, matched against the end of a document's path
//	 "diagnosticsDelay": 50,               // milliseconds of debounce before diagnostics
//	 "runTimeout": 2000,                   // milliseconds one preview evaluation may take
//	 "maxDocumentBytes": 8388608,          // larger documents get no language features
//	 "maxDataBytes": 268435456,            // larger sample data files are refused
//	 "dataCacheBytes": 134217728,          // sample data no open document uses kept, by file size
//	 "dataReleaseDelay": 10000,            // milliseconds such data stays loaded
//	 "inlayHints": {"steps": true}}        // counts after each query step as inlay hints
//
// In editor settings, null, "" and an empty rules.select list mean "not
// set" (editors send them for settings left at their default).
type Config struct {
	DiagnosticsDelay time.Duration
	Data             []DataGlob
	RunTimeout       time.Duration // bound of one preview evaluation (0: 2 s)
	MaxDocumentBytes int64         // 0: DefaultMaxDocumentBytes
	MaxDataBytes     int64         // 0: DefaultMaxDataBytes
	// DataCacheBytes bounds the sample data kept loaded (by file size)
	// when no open document uses it; -1 keeps none, 0 means
	// DefaultDataCacheBytes.
	DataCacheBytes int64
	// DataReleaseDelay is how long sample data no open document uses
	// stays loaded after its last use; -1 releases it at once, 0 means
	// DefaultDataReleaseDelay.
	DataReleaseDelay time.Duration
	// NoStepHints turns off the inlay hints with the count after each
	// step of a query ("inlayHints": {"steps": false}).
	NoStepHints bool
	// Project holds the .ctxql.yaml keys the editor sets, as a JSON object
	// merged over the document's .ctxql.yaml; nil when it sets none.
	Project map[string]any
	// EditorDialect is the editor's dialect.default (DialectUnset when it
	// sets none): it wins over .ctxql.yaml in the dialect resolution.
	EditorDialect lang.Dialect
	// Gen counts the changes of the settings, so that caches keyed by it
	// see a change.
	Gen int
}

// The defaults of the size limits.
const (
	DefaultMaxDocumentBytes = 8 << 20
	DefaultMaxDataBytes     = 256 << 20
	DefaultDataCacheBytes   = 128 << 20
	DefaultDataReleaseDelay = 10 * time.Second
)

// The names of the settings that raise the limits, for messages.
const (
	settingMaxDocumentBytes = "ctxql.maxDocumentBytes"
	settingMaxDataBytes     = "ctxql.maxDataBytes"
	settingRunTimeout       = "ctxql.runTimeout"
)

// projectKeys are the .ctxql.yaml keys the editor settings may carry
// ("data" is handled apart: editor data globs match the end of a path).
var projectKeys = []string{"rules", "per-file-ignores", "dialect", "embedded", "exclude"}

// DataGlob names the sample data of the documents whose path matches Glob.
type DataGlob struct {
	Glob, Path string
}

type wireConfig struct {
	DiagnosticsDelay *int              `json:"diagnosticsDelay"`
	Data             map[string]string `json:"data"`
	RunTimeout       *int              `json:"runTimeout"`
	MaxDocumentBytes *int64            `json:"maxDocumentBytes"`
	MaxDataBytes     *int64            `json:"maxDataBytes"`
	DataCacheBytes   *int64            `json:"dataCacheBytes"`
	DataReleaseDelay *int64            `json:"dataReleaseDelay"`
	InlayHints       *struct {
		Steps *bool `json:"steps"`
	} `json:"inlayHints"`
}

// apply merges a settings object into c, ignoring anything malformed.
func (c *Config) apply(raw json.RawMessage) {
	var w wireConfig
	if json.Unmarshal(raw, &w) != nil {
		return
	}
	c.Gen++
	if w.DiagnosticsDelay != nil && *w.DiagnosticsDelay >= 0 {
		c.DiagnosticsDelay = time.Duration(*w.DiagnosticsDelay) * time.Millisecond
	}
	if w.RunTimeout != nil && *w.RunTimeout > 0 {
		c.RunTimeout = time.Duration(*w.RunTimeout) * time.Millisecond
	}
	if w.MaxDocumentBytes != nil && *w.MaxDocumentBytes > 0 {
		c.MaxDocumentBytes = *w.MaxDocumentBytes
	}
	if w.MaxDataBytes != nil && *w.MaxDataBytes > 0 {
		c.MaxDataBytes = *w.MaxDataBytes
	}
	if w.DataCacheBytes != nil && *w.DataCacheBytes >= 0 {
		c.DataCacheBytes = *w.DataCacheBytes
		if c.DataCacheBytes == 0 {
			c.DataCacheBytes = -1
		}
	}
	if w.DataReleaseDelay != nil && *w.DataReleaseDelay >= 0 {
		c.DataReleaseDelay = time.Duration(min(*w.DataReleaseDelay, int64(time.Duration(math.MaxInt64)/time.Millisecond))) * time.Millisecond
		if c.DataReleaseDelay == 0 {
			c.DataReleaseDelay = -1
		}
	}
	if w.InlayHints != nil && w.InlayHints.Steps != nil {
		c.NoStepHints = !*w.InlayHints.Steps
	}
	if w.Data != nil {
		c.Data = nil
		for g, p := range w.Data {
			if g != "" && p != "" {
				c.Data = append(c.Data, DataGlob{Glob: g, Path: p})
			}
		}
		sort.Slice(c.Data, func(i, j int) bool { return c.Data[i].Glob < c.Data[j].Glob })
	}
	var all map[string]any
	if json.Unmarshal(raw, &all) != nil {
		return
	}
	proj := map[string]any{}
	for _, k := range projectKeys {
		if v := pruneUnset(all[k]); v != nil {
			proj[k] = v
		}
	}
	if rules, ok := proj["rules"].(map[string]any); ok {
		if sel, ok := rules["select"].([]any); ok && len(sel) == 0 {
			delete(rules, "select")
		}
		if len(rules) == 0 {
			delete(proj, "rules")
		}
	}
	c.Project, c.EditorDialect = nil, lang.DialectUnset
	if d, ok := proj["dialect"].(map[string]any); ok {
		if name, ok := d["default"].(string); ok {
			if dl, ok := lang.ParseDialect(name); ok {
				c.EditorDialect = dl
			}
		}
	}
	if len(proj) > 0 {
		c.Project = proj
	}
}

// pruneUnset removes null and "" values and the objects left empty, and
// returns nil for a value that is unset as a whole.
func pruneUnset(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e = pruneUnset(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// mergeSettings returns base with over's values laid over it: objects merge
// key by key, any other value of over replaces base's.
func mergeSettings(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bo, ok1 := out[k].(map[string]any)
		oo, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeSettings(bo, oo)
		} else {
			out[k] = v
		}
	}
	return out
}

// maxDocumentBytes and maxDataBytes are the limits in force.
func (c Config) maxDocumentBytes() int64 {
	if c.MaxDocumentBytes > 0 {
		return c.MaxDocumentBytes
	}
	return DefaultMaxDocumentBytes
}

// dataCacheBytes is the bound of the sample data kept loaded that no open
// document uses.
func (c Config) dataCacheBytes() int64 {
	switch {
	case c.DataCacheBytes < 0:
		return 0
	case c.DataCacheBytes == 0:
		return DefaultDataCacheBytes
	}
	return c.DataCacheBytes
}

// dataReleaseDelay is how long sample data no open document uses stays
// loaded after its last use.
func (c Config) dataReleaseDelay() time.Duration {
	switch {
	case c.DataReleaseDelay < 0:
		return 0
	case c.DataReleaseDelay == 0:
		return DefaultDataReleaseDelay
	}
	return c.DataReleaseDelay
}

func (c Config) maxDataBytes() int64 {
	if c.MaxDataBytes > 0 {
		return c.MaxDataBytes
	}
	return DefaultMaxDataBytes
}

// fetchConfig asks the client for the "ctxql" section. A null answer, an
// error or no answer within a few seconds leaves the configuration as it is.
func (s *server) fetchConfig() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var res []json.RawMessage
	_, err := s.conn.Call(ctx, protocol.MethodWorkspaceConfiguration,
		configurationParams{Items: []configurationItem{{Section: "ctxql"}}}, &res)
	if err != nil {
		s.log.printf("workspace/configuration: %v", err)
		return
	}
	if len(res) == 0 || string(res[0]) == "null" {
		return
	}
	s.setConfig(res[0])
}

// setConfig applies a settings object and re-diagnoses the open documents.
func (s *server) setConfig(raw json.RawMessage) {
	s.mu.Lock()
	s.config.apply(raw)
	s.mu.Unlock()
	s.ws.invalidate()
	s.rediagnoseAll()
	s.ws.release()
}

// didChangeConfiguration applies {"settings": {"ctxql": {...}}}; a
// notification without settings (the pull model) fetches them.
func (s *server) didChangeConfiguration(params json.RawMessage) error {
	var p struct {
		Settings struct {
			Ctxql json.RawMessage `json:"ctxql"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil
	}
	if len(p.Settings.Ctxql) == 0 || string(p.Settings.Ctxql) == "null" {
		go s.fetchConfig()
		return nil
	}
	s.setConfig(p.Settings.Ctxql)
	return nil
}

// rediagnoseAll replaces every open document's snapshot by a fresh one
// (same text and version, nothing computed yet) and diagnoses it again:
// settings, .ctxql.yaml or sample data changed. A pull client is asked to
// pull again, and a client that can is asked to request its inlay hints
// again (their counts and the inlayHints.steps setting may have changed).
func (s *server) rediagnoseAll() {
	for _, snap := range s.session.all() {
		fresh := snap.fresh()
		if s.session.replace(snap, fresh) {
			s.diags.schedule(fresh)
		}
	}
	s.mu.Lock()
	hints := s.hintRefresh && s.initialized && !s.shutdown
	s.mu.Unlock()
	if hints {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := s.conn.Call(ctx, "workspace/inlayHint/refresh", nil, nil); err != nil {
				s.log.printf("workspace/inlayHint/refresh: %v", err)
			}
		}()
	}
	s.refreshDiagnostics()
}
