package lsp

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxql/ctxql/config"
)

// TokenTypes is the semantic token legend's type list; SemanticToken.Type
// names one of them.
var tokenTypes = [...]string{"namespace", "type", "class", "enum", "interface", "struct", "typeParameter",
	"parameter", "variable", "property", "enumMember", "event", "function", "method", "macro", "keyword",
	"modifier", "comment", "string", "number", "regexp", "operator", "decorator"}

// TokenModifiers is the semantic token legend's modifier list.
var tokenModifiers = [...]string{"declaration", "definition", "readonly", "deprecated", "documentation", "defaultLibrary"}

func (s *server) initialize(params json.RawMessage) (any, error) {
	var p initializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil, errInvalidRequest("initialize sent twice")
	}
	s.initialized = true
	enc := string(protocol.PositionEncodingKindUTF16)
	if slices.Contains(p.Capabilities.General.PositionEncodings, string(protocol.PositionEncodingKindUTF8)) {
		s.utf8 = true
		enc = string(protocol.PositionEncodingKindUTF8)
	}
	// Diagnostics are pulled by a client that can, pushed to the others;
	// never both.
	d := p.Capabilities.TextDocument.Diagnostic
	s.pull = d != nil && string(*d) != "null"
	s.refresh = p.Capabilities.Workspace.Diagnostics.RefreshSupport
	s.hintRefresh = p.Capabilities.Workspace.InlayHint.RefreshSupport
	s.watch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	if len(p.InitializationOptions) > 0 && string(p.InitializationOptions) != "null" {
		s.config.apply(p.InitializationOptions)
	}
	for _, f := range p.WorkspaceFolders {
		if dir := FilePath(f.URI); dir != "" {
			s.roots = append(s.roots, dir)
		}
	}
	if dir := FilePath(p.RootURI); len(s.roots) == 0 && dir != "" {
		s.roots = append(s.roots, dir)
	}
	return initializeResult{
		Capabilities: s.capabilities(enc),
		ServerInfo:   serverInfo{Name: "ctxql", Version: s.opts.Version},
	}, nil
}

// capabilities are advertised statically (some clients, such as Neovim 0.7,
// support no dynamic registration). Features no language implements are
// left out.
func (s *server) capabilities(enc string) map[string]any {
	caps := map[string]any{
		"positionEncoding": enc,
		"textDocumentSync": map[string]any{
			"openClose": true,
			"change":    2, // incremental
			"save":      map[string]any{"includeText": false},
		},
	}
	if s.pull {
		caps["diagnosticProvider"] = map[string]any{
			"identifier":            "ctxql",
			"interFileDependencies": false,
			"workspaceDiagnostics":  false,
		}
	}
	for i := range methods {
		if m := &methods[i]; m.capability != nil && s.served(m) {
			m.capability(s, caps)
		}
	}
	return caps
}

func (s *server) anyLang(f func(Language) bool) bool { return slices.ContainsFunc(s.langs, f) }

// initializedNote asks the client for the "ctxql" configuration section
// and, when it can watch files for the server, registers watchers for the
// configuration files and sample data, whose changes re-diagnose the open
// documents (didChangeWatchedFiles).
func (s *server) initializedNote(json.RawMessage) error {
	go s.fetchConfig()
	s.mu.Lock()
	watch := s.watch
	s.mu.Unlock()
	if watch {
		go s.registerWatchers()
	}
	return nil
}

// watchedFiles are the globs the server asks the client to watch.
var watchedFiles = []string{"**/" + config.FileName, "**/*.{json,jsonl,ndjson,yaml,yml,facts}"}

func (s *server) registerWatchers() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var watchers []map[string]any
	for _, g := range watchedFiles {
		watchers = append(watchers, map[string]any{"globPattern": g})
	}
	params := map[string]any{"registrations": []any{map[string]any{
		"id": "ctxql-watched-files", "method": protocol.MethodWorkspaceDidChangeWatchedFiles,
		"registerOptions": map[string]any{"watchers": watchers},
	}}}
	if _, err := s.conn.Call(ctx, "client/registerCapability", params, nil); err != nil {
		s.log.printf("client/registerCapability: %v", err)
	}
}

func (s *server) shutdownCall(context.Context, json.RawMessage) (any, error) {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.diags.stop(time.Second)
	s.ws.stopReleases()
	return nil, nil
}
