package lsp

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"go.lsp.dev/protocol"
)

// Config is the "ctxql" settings section a client may send in
// initializationOptions, answer to workspace/configuration or push with
// workspace/didChangeConfiguration:
//
//	{"diagnosticsDelay": 50,              // milliseconds of debounce before diagnostics
//	 "data": {"*.pact": "/w/sample.json"}, // sample data for previews, by file glob
//	 "runTimeout": 2000}                   // milliseconds one preview evaluation may take
type Config struct {
	DiagnosticsDelay time.Duration
	Data             []DataGlob
	RunTimeout       time.Duration // bound of one preview evaluation (0: 2 s)
}

// DataGlob names the sample data of the documents whose path matches Glob.
type DataGlob struct {
	Glob, Path string
}

type wireConfig struct {
	DiagnosticsDelay *int              `json:"diagnosticsDelay"`
	Data             map[string]string `json:"data"`
	RunTimeout       *int              `json:"runTimeout"`
}

// apply merges a settings object into c, ignoring anything malformed.
func (c *Config) apply(raw json.RawMessage) {
	var w wireConfig
	if json.Unmarshal(raw, &w) != nil {
		return
	}
	if w.DiagnosticsDelay != nil && *w.DiagnosticsDelay >= 0 {
		c.DiagnosticsDelay = time.Duration(*w.DiagnosticsDelay) * time.Millisecond
	}
	if w.RunTimeout != nil && *w.RunTimeout > 0 {
		c.RunTimeout = time.Duration(*w.RunTimeout) * time.Millisecond
	}
	if w.Data != nil {
		c.Data = nil
		for g, p := range w.Data {
			c.Data = append(c.Data, DataGlob{Glob: g, Path: p})
		}
		sort.Slice(c.Data, func(i, j int) bool { return c.Data[i].Glob < c.Data[j].Glob })
	}
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
	if len(res) == 0 {
		return
	}
	s.mu.Lock()
	s.config.apply(res[0])
	s.mu.Unlock()
}

// didChangeConfiguration applies {"settings": {"ctxql": {...}}}.
func (s *server) didChangeConfiguration(params json.RawMessage) error {
	var p struct {
		Settings struct {
			Ctxql json.RawMessage `json:"ctxql"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Settings.Ctxql) == 0 {
		return nil
	}
	s.mu.Lock()
	s.config.apply(p.Settings.Ctxql)
	s.mu.Unlock()
	return nil
}
