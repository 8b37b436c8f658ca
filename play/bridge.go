package play

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/lsp"
)

// The bridge joins a page's WebSocket to a language server of its own.
// Each WebSocket message is one JSON-RPC message; the server speaks LSP's
// Content-Length framing over a pair of pipes. The bridge passes on only
// what a playground needs and keeps the server inside the project:
//
//   - only the requests and notifications of the editor features
//     (allowedRequests, allowedNotes) and the commands ctxql.run,
//     ctxql.explain and ctxql.why pass;
//   - documents must have file: URIs inside the project;
//   - the "ctxql" settings (initializationOptions, didChangeConfiguration
//     and the answers to workspace/configuration, which the bridge gives
//     itself) name sample data only inside the project or among the
//     page's pasted data; the size and time settings are the budget's;
//   - a "data:" line of a document naming a file outside the project is
//     disabled before the server sees it (the server reads every text in
//     full: the bridge announces full text synchronization);
//   - each request runs under the time and memory budget: over it, the
//     page gets an error naming the limit and the server a cancellation;
//   - an answer larger than the output budget is replaced by an error.

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

// message is one JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m *message) isRequest() bool  { return m.Method != "" && len(m.ID) > 0 }
func (m *message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC and LSP error codes the bridge answers with.
const (
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeRequestFailed  = -32803
)

type bridge struct {
	s  *Server
	ws *websocket.Conn

	wmu    sync.Mutex // serializes writes to the server
	toSrv  io.WriteCloser
	wsMu   sync.Mutex // serializes writes to the page
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	pending  map[string]*pendingReq // client requests by id
	settings map[string]any         // the sanitized "ctxql" settings
	initID   string                 // the id of the initialize request
	texts    map[string]struct{}    // the open documents by URI (fromPage only)
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
// language server until either side closes.
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
	b := &bridge{s: s, ws: ws, toSrv: cw, ctx: ctx, cancel: cancel, pending: map[string]*pendingReq{}, texts: map[string]struct{}{},
		settings: s.sanitizeSettings(nil, nil)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		lsp.Serve(ctx, pipeConn{cr, sw}, lsp.Options{Log: s.opts.Log, Version: s.opts.Version})
		sw.Close()
	}()
	go b.fromServer(sr)
	b.fromPage()
	cancel()
	cw.Close()
	cr.Close()
	<-done
	ws.Close(websocket.StatusNormalClosure, "")
}

// pipeConn is the language server's end of the two pipes.
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
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			b.ws.Close(websocket.StatusPolicyViolation, "not a JSON-RPC message")
			return
		}
		if m.isResponse() {
			b.toServer(&m) // an answer to a request of the server
			continue
		}
		if m.isRequest() {
			b.request(&m)
			continue
		}
		b.note(&m)
	}
}

// request passes on a client request, or answers it with an error.
func (b *bridge) request(m *message) {
	if !allowedRequests[m.Method] {
		b.answerPage(m.ID, nil, &rpcError{codeMethodNotFound, "ctxql play does not pass on " + m.Method})
		return
	}
	var err error
	switch m.Method {
	case "initialize":
		err = b.initialize(m)
	case "workspace/executeCommand":
		var p struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(m.Params, &p) != nil || !allowedCommands[p.Command] {
			err = fmt.Errorf("command %q is not available in the playground", p.Command)
		}
	}
	if err == nil {
		err = b.checkURI(m.Params)
	}
	if err != nil {
		b.answerPage(m.ID, nil, &rpcError{codeInvalidRequest, "ctxql play: " + err.Error()})
		return
	}
	b.watch(m)
	b.toServer(m)
}

// note passes on a client notification, or drops it.
func (b *bridge) note(m *message) {
	if !allowedNotes[m.Method] {
		return
	}
	switch m.Method {
	case "workspace/didChangeConfiguration":
		var p struct {
			Settings struct {
				Ctxql json.RawMessage `json:"ctxql"`
			} `json:"settings"`
		}
		_ = json.Unmarshal(m.Params, &p)
		var refused []string
		set := b.s.sanitizeSettings(p.Settings.Ctxql, &refused)
		b.refused(refused)
		b.mu.Lock()
		b.settings = set
		b.mu.Unlock()
		m.Params, _ = json.Marshal(map[string]any{"settings": map[string]any{"ctxql": set}})
	case "textDocument/didOpen", "textDocument/didChange":
		if err := b.checkURI(m.Params); err != nil {
			b.refused([]string{err.Error()})
			return
		}
		if err := queryDocument(m.Params); err != nil {
			b.refused([]string{err.Error()})
			return
		}
		if m.Method == "textDocument/didChange" && rangedChange(m.Params) {
			b.refused([]string{"incremental text changes (the playground synchronizes whole texts)"})
			return
		}
		if msg, ok := b.s.confineText(m); !ok {
			b.refused([]string{msg})
		}
		if !b.track(m) {
			return
		}
	case "textDocument/didClose":
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(m.Params, &p)
		delete(b.texts, p.TextDocument.URI)
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(m.Params, &p) == nil && b.answeredByBridge(p.ID) {
			return
		}
	}
	b.toServer(m)
}

// track counts the open documents. It reports false, having told the
// page, for a document over the limit of open documents.
func (b *bridge) track(m *message) bool {
	if m.Method != "textDocument/didOpen" {
		return true
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return true
	}
	uri := p.TextDocument.URI
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
// configuration, sample data paths included.
func queryDocument(params json.RawMessage) error {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(params, &p)
	l := lang.ForName(p.TextDocument.URI)
	if l != nil && slices.Contains(lang.Queries(), l) {
		return nil
	}
	return fmt.Errorf("document %s is not a PACT, JQL or Datalog file", p.TextDocument.URI)
}

// rangedChange reports whether a didChange carries a change of a range.
func rangedChange(params json.RawMessage) bool {
	var p struct {
		ContentChanges []struct {
			Range json.RawMessage `json:"range"`
		} `json:"contentChanges"`
	}
	if json.Unmarshal(params, &p) != nil {
		return true
	}
	for _, c := range p.ContentChanges {
		if len(c.Range) > 0 && string(c.Range) != "null" {
			return true
		}
	}
	return false
}

// initialize points the server at the project and lays the budget over
// the page's initialization options.
func (b *bridge) initialize(m *message) error {
	var p map[string]any
	if err := json.Unmarshal(m.Params, &p); err != nil || p == nil {
		return errors.New("invalid initialize params")
	}
	root := fileURI(b.s.dir)
	// Positions are UTF-16, as the page counts them and as the bridge
	// writes the ranges of its changes.
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
	b.initID = string(m.ID)
	b.mu.Unlock()
	m.Params, _ = json.Marshal(p)
	return nil
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
func (b *bridge) watch(m *message) {
	if m.Method == "initialize" || m.Method == "shutdown" {
		b.mu.Lock()
		b.pending[string(m.ID)] = &pendingReq{method: m.Method, stop: func() {}}
		b.mu.Unlock()
		return
	}
	bud := b.s.budget
	ctx, cancel := context.WithTimeoutCause(b.ctx, bud.Timeout, acp.TimeLimit(bud.Timeout))
	ctx, stopMem := acp.WatchMemory(ctx, bud.MaxMemory)
	id := string(m.ID)
	pr := &pendingReq{method: m.Method, stop: func() { stopMem(); cancel() }}
	b.mu.Lock()
	b.pending[id] = pr
	b.mu.Unlock()
	go func() {
		<-ctx.Done()
		le := acp.LimitCause(ctx)
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
		cancelMsg, _ := json.Marshal(map[string]any{"id": json.RawMessage(id)})
		b.toServer(&message{JSONRPC: "2.0", Method: "$/cancelRequest", Params: cancelMsg})
		b.answerPage(json.RawMessage(id), nil, &rpcError{codeRequestFailed,
			fmt.Sprintf("ctxql play: %s %s", m.Method, limitText(le))})
	}()
}

// limitText words a limit for the page, naming ctxql play's flag.
func limitText(le *acp.LimitError) string {
	switch le.What {
	case "time":
		return fmt.Sprintf("took longer than the playground's budget of %s (ctxql play --timeout raises it)", le.Limit)
	case "memory":
		return fmt.Sprintf("used more than the playground's memory budget of %s bytes (ctxql play --max-memory raises it)", le.Limit)
	}
	return le.Error()
}

// answeredByBridge reports whether the bridge already answered the client
// request id.
func (b *bridge) answeredByBridge(id json.RawMessage) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	pr := b.pending[string(id)]
	return pr != nil && pr.answered
}

// fromServer reads the server's messages and passes them to the page.
func (b *bridge) fromServer(r io.Reader) {
	br := bufio.NewReader(r)
	tr := textproto.NewReader(br)
	limit := int64(b.s.budget.MaxOutputBytes)
	for {
		h, err := tr.ReadMIMEHeader()
		if err != nil {
			b.cancel()
			return
		}
		n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
		if err != nil || n < 0 {
			b.cancel()
			return
		}
		if n > limit {
			// Too large for the page: skip it, answering its request with
			// an error when it answers one.
			head := make([]byte, min(n, 256))
			if _, err := io.ReadFull(br, head); err != nil {
				b.cancel()
				return
			}
			if _, err := io.CopyN(io.Discard, br, n-int64(len(head))); err != nil {
				b.cancel()
				return
			}
			if id := leadingID(head); id != nil {
				b.finish(id)
				b.answerPage(id, nil, &rpcError{codeRequestFailed, fmt.Sprintf(
					"ctxql play: the answer is larger than the playground's budget of %d bytes", limit)})
			}
			continue
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(br, data); err != nil {
			b.cancel()
			return
		}
		var m message
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		switch {
		case m.isResponse():
			if !b.finish(m.ID) {
				continue // answered by the bridge already
			}
			if b.isInit(m.ID) {
				data = fullSync(data)
			}
		case m.isRequest() && m.Method == "workspace/configuration":
			b.configuration(&m)
			continue
		}
		b.toPage(data)
	}
}

// leadingID finds the id of a response whose JSON starts with it (the
// server writes "id" before "result"); nil when it does not.
func leadingID(head []byte) json.RawMessage {
	s := string(head)
	i := strings.Index(s, `"id":`)
	if i < 0 || strings.Contains(s[:i], `"method"`) {
		return nil
	}
	rest := s[i+5:]
	j := strings.IndexAny(rest, ",}")
	if j < 0 {
		return nil
	}
	id := strings.TrimSpace(rest[:j])
	if !json.Valid([]byte(id)) {
		return nil
	}
	return json.RawMessage(id)
}

// finish ends the budget of the client request id; it reports false when
// the bridge already answered it.
func (b *bridge) finish(id json.RawMessage) bool {
	b.mu.Lock()
	pr := b.pending[string(id)]
	delete(b.pending, string(id))
	b.mu.Unlock()
	if pr == nil {
		return true
	}
	pr.stop()
	return !pr.answered
}

func (b *bridge) isInit(id json.RawMessage) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.initID != "" && b.initID == string(id) {
		b.initID = ""
		return true
	}
	return false
}

// fullSync rewrites an initialize result to full text synchronization.
func fullSync(data []byte) []byte {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	res, _ := m["result"].(map[string]any)
	caps, _ := res["capabilities"].(map[string]any)
	if caps == nil {
		return data
	}
	switch sync := caps["textDocumentSync"].(type) {
	case map[string]any:
		sync["change"] = 1
	default:
		caps["textDocumentSync"] = 1
	}
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// configuration answers the server's workspace/configuration request with
// the sanitized settings, for every item asked.
func (b *bridge) configuration(m *message) {
	var p struct {
		Items []json.RawMessage `json:"items"`
	}
	_ = json.Unmarshal(m.Params, &p)
	b.mu.Lock()
	set := b.settings
	b.mu.Unlock()
	out := make([]any, len(p.Items))
	for i := range out {
		out[i] = set
	}
	res, _ := json.Marshal(out)
	b.toServer(&message{JSONRPC: "2.0", ID: m.ID, Result: res})
}

// refused tells the page what the bridge refused.
func (b *bridge) refused(msgs []string) {
	for _, msg := range msgs {
		params, _ := json.Marshal(map[string]any{"type": 1, "message": "ctxql play refused: " + msg})
		data, _ := json.Marshal(&message{JSONRPC: "2.0", Method: "window/showMessage", Params: params})
		b.toPage(data)
	}
}

// toServer writes a message to the language server with its framing.
func (b *bridge) toServer(m *message) {
	if m.JSONRPC == "" {
		m.JSONRPC = "2.0"
	}
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if _, err := fmt.Fprintf(b.toSrv, "Content-Length: %d\r\n\r\n%s", len(data), data); err != nil {
		b.cancel()
	}
}

// answerPage sends the page a response.
func (b *bridge) answerPage(id json.RawMessage, result json.RawMessage, e *rpcError) {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		m["error"] = e
	} else {
		m["result"] = result
	}
	data, _ := json.Marshal(m)
	b.toPage(data)
}

// toPage sends one message to the page.
func (b *bridge) toPage(data []byte) {
	b.wsMu.Lock()
	defer b.wsMu.Unlock()
	if err := b.ws.Write(b.ctx, websocket.MessageText, data); err != nil {
		b.cancel()
	}
}
