package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// testClient is an LSP client over a real jsonrpc2 connection to an
// in-process server on net.Pipe.
type testClient struct {
	t      testing.TB
	conn   jsonrpc2.Conn
	mu     sync.Mutex
	notes  []note
	notify chan struct{}
	done   chan int // the server's exit code
	stderr *syncBuffer
	// config answers workspace/configuration; nil answers null.
	config json.RawMessage
}

type note struct {
	Method string
	Params json.RawMessage
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer starts a server on one end of a pipe and returns the raw
// client end and a channel receiving the server's exit code.
func startServer(t testing.TB, opts Options) (net.Conn, chan int, *syncBuffer) {
	t.Helper()
	cli, done, stderr, _ := startServerState(t, opts)
	return cli, done, stderr
}

// startServerState is startServer, also returning the server's state for
// tests that look inside (the loaded data, the evaluation counters).
func startServerState(t testing.TB, opts Options) (net.Conn, chan int, *syncBuffer, *server) {
	t.Helper()
	srv, cli := net.Pipe()
	stderr := &syncBuffer{}
	if opts.Log == nil {
		opts.Log = stderr
	}
	s := newServer(opts)
	done := make(chan int, 1)
	go func() { done <- s.serve(context.Background(), srv) }()
	t.Cleanup(func() { cli.Close() })
	return cli, done, stderr, s
}

// queuedConn queues the client's writes and sends them from a goroutine,
// as an OS pipe's buffer would. net.Pipe writes block until the peer reads;
// the client library answers server requests (workspace/configuration) from
// its read loop, so a server writing while the client writes its answer
// would otherwise deadlock the test, which no real client with a pipe can.
type queuedConn struct {
	net.Conn
	ch   chan []byte
	done chan struct{}
	once sync.Once
}

func newQueuedConn(c net.Conn) *queuedConn {
	q := &queuedConn{Conn: c, ch: make(chan []byte, 4096), done: make(chan struct{})}
	go func() {
		for {
			select {
			case b := <-q.ch:
				if _, err := c.Write(b); err != nil {
					return
				}
			case <-q.done:
				return
			}
		}
	}()
	return q
}

// Write queues a copy of p.
func (q *queuedConn) Write(p []byte) (int, error) {
	select {
	case q.ch <- bytes.Clone(p):
		return len(p), nil
	case <-q.done:
		return 0, net.ErrClosed
	}
}

// Close stops the writer and closes the connection.
func (q *queuedConn) Close() error {
	q.once.Do(func() { close(q.done) })
	return q.Conn.Close()
}

// newClient starts a server and connects a client; it does not initialize.
func newClient(t testing.TB, opts Options) *testClient {
	t.Helper()
	c, _ := newClientServer(t, opts)
	return c
}

// newClientServer is newClient, also returning the server's state.
func newClientServer(t testing.TB, opts Options) (*testClient, *server) {
	t.Helper()
	raw, done, stderr, srv := startServerState(t, opts)
	c := &testClient{t: t, notify: make(chan struct{}, 1), done: done, stderr: stderr}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(newQueuedConn(raw)))
	c.conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		c.conn.Close()
		// Let the server finish what it does with the test's files (a
		// database a diagnosis opened) before the test removes them.
		select {
		case code := <-done:
			done <- code
		case <-time.After(5 * time.Second):
		}
		if t.Failed() {
			t.Logf("server log:\n%s", stderr.String())
		}
	})
	return c, srv
}

func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.IsCall() {
		if req.Method() == "client/registerCapability" || req.Method() == "workspace/inlayHint/refresh" ||
			req.Method() == "workspace/diagnostic/refresh" {
			c.mu.Lock()
			c.notes = append(c.notes, note{strings.Clone(req.Method()), json.RawMessage(bytes.Clone(req.Params()))})
			c.mu.Unlock()
			return nil, nil
		}
		if req.Method() == "workspace/applyEdit" {
			c.mu.Lock()
			c.notes = append(c.notes, note{strings.Clone(req.Method()), json.RawMessage(bytes.Clone(req.Params()))})
			c.mu.Unlock()
			return map[string]any{"applied": true}, nil
		}
		if req.Method() == "workspace/configuration" {
			if c.config != nil {
				return c.config, nil
			}
			return nil, nil
		}
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "no")
	}
	c.mu.Lock()
	// The connection may reuse the memory behind the method name and the
	// params once the handler returns: keep copies.
	c.notes = append(c.notes, note{strings.Clone(req.Method()), json.RawMessage(bytes.Clone(req.Params()))})
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return nil, nil
}

// call sends a request and decodes the result into res (when non-nil).
func (c *testClient) call(method string, params, res any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var raw json.RawMessage
	_, err := c.conn.Call(ctx, method, params, &raw)
	if err == nil && res != nil {
		err = json.Unmarshal(raw, res)
	}
	return err
}

func (c *testClient) mustCall(method string, params, res any) {
	c.t.Helper()
	if err := c.call(method, params, res); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) send(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// initialize performs the handshake, offering the given position encodings.
func (c *testClient) initialize(encodings ...string) map[string]any {
	c.t.Helper()
	params := map[string]any{"processId": nil, "capabilities": map[string]any{}}
	if len(encodings) > 0 {
		params["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": encodings}}
	}
	var res struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	c.mustCall("initialize", params, &res)
	c.send("initialized", map[string]any{})
	return res.Capabilities
}

func (c *testClient) open(uri, text string) {
	c.send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "", "version": 1, "text": text}})
}

// waitDiagnostics waits for a publishDiagnostics for uri at version (or any
// version when version < 0) and returns its diagnostics.
func (c *testClient) waitDiagnostics(uri string, version int) []wireDiagnostic {
	c.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		for i, n := range c.notes {
			if n.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var p struct {
				URI         string            `json:"uri"`
				Version     *int              `json:"version"`
				Diagnostics *[]wireDiagnostic `json:"diagnostics"`
			}
			if err := json.Unmarshal(n.Params, &p); err != nil {
				c.mu.Unlock()
				c.t.Fatalf("bad publishDiagnostics %s: %v", n.Params, err)
			}
			if p.URI == uri && (version < 0 || p.Version != nil && *p.Version == version) {
				c.notes = append(c.notes[:i:i], c.notes[i+1:]...)
				c.mu.Unlock()
				if p.Diagnostics == nil {
					c.t.Fatalf("publishDiagnostics with null diagnostics: %s", n.Params)
				}
				return *p.Diagnostics
			}
		}
		c.mu.Unlock()
		select {
		case <-c.notify:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s version %d", uri, version)
		}
	}
}

// shutdown sends shutdown (without params, as Neovim does) and exit, and
// returns the server's exit code.
func (c *testClient) shutdown() int {
	c.t.Helper()
	c.mustCall("shutdown", nil, nil)
	c.send("exit", nil)
	return c.exitCode()
}

func (c *testClient) exitCode() int {
	c.t.Helper()
	select {
	case code := <-c.done:
		c.done <- code // for the cleanup, which waits for the server
		return code
	case <-time.After(20 * time.Second):
		c.t.Fatal("server did not exit")
		return -1
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

var _ = io.EOF
