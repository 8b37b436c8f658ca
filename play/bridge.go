package play

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sync"

	"github.com/coder/websocket"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lsp"
)

// The bridge joins a page's WebSocket to a language server of its own.
// Each WebSocket message is one JSON-RPC message; the server speaks LSP's
// Content-Length framing over a pair of pipes. Both sides are read and
// written as typed messages of the jsonrpc2 library. The bridge passes on
// only what a playground needs:
//
//   - only the requests and notifications of the editor features
//     (allowedRequests, allowedNotes) and the commands ctxql.run,
//     ctxql.explain and ctxql.why pass;
//   - documents must be query files with file: URIs inside the project;
//   - the "ctxql" settings (initializationOptions, didChangeConfiguration
//     and the answers to workspace/configuration, which the bridge gives
//     itself) name sample data inside the project or among the page's
//     pasted data, and the size and time settings are the budget's;
//   - each request runs under the time and memory budget: over it, the
//     page gets an error naming the limit and the server a cancellation;
//   - an answer larger than the output budget is replaced by an error.
//
// The bridge never looks into a document's text. What keeps the language
// server inside the project is its reader (lsp.Options.Files), confined to
// the project and the pasted data: a "data:" line, a setting or a
// .ctxql.yaml naming a file anywhere else, directly or through a link, is
// refused by the reader when the server opens it.

// allowedRequests are the client requests the bridge passes on.
var allowedRequests = map[string]bool{
	"initialize": true, "shutdown": true,
	"textDocument/hover": true, "textDocument/completion": true, "completionItem/resolve": true,
	"textDocument/formatting": true, "textDocument/rangeFormatting": true,
	"textDocument/codeAction": true, "codeAction/resolve": true, "textDocument/codeLens": true,
	"textDocument/inlayHint": true, "textDocument/semanticTokens/full": true,
	"textDocument/semanticTokens/range": true, "textDocument/documentSymbol": true,
	"textDocument/definition": true, "textDocument/references": true, "textDocument/rename": true,
	"textDocument/prepareRename": true, "textDocument/diagnostic": true,
	"textDocument/documentHighlight": true, "textDocument/signatureHelp": true,
	"workspace/executeCommand": true,
}

// allowedNotes are the client notifications the bridge passes on.
var allowedNotes = map[string]bool{
	"initialized": true, "exit": true, "$/cancelRequest": true, "$/setTrace": true,
	"textDocument/didOpen": true, "textDocument/didChange": true, "textDocument/didClose": true,
	"workspace/didChangeConfiguration": true,
}

// allowedCommands are the workspace/executeCommand commands that pass.
var allowedCommands = map[string]bool{lsp.CommandRun: true, lsp.CommandExplain: true, lsp.CommandWhy: true}

// JSON-RPC and LSP error codes the bridge answers with.
const (
	codeInvalidRequest = jsonrpc2.Code(-32600)
	codeMethodNotFound = jsonrpc2.Code(-32601)
	codeRequestFailed  = jsonrpc2.Code(-32803)
)

type bridge struct {
	s   *Server
	ws  *websocket.Conn
	srv jsonrpc2.Stream // the bridge's end of the language server's pipes

	wsMu   sync.Mutex // serializes writes to the page
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	pending  map[jsonrpc2.ID]*pendingReq // client requests by id
	settings map[string]any              // the sanitized "ctxql" settings
	texts    map[string]struct{}         // the open documents by URI (fromPage only)
}

// maxDocs bounds the documents one page may have open.
const maxDocs = 64

// pendingReq is a client request the server has not answered.
type pendingReq struct {
	method   string
	answered bool // the bridge answered it (a limit): drop the server's answer
	stop     func()
}

// serveLSP upgrades the request to a WebSocket and bridges it to a new
// language server until either side closes. The server reads files only
// through the playground's reader, confined to the project and the pasted
// data.
func (s *Server) serveLSP(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, "ctxql play: cross-origin WebSocket refused", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.conns >= maxConns {
		s.mu.Unlock()
		http.Error(w, "ctxql play: too many open pages", http.StatusServiceUnavailable)
		return
	}
	s.conns++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.conns--
		s.mu.Unlock()
	}()
	// Origin and Host were checked above and by the guard; Accept checks
	// the Origin against the Host again.
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(s.budget.MaxQueryBytes + 64<<10)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cr, cw := io.Pipe() // client → server
	sr, sw := io.Pipe() // server → client
	b := &bridge{s: s, ws: ws, srv: jsonrpc2.NewHeaderStream(pipeConn{sr, cw}), ctx: ctx, cancel: cancel,
		pending: map[jsonrpc2.ID]*pendingReq{}, texts: map[string]struct{}{}, settings: s.sanitizeSettings(nil, nil)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		lsp.Serve(ctx, pipeConn{cr, sw}, lsp.Options{Log: s.opts.Log, Version: s.opts.Version, Files: s.files,
			RaiseTimeout: "ctxql play " + budget.FlagTimeout})
		sw.Close()
	}()
	go b.fromServer()
	b.fromPage()
	cancel()
	cw.Close()
	cr.Close()
	<-done
	ws.Close(websocket.StatusNormalClosure, "")
}

// pipeConn is one end of the two pipes.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close() error {
	p.r.Close()
	return p.w.Close()
}

// fromPage reads the page's messages and passes on what is allowed.
func (b *bridge) fromPage() {
	for {
		typ, data, err := b.ws.Read(b.ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			b.ws.Close(websocket.StatusUnsupportedData, "text messages only")
			return
		}
		msg, err := jsonrpc2.DecodeMessage(data)
		if err != nil {
			b.ws.Close(websocket.StatusPolicyViolation, "not a JSON-RPC message")
			return
		}
		switch m := msg.(type) {
		case *jsonrpc2.Response:
			b.toServer(m) // an answer to a request of the server
		case *jsonrpc2.Call:
			b.request(m)
		case *jsonrpc2.Notification:
			b.note(m)
		}
	}
}

// request passes on a client request, or answers it with an error.
func (b *bridge) request(m *jsonrpc2.Call) {
	if !allowedRequests[m.Method()] {
		b.answerPage(m.ID(), jsonrpc2.NewError(codeMethodNotFound, "ctxql play does not pass on "+m.Method()))
		return
	}
	params := json.RawMessage(m.Params())
	var err error
	switch m.Method() {
	case "initialize":
		params, err = b.initialize(params)
	case "workspace/executeCommand":
		var p struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(params, &p) != nil || !allowedCommands[p.Command] {
			err = fmt.Errorf("command %q is not available in the playground", p.Command)
		}
	}
	if err == nil {
		err = b.checkURI(params)
	}
	if err != nil {
		b.answerPage(m.ID(), jsonrpc2.NewError(codeInvalidRequest, "ctxql play: "+err.Error()))
		return
	}
	b.watch(m.ID(), m.Method())
	b.toServer(jsonrpc2.NewCall(m.ID(), m.Method(), jsonrpc2.RawMessage(params)))
}

// note passes on a client notification, or drops it.
func (b *bridge) note(m *jsonrpc2.Notification) {
	if !allowedNotes[m.Method()] {
		return
	}
	params := json.RawMessage(m.Params())
	switch m.Method() {
	case "workspace/didChangeConfiguration":
		var p struct {
			Settings struct {
				Ctxql json.RawMessage `json:"ctxql"`
			} `json:"settings"`
		}
		_ = json.Unmarshal(params, &p)
		var refused []string
		set := b.s.sanitizeSettings(p.Settings.Ctxql, &refused)
		b.refused(refused)
		b.mu.Lock()
		b.settings = set
		b.mu.Unlock()
		params, _ = json.Marshal(map[string]any{"settings": map[string]any{"ctxql": set}})
	case "textDocument/didOpen", "textDocument/didChange":
		if err := b.checkURI(params); err != nil {
			b.refused([]string{err.Error()})
			return
		}
		if err := queryDocument(params); err != nil {
			b.refused([]string{err.Error()})
			return
		}
		if m.Method() == "textDocument/didOpen" && !b.track(params) {
			return
		}
	case "textDocument/didClose":
		delete(b.texts, documentURI(params))
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(params, &p) == nil {
			if id, ok := parseID(p.ID); ok && b.answeredByBridge(id) {
				return
			}
		}
	}
	b.toServer(jsonrpc2.NewNotification(m.Method(), jsonrpc2.RawMessage(params)))
}

// parseID reads a JSON-RPC id, a number or a string.
func parseID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return jsonrpc2.NewNumberID(n), true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return jsonrpc2.NewStringID(s), true
	}
	return jsonrpc2.ID{}, false
}

// idValue is a JSON-RPC id as a JSON value.
func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	s, _ := id.StringValue()
	return s
}

// documentURI is the textDocument.uri of params ("" without one).
func documentURI(params json.RawMessage) string {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(params, &p)
	return p.TextDocument.URI
}

// track counts the open documents. It reports false, having told the
// page, for a document over the limit of open documents.
func (b *bridge) track(params json.RawMessage) bool {
	uri := documentURI(params)
	if _, open := b.texts[uri]; !open && len(b.texts) >= maxDocs {
		b.refused([]string{fmt.Sprintf("more than %d open documents", maxDocs)})
		return false
	}
	b.texts[uri] = struct{}{}
	return true
}

// queryDocument refuses a document that is not a query file (PACT, JQL,
// Datalog, by the language table): the page has no business opening
// anything else, and an open .ctxql.yaml would stand in for the project's
// configuration.
func queryDocument(params json.RawMessage) error {
	uri := documentURI(params)
	l := lang.ForName(uri)
	if l != nil && slices.Contains(lang.Queries(), l) {
		return nil
	}
	return fmt.Errorf("document %s is not a PACT, JQL or Datalog file", uri)
}

// initialize points the server at the project and lays the budget over
// the page's initialization options; it returns the params to pass on.
func (b *bridge) initialize(params json.RawMessage) (json.RawMessage, error) {
	var p map[string]any
	if err := json.Unmarshal(params, &p); err != nil || p == nil {
		return nil, errors.New("invalid initialize params")
	}
	root := fileURI(b.s.dir)
	// Positions are UTF-16, as the page counts them.
	if caps, ok := p["capabilities"].(map[string]any); ok {
		if g, ok := caps["general"].(map[string]any); ok {
			delete(g, "positionEncodings")
		}
	}
	p["rootUri"] = root
	p["rootPath"] = b.s.dir
	p["workspaceFolders"] = []any{map[string]any{"uri": root, "name": filepath.Base(b.s.dir)}}
	raw, _ := json.Marshal(p["initializationOptions"])
	var refused []string
	set := b.s.sanitizeSettings(raw, &refused)
	b.refused(refused)
	p["initializationOptions"] = set
	b.mu.Lock()
	b.settings = set
	b.mu.Unlock()
	return json.Marshal(p)
}

// checkURI refuses params naming a document outside the project.
func (b *bridge) checkURI(params json.RawMessage) error {
	var p struct {
		TextDocument *struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil || p.TextDocument == nil {
		return nil
	}
	path := lsp.FilePath(p.TextDocument.URI)
	if path == "" || !filepath.IsAbs(path) || !b.s.inside(path) {
		return fmt.Errorf("document %s is not a file of the project", p.TextDocument.URI)
	}
	return nil
}

// watch starts the budget of a request: when its time or memory runs out
// before the server answers, the page gets an error naming the limit and
// the server a cancellation.
func (b *bridge) watch(id jsonrpc2.ID, method string) {
	if method == "initialize" || method == "shutdown" {
		b.mu.Lock()
		b.pending[id] = &pendingReq{method: method, stop: func() {}}
		b.mu.Unlock()
		return
	}
	bud := b.s.budget
	ctx, cancel := context.WithTimeoutCause(b.ctx, bud.Timeout, budget.TimeLimit(bud.Timeout))
	ctx, stopMem := budget.WatchMemory(ctx, bud.MaxMemory)
	pr := &pendingReq{method: method, stop: func() { stopMem(); cancel() }}
	b.mu.Lock()
	b.pending[id] = pr
	b.mu.Unlock()
	go func() {
		<-ctx.Done()
		le := budget.LimitCause(ctx)
		if le == nil {
			return
		}
		b.mu.Lock()
		if pr.answered || b.pending[id] != pr {
			b.mu.Unlock()
			return
		}
		pr.answered = true
		b.mu.Unlock()
		cancelParams, _ := json.Marshal(map[string]any{"id": idValue(id)})
		b.toServer(jsonrpc2.NewNotification("$/cancelRequest", cancelParams))
		// The flag is named as the server names it: of ctxql play.
		le = le.WithFlag("ctxql play " + le.Flag)
		b.answerPage(id, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("ctxql play: %s: %v", method, le)))
	}()
}

// answeredByBridge reports whether the bridge already answered the client
// request id.
func (b *bridge) answeredByBridge(id jsonrpc2.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	pr := b.pending[id]
	return pr != nil && pr.answered
}

// fromServer reads the server's messages and passes them to the page.
func (b *bridge) fromServer() {
	limit := int64(b.s.budget.MaxOutputBytes)
	for {
		msg, n, err := b.srv.Read(b.ctx)
		if err != nil {
			b.cancel()
			return
		}
		switch m := msg.(type) {
		case *jsonrpc2.Response:
			if !b.finish(m.ID()) {
				continue // answered by the bridge already
			}
			if n > limit {
				b.answerPage(m.ID(), jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf(
					"ctxql play: the answer is larger than the playground's budget of %d bytes", limit)))
				continue
			}
		case *jsonrpc2.Call:
			if m.Method() == "workspace/configuration" {
				b.configuration(m)
				continue
			}
			if n > limit {
				b.toServer(jsonrpc2.NewResponse(m.ID(), nil, jsonrpc2.NewError(codeRequestFailed, "ctxql play: the request is too large for the page")))
				continue
			}
		case *jsonrpc2.Notification:
			if n > limit {
				continue // too large for the page
			}
		}
		data, err := jsonrpc2.EncodeMessage(msg)
		if err != nil {
			continue
		}
		b.toPage(data)
	}
}

// finish ends the budget of the client request id; it reports false when
// the bridge already answered it.
func (b *bridge) finish(id jsonrpc2.ID) bool {
	b.mu.Lock()
	pr := b.pending[id]
	delete(b.pending, id)
	b.mu.Unlock()
	if pr == nil {
		return true
	}
	pr.stop()
	return !pr.answered
}

// configuration answers the server's workspace/configuration request with
// the sanitized settings, for every item asked.
func (b *bridge) configuration(m *jsonrpc2.Call) {
	var p struct {
		Items []json.RawMessage `json:"items"`
	}
	_ = json.Unmarshal(m.Params(), &p)
	b.mu.Lock()
	set := b.settings
	b.mu.Unlock()
	out := make([]any, len(p.Items))
	for i := range out {
		out[i] = set
	}
	res, _ := json.Marshal(out)
	b.toServer(jsonrpc2.NewResponse(m.ID(), res, nil))
}

// refused tells the page what the bridge refused.
func (b *bridge) refused(msgs []string) {
	for _, msg := range msgs {
		params, _ := json.Marshal(map[string]any{"type": 1, "message": "ctxql play refused: " + msg})
		data, err := jsonrpc2.EncodeMessage(jsonrpc2.NewNotification("window/showMessage", params))
		if err == nil {
			b.toPage(data)
		}
	}
}

// toServer writes a message to the language server.
func (b *bridge) toServer(m jsonrpc2.Message) {
	if _, err := b.srv.Write(b.ctx, m); err != nil {
		b.cancel()
	}
}

// answerPage sends the page an error answer to its request id.
func (b *bridge) answerPage(id jsonrpc2.ID, e *jsonrpc2.Error) {
	data, err := jsonrpc2.EncodeMessage(jsonrpc2.NewResponse(id, nil, e))
	if err == nil {
		b.toPage(data)
	}
}

// toPage sends one message to the page.
func (b *bridge) toPage(data []byte) {
	b.wsMu.Lock()
	defer b.wsMu.Unlock()
	if err := b.ws.Write(b.ctx, websocket.MessageText, data); err != nil {
		b.cancel()
	}
}
