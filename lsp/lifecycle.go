package lsp

import (
	"context"
	"encoding/json"
	"slices"

	"go.lsp.dev/protocol"
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
	if len(p.InitializationOptions) > 0 {
		s.config.apply(p.InitializationOptions)
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
		"diagnosticProvider": map[string]any{
			"identifier":            "ctxql",
			"interFileDependencies": false,
			"workspaceDiagnostics":  false,
		},
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Symbolizer); return ok }) {
		caps["documentSymbolProvider"] = true
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Highlighter); return ok }) {
		caps["semanticTokensProvider"] = map[string]any{
			"legend": map[string]any{"tokenTypes": tokenTypes[:], "tokenModifiers": tokenModifiers[:]},
			"full":   true,
		}
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Hoverer); return ok }) {
		caps["hoverProvider"] = true
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Completer); return ok }) {
		caps["completionProvider"] = map[string]any{"triggerCharacters": []string{".", "#", "+", ":", "@", "[", "{"}}
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Formatter); return ok }) {
		caps["documentFormattingProvider"] = true
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(RangeFormatter); return ok }) {
		caps["documentRangeFormattingProvider"] = true
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(CodeActioner); return ok }) {
		caps["codeActionProvider"] = true
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(CodeLenser); return ok }) {
		caps["codeLensProvider"] = map[string]any{"resolveProvider": false}
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Runner); return ok }) {
		caps["executeCommandProvider"] = map[string]any{"commands": []string{CommandRun}}
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(InlayHinter); return ok }) {
		caps["inlayHintProvider"] = true
	}
	if s.anyLang(func(l Language) bool { _, ok := l.(Navigator); return ok }) {
		caps["definitionProvider"] = true
		caps["referencesProvider"] = true
		caps["renameProvider"] = true
	}
	return caps
}

func (s *server) anyLang(f func(Language) bool) bool { return slices.ContainsFunc(s.langs, f) }

// supports reports whether a request method is served by some language.
func (s *server) supports(method string) bool {
	switch method {
	case protocol.MethodTextDocumentDocumentSymbol:
		return s.anyLang(func(l Language) bool { _, ok := l.(Symbolizer); return ok })
	case protocol.MethodTextDocumentSemanticTokensFull:
		return s.anyLang(func(l Language) bool { _, ok := l.(Highlighter); return ok })
	case protocol.MethodTextDocumentHover:
		return s.anyLang(func(l Language) bool { _, ok := l.(Hoverer); return ok })
	case protocol.MethodTextDocumentCompletion:
		return s.anyLang(func(l Language) bool { _, ok := l.(Completer); return ok })
	case protocol.MethodTextDocumentFormatting:
		return s.anyLang(func(l Language) bool { _, ok := l.(Formatter); return ok })
	case protocol.MethodTextDocumentRangeFormatting:
		return s.anyLang(func(l Language) bool { _, ok := l.(RangeFormatter); return ok })
	case protocol.MethodTextDocumentCodeAction:
		return s.anyLang(func(l Language) bool { _, ok := l.(CodeActioner); return ok })
	case protocol.MethodTextDocumentCodeLens:
		return s.anyLang(func(l Language) bool { _, ok := l.(CodeLenser); return ok })
	case protocol.MethodWorkspaceExecuteCommand:
		return s.anyLang(func(l Language) bool { _, ok := l.(Runner); return ok })
	case protocol.MethodTextDocumentInlayHint:
		return s.anyLang(func(l Language) bool { _, ok := l.(InlayHinter); return ok })
	case protocol.MethodTextDocumentDefinition, protocol.MethodTextDocumentReferences, protocol.MethodTextDocumentRename:
		return s.anyLang(func(l Language) bool { _, ok := l.(Navigator); return ok })
	}
	return true
}

// initializedNote asks the client for the "ctxql" configuration section.
func (s *server) initializedNote(json.RawMessage) error {
	go s.fetchConfig()
	return nil
}

func (s *server) shutdownCall(context.Context, json.RawMessage) (any, error) {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.diags.stop()
	return nil, nil
}
