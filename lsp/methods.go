package lsp

import (
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"
)

// method is one entry of the server's method table: how a request or a
// notification is handled, which language feature it needs and which
// capability advertises it. The table is the one place that lists the
// methods the server serves.
type method struct {
	name string
	call handlerFunc                                   // a request
	note func(s *server, params json.RawMessage) error // a notification
	// feature reports whether a language implements the method; nil: the
	// method needs no language feature.
	feature func(Language) bool
	// capability adds the method's server capability (it is advertised
	// only when some language has the feature).
	capability func(s *server, caps map[string]any)
	// empty is the answer for a document over the size limit.
	empty any
}

// implements returns a feature test for the language interface T.
func implements[T any](l Language) bool { _, ok := l.(T); return ok }

// set returns a capability that sets key to v.
func set(key string, v any) func(*server, map[string]any) {
	return func(_ *server, caps map[string]any) { caps[key] = v }
}

// methods is the method table.
var methods = []method{
	{name: protocol.MethodInitialized, note: (*server).initializedNote},
	{name: protocol.MethodTextDocumentDidOpen, note: (*server).didOpen},
	{name: protocol.MethodTextDocumentDidChange, note: (*server).didChange},
	{name: protocol.MethodTextDocumentDidClose, note: (*server).didClose},
	{name: protocol.MethodTextDocumentDidSave, note: (*server).didSave},
	{name: protocol.MethodWorkspaceDidChangeConfiguration, note: (*server).didChangeConfiguration},
	{name: protocol.MethodWorkspaceDidChangeWatchedFiles, note: (*server).didChangeWatchedFiles},
	{name: "$/cancelRequest", note: (*server).cancelRequest},

	{name: protocol.MethodShutdown, call: (*server).shutdownCall},
	{name: protocol.MethodTextDocumentDiagnostic, call: (*server).pullDiagnostics},
	{name: protocol.MethodTextDocumentDocumentSymbol, call: (*server).documentSymbol, feature: implements[Symbolizer],
		capability: set("documentSymbolProvider", true), empty: []wireSymbol{}},
	{name: protocol.MethodTextDocumentSemanticTokensFull, call: (*server).semanticTokensFull, feature: implements[Highlighter],
		capability: set("semanticTokensProvider", map[string]any{
			"legend": map[string]any{"tokenTypes": tokenTypes[:], "tokenModifiers": tokenModifiers[:]},
			"full":   true,
		}), empty: semanticTokens{Data: []uint32{}}},
	{name: protocol.MethodTextDocumentHover, call: (*server).hover, feature: implements[Hoverer],
		capability: set("hoverProvider", true)},
	{name: protocol.MethodTextDocumentCompletion, call: (*server).completion, feature: implements[Completer],
		capability: set("completionProvider", map[string]any{"triggerCharacters": []string{".", "#", "+", ":", "@", "[", "{"}}),
		empty:      []wireCompletionItem{}},
	{name: protocol.MethodTextDocumentFormatting, call: (*server).formatting, feature: implements[Formatter],
		capability: set("documentFormattingProvider", true), empty: []wireTextEdit{}},
	{name: protocol.MethodTextDocumentRangeFormatting, call: (*server).rangeFormatting, feature: implements[RangeFormatter],
		capability: set("documentRangeFormattingProvider", true), empty: []wireTextEdit{}},
	{name: protocol.MethodTextDocumentCodeAction, call: (*server).codeAction, feature: implements[CodeActioner],
		capability: set("codeActionProvider", map[string]any{"codeActionKinds": codeActionKinds}), empty: []wireCodeAction{}},
	{name: protocol.MethodTextDocumentCodeLens, call: (*server).codeLens, feature: implements[CodeLenser],
		capability: set("codeLensProvider", map[string]any{"resolveProvider": false}), empty: []wireCodeLens{}},
	{name: protocol.MethodWorkspaceExecuteCommand, call: (*server).executeCommand, feature: implements[Runner],
		capability: set("executeCommandProvider", map[string]any{"commands": []string{CommandRun, CommandWhy, CommandExplain, CommandTest, CommandSetData}})},
	{name: protocol.MethodTextDocumentInlayHint, call: (*server).inlayHint, feature: implements[InlayHinter],
		capability: set("inlayHintProvider", true), empty: []any{}},
	{name: protocol.MethodTextDocumentDefinition, call: (*server).definition, feature: implements[Navigator],
		capability: set("definitionProvider", true), empty: []Location{}},
	{name: protocol.MethodTextDocumentReferences, call: (*server).references, feature: implements[Navigator],
		capability: set("referencesProvider", true), empty: []Location{}},
	{name: protocol.MethodTextDocumentRename, call: (*server).rename, feature: implements[Navigator],
		capability: set("renameProvider", true)},
	{name: protocol.MethodTextDocumentFoldingRange, call: (*server).foldingRange, feature: implements[Folder],
		capability: set("foldingRangeProvider", true), empty: []wireFoldingRange{}},
	{name: protocol.MethodTextDocumentSelectionRange, call: (*server).selectionRange, feature: implements[SelectionRanger],
		capability: set("selectionRangeProvider", true), empty: []wireSelectionRange{}},
	{name: protocol.MethodWorkspaceSymbol, call: (*server).workspaceSymbol, feature: implements[Symbolizer],
		capability: set("workspaceSymbolProvider", true)},
	{name: protocol.MethodTextDocumentSignatureHelp, call: (*server).signatureHelp, feature: implements[SignatureHelper],
		capability: set("signatureHelpProvider", map[string]any{"triggerCharacters": []string{"(", ","}})},
}

// lookup returns the table entry of a method, or nil.
func lookup(name string) *method {
	for i := range methods {
		if methods[i].name == name {
			return &methods[i]
		}
	}
	return nil
}

// served reports whether some language of the server implements m.
func (s *server) served(m *method) bool {
	return m.feature == nil || s.anyLang(m.feature)
}

// errTooLarge is returned by the snapshot getters for a document over the
// size limit; the request is answered with the method's empty result.
var errTooLarge = errors.New("document over the size limit")
