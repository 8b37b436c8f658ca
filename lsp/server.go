package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ctxql/ctxql/internal/files"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// Options configure a Server.
type Options struct {
	// Languages served; nil means DefaultLanguages().
	Languages []Language
	// Log receives the server's log (never the protocol); nil discards it.
	Log io.Writer
	// Trace logs every message read and written to Log.
	Trace bool
	// DiagnosticsDelay is the debounce before diagnostics are computed after
	// a change. Zero still coalesces bursts: while one version is being
	// diagnosed, later versions replace each other and only the newest runs.
	DiagnosticsDelay time.Duration
	// Version is reported in serverInfo.
	Version string
	// Files, when set, reads every sample data file and every
	// .ctxql.yaml: its confinement and size limit apply, not the
	// ctxql.maxDataBytes setting's limit.
	Files *files.Reader
	// RaiseTimeout says how the user raises the evaluation time limit,
	// for the message of an evaluation that ran out of time ("the
	// --timeout flag"); empty: the ctxql.runTimeout setting.
	RaiseTimeout string
	// OpenEngine opens the databases a data path may name as an engine
	// URL (sqlite:FILE, postgres://…); nil: such data cannot be read.
	OpenEngine lang.EngineOpener
}

// The LSP and JSON-RPC error codes the server answers with.
const (
	codeServerNotInitialized = jsonrpc2.Code(protocol.ErrorCodesServerNotInitialized)
	codeRequestCancelled     = jsonrpc2.Code(protocol.LSPErrorCodesRequestCancelled)
)

// server is the state of one connection.
type server struct {
	opts  Options
	langs []Language
	log   *logger
	conn  jsonrpc2.Conn

	inflight map[string]context.CancelFunc // by idKey, guarded by mu

	mu          sync.Mutex
	initialized bool // the initialize request was answered
	shutdown    bool // the shutdown request was answered
	utf8        bool // positions are counted in UTF-8 bytes
	pull        bool // the client pulls diagnostics: never push them
	refresh     bool // the client accepts workspace/diagnostic/refresh
	hintRefresh bool // the client accepts workspace/inlayHint/refresh
	watch       bool // the client watches files for the server when asked
	config      Config
	roots       []string // the workspace folders' directories

	exited chan int // receives the exit code once

	session *session
	diags   *diagnoser
	ws      *workspace
	tests   testStore // the failing cases of the tests run from the editor
	// outlines are the outlines of the workspace folders' files
	// (workspace/symbol).
	outlines outlineCache
}

// Serve runs a language server over rwc (LSP "Content-Length" framing) until
// the client sends "exit" or closes the stream. It returns the process exit
// code: 0 after shutdown followed by exit, 1 otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	return newServer(opts).serve(ctx, rwc)
}

// serve runs the server s over rwc (see Serve).
func (s *server) serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	st := newStream(rwc, s.log)
	s.conn = jsonrpc2.NewConn(st)
	s.conn.Go(ctx, s.handle)
	code := 1
	select {
	case code = <-s.exited:
	case <-s.conn.Done():
		s.log.printf("connection closed without exit")
	case <-st.ended:
		// The input ended without exit. Do not wait for the connection to
		// drain: a handler stuck in a language must not keep the process alive.
		s.log.printf("input ended without exit")
	case <-ctx.Done():
	}
	s.drain(time.Second)
	s.diags.stop(time.Second)
	s.ws.stopReleases()
	closed := make(chan struct{})
	go func() { _ = s.conn.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Second): // a reader blocked on a stdin that cannot be interrupted
	}
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		s.log.printf("connection: %v", err)
	}
	return code
}

// drain gives requests already read a moment to send their answers before
// the connection closes: it returns once no request has been in flight for
// two checks 10 ms apart, or after limit.
func (s *server) drain(limit time.Duration) {
	deadline := time.Now().Add(limit)
	idle := 0
	for idle < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		s.mu.Lock()
		n := len(s.inflight)
		s.mu.Unlock()
		if n == 0 {
			idle++
		} else {
			idle = 0
		}
	}
}

func newServer(opts Options) *server {
	langs := opts.Languages
	if langs == nil {
		langs = DefaultLanguages()
	}
	s := &server{
		opts:     opts,
		langs:    langs,
		log:      newLogger(opts.Log, opts.Trace),
		exited:   make(chan int, 1),
		inflight: map[string]context.CancelFunc{},
		session:  newSession(),
		config:   Config{DiagnosticsDelay: opts.DiagnosticsDelay},
	}
	s.diags = newDiagnoser(s)
	s.ws = newWorkspace(func() Config {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.config
	})
	s.ws.files, s.ws.raiseTimeout, s.ws.openEngine = opts.Files, opts.RaiseTimeout, opts.OpenEngine
	s.ws.overlay = func(path string) ([]byte, bool) {
		for _, snap := range s.session.all() {
			if FilePath(snap.URI) == path {
				return []byte(snap.File.Text()), true
			}
		}
		return nil, false
	}
	s.ws.inUse = func() map[string]bool {
		used := map[string]bool{}
		for _, snap := range s.session.all() {
			if p := s.ws.DataPath(snap); p != "" {
				used[p] = true
			}
		}
		return used
	}
	return s
}

// handlerFunc handles one decoded request; params is "null" when absent.
type handlerFunc func(s *server, ctx context.Context, params json.RawMessage) (any, error)

// handle is the connection's handler. Notifications run inline, in wire
// order, and never fail the connection; requests other than initialize and
// shutdown run concurrently so that a slow one (a huge document) does not
// hold up the others. A panic becomes an InternalError response and a log
// line with the stack.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := req.Method()
	params := json.RawMessage(req.Params())
	if len(params) == 0 {
		params = json.RawMessage("null") // clients may omit params (shutdown)
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.printf("panic in %s: %v\n%s", method, r, debug.Stack())
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
			if !req.IsCall() {
				err = nil
			}
		}
	}()
	if !req.IsCall() {
		s.notify(method, params)
		return nil, nil
	}
	if method == protocol.MethodInitialize {
		return s.initialize(params)
	}
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	if !initialized {
		return nil, jsonrpc2.NewError(codeServerNotInitialized, "server not initialized")
	}
	if shutdown {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "server is shutting down")
	}
	m := lookup(method)
	if m == nil || m.call == nil || !s.served(m) {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
	}
	if method != protocol.MethodShutdown {
		jsonrpc2.Async(ctx)
	}
	// The request context is pooled by the connection and must not be
	// wrapped; cancellation ($/cancelRequest) uses a context of our own.
	cctx, cancel := context.WithCancel(jsonrpc2.DetachContext(ctx))
	key := idKey(req.ID())
	s.mu.Lock()
	s.inflight[key] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		cancel()
	}()
	res, err := m.call(s, cctx, params)
	if cctx.Err() != nil {
		return nil, jsonrpc2.NewError(codeRequestCancelled, "request cancelled")
	}
	if errors.Is(err, errTooLarge) {
		return m.empty, nil
	}
	return res, err
}

// notify handles a notification; errors are logged, never returned.
func (s *server) notify(method string, params json.RawMessage) {
	if method == protocol.MethodExit {
		s.mu.Lock()
		code := 1
		if s.shutdown {
			code = 0
		}
		s.mu.Unlock()
		select {
		case s.exited <- code:
		default:
		}
		return
	}
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if !initialized {
		s.log.printf("dropped %s before initialize", method)
		return
	}
	m := lookup(method)
	if m == nil || m.note == nil {
		return // unknown notifications ("$/..." or otherwise) are ignored
	}
	if err := m.note(s, params); err != nil {
		s.log.printf("%s: %v", method, err)
	}
}

func (s *server) cancelRequest(params json.RawMessage) error {
	var p cancelParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("decode params: %w", err)
	}
	var n int64
	var str string
	key := ""
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		key = idKey(jsonrpc2.NewNumberID(n))
	case json.Unmarshal(p.ID, &str) == nil:
		key = idKey(jsonrpc2.NewStringID(str))
	}
	s.mu.Lock()
	cancel := s.inflight[key]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// idKey identifies a request id in the in-flight table.
func idKey(id jsonrpc2.ID) string {
	if n, ok := id.Number(); ok {
		return fmt.Sprintf("n%d", n)
	}
	str, _ := id.StringValue()
	return "s" + str
}

// decode unmarshals params into v, as an InvalidParams error.
func decode(params json.RawMessage, v any) error {
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// snapshotOf returns the latest snapshot of the document named in params.
func (s *server) snapshotOf(params json.RawMessage) (*Snapshot, error) {
	var p textDocumentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	snap := s.session.get(p.TextDocument.URI)
	if snap == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "document not open: %s", p.TextDocument.URI)
	}
	if _, _, bad := snap.Degraded(); bad {
		return nil, errTooLarge
	}
	return snap, nil
}

// position converts a byte offset of f to an LSP position in the negotiated
// encoding.
func (s *server) position(f *syntax.File, off int) Position {
	s.mu.Lock()
	utf8 := s.utf8
	s.mu.Unlock()
	var p syntax.UTF16Pos
	if utf8 {
		p = f.UTF8Col(off)
	} else {
		p = f.UTF16(off)
	}
	return Position{Line: p.Line, Character: p.Character}
}

// rangeOf converts a span of f to an LSP range.
func (s *server) rangeOf(f *syntax.File, sp syntax.Span) Range {
	sp = f.Clamp(sp)
	return Range{Start: s.position(f, sp.Start), End: s.position(f, sp.End)}
}

// offset converts an LSP position to a byte offset of f, clamped.
func (s *server) offset(f *syntax.File, p Position) int {
	s.mu.Lock()
	utf8 := s.utf8
	s.mu.Unlock()
	q := syntax.UTF16Pos{Line: p.Line, Character: p.Character}
	if utf8 {
		return f.OffsetUTF8(q)
	}
	return f.OffsetUTF16(q)
}

// spanOf converts an LSP range to a byte span of f.
func (s *server) spanOf(f *syntax.File, r Range) syntax.Span {
	start, end := s.offset(f, r.Start), s.offset(f, r.End)
	if end < start {
		start, end = end, start
	}
	return syntax.Sp(start, end)
}

// errInvalidRequest is a JSON-RPC InvalidRequest error.
func errInvalidRequest(msg string) error { return jsonrpc2.NewError(jsonrpc2.InvalidRequest, msg) }

// positionParams decodes a document and position, returning the snapshot
// and the byte offset.
func (s *server) positionParams(params json.RawMessage) (*Snapshot, int, error) {
	var p textDocumentPositionParams
	if err := decode(params, &p); err != nil {
		return nil, 0, err
	}
	snap := s.session.get(p.TextDocument.URI)
	if snap == nil {
		return nil, 0, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "document not open: %s", p.TextDocument.URI)
	}
	if _, _, bad := snap.Degraded(); bad {
		return nil, 0, errTooLarge
	}
	return snap, s.offset(snap.File, p.Position), nil
}

// textEdits converts byte-offset edits to LSP TextEdits.
func (s *server) textEdits(f *syntax.File, edits []syntax.TextEdit) []wireTextEdit {
	out := make([]wireTextEdit, 0, len(edits))
	for _, e := range edits {
		out = append(out, wireTextEdit{Range: s.rangeOf(f, e.Span), NewText: e.NewText})
	}
	return out
}
