package lsp

import "encoding/json"

// The wire types below mirror the LSP 3.17 structures this server reads and
// writes. They are kept small and plain (optional members are pointers or
// omitted when empty) so that the JSON matches the specification exactly for
// every client; the method names, encodings and error codes come from
// go.lsp.dev/protocol.

// Position is a 0-based line and character in the negotiated encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a pair of positions, end exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

type contentChange struct {
	Range *Range `json:"range"`
	Text  string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text"`
}

type textDocumentParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

type initializeParams struct {
	ProcessID    *int `json:"processId"`
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		TextDocument struct {
			Diagnostic *json.RawMessage `json:"diagnostic"`
		} `json:"textDocument"`
		Workspace struct {
			Diagnostics struct {
				RefreshSupport bool `json:"refreshSupport"`
			} `json:"diagnostics"`
			InlayHint struct {
				RefreshSupport bool `json:"refreshSupport"`
			} `json:"inlayHint"`
			DidChangeWatchedFiles struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
	} `json:"capabilities"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	RootURI               string          `json:"rootUri"`
	WorkspaceFolders      []struct {
		URI string `json:"uri"`
	} `json:"workspaceFolders"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type initializeResult struct {
	Capabilities map[string]any `json:"capabilities"`
	ServerInfo   serverInfo     `json:"serverInfo"`
}

// wireDiagnostic is an LSP Diagnostic.
type wireDiagnostic struct {
	Range              Range                `json:"range"`
	Severity           int                  `json:"severity"`
	Code               string               `json:"code,omitempty"`
	CodeDescription    *codeDescription     `json:"codeDescription,omitempty"`
	Source             string               `json:"source"`
	Message            string               `json:"message"`
	Tags               []int                `json:"tags,omitempty"`
	RelatedInformation []relatedInformation `json:"relatedInformation,omitempty"`
}

type codeDescription struct {
	Href string `json:"href"`
}

type relatedInformation struct {
	Location Location `json:"location"`
	Message  string   `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string           `json:"uri"`
	Version     *int32           `json:"version,omitempty"`
	Diagnostics []wireDiagnostic `json:"diagnostics"`
}

type fullDocumentDiagnosticReport struct {
	Kind  string           `json:"kind"`
	Items []wireDiagnostic `json:"items"`
}

// wireSymbol is an LSP DocumentSymbol.
type wireSymbol struct {
	Name           string       `json:"name"`
	Detail         string       `json:"detail,omitempty"`
	Kind           int          `json:"kind"`
	Range          Range        `json:"range"`
	SelectionRange Range        `json:"selectionRange"`
	Children       []wireSymbol `json:"children,omitempty"`
}

type semanticTokens struct {
	Data []uint32 `json:"data"`
}

type configurationItem struct {
	Section string `json:"section"`
}

type configurationParams struct {
	Items []configurationItem `json:"items"`
}

type wireTextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

type markupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}
