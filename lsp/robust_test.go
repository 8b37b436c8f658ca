package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/lang"
	"github.com/ctxql/ctxql/syntax"
)

// rawClient speaks the framing by hand, to send what a jsonrpc2 client
// never would.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	done chan int
}

func newRaw(t *testing.T, opts Options) *rawClient {
	conn, done, log := startServer(t, opts)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return &rawClient{t: t, conn: conn, r: bufio.NewReader(conn), done: done}
}

func (c *rawClient) write(body string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(20 * time.Second))
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read returns the next message from the server, skipping notifications
// and server requests unless all is set.
func (c *rawClient) read() map[string]any {
	c.t.Helper()
	for {
		c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		n := -1
		for {
			line, err := c.r.ReadString('\n')
			if err != nil {
				c.t.Fatalf("read header: %v", err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(c.r, body); err != nil {
			c.t.Fatalf("read body: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Fatalf("server sent invalid JSON %q: %v", body, err)
		}
		if _, isNote := m["method"]; isNote {
			// Notifications and server requests are skipped: answering here
			// could deadlock on the unbuffered pipe while the server writes.
			// The server gives up on an unanswered workspace/configuration.
			continue
		}
		return m
	}
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`

func (c *rawClient) init() {
	c.t.Helper()
	c.write(initMsg)
	if m := c.read(); m["result"] == nil {
		c.t.Fatalf("initialize: %v", m)
	}
	c.write(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

func TestInitializeCapabilities(t *testing.T) {
	c := newClient(t, Options{})
	caps := c.initialize()
	sync := caps["textDocumentSync"].(map[string]any)
	if caps["positionEncoding"] != "utf-16" || sync["change"] != float64(2) || sync["openClose"] != true {
		t.Errorf("capabilities %v", caps)
	}
	if _, ok := caps["diagnosticProvider"]; ok {
		t.Errorf("pull diagnostics advertised to a client without the capability: %v", caps)
	}
	for _, want := range []string{"documentSymbolProvider", "semanticTokensProvider", "codeActionProvider",
		"hoverProvider", "completionProvider", "documentFormattingProvider", "codeLensProvider", "executeCommandProvider", "inlayHintProvider",
		"foldingRangeProvider", "selectionRangeProvider", "workspaceSymbolProvider", "signatureHelpProvider"} {
		if _, ok := caps[want]; !ok {
			t.Errorf("missing %s in %v", want, caps)
		}
	}
	// A server whose languages implement no feature advertises none.
	bare := newClient(t, Options{Languages: []Language{bareLanguage{}}})
	bcaps := bare.initialize()
	for _, absent := range []string{"hoverProvider", "completionProvider", "documentFormattingProvider",
		"codeLensProvider", "executeCommandProvider", "inlayHintProvider", "codeActionProvider",
		"foldingRangeProvider", "selectionRangeProvider", "workspaceSymbolProvider", "signatureHelpProvider"} {
		if _, ok := bcaps[absent]; ok {
			t.Errorf("%s advertised without an implementation", absent)
		}
	}
	if code := bare.shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	if code := c.shutdown(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestMalformedBodies(t *testing.T) {
	c := newRaw(t, Options{})
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":`, `not json at all`, `[]`, `{}`, `{"id":{}}`} {
		c.write(body)
		if m := c.read(); errCode(m) != -32700 {
			t.Errorf("body %q: got %v, want a parse error", body, m)
		}
	}
	fmt.Fprintf(c.conn, "Content-Type: x\r\n\r\n") // no Content-Length at all
	if m := c.read(); errCode(m) != -32700 {
		t.Errorf("frame without length: got %v", m)
	}
	c.init() // still serving
}

func TestLyingContentLength(t *testing.T) {
	c := newRaw(t, Options{})
	c.init()
	fmt.Fprintf(c.conn, "Content-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}")
	c.conn.Close()
	select {
	case code := <-c.done:
		if code != 1 {
			t.Errorf("exit code %d, want 1", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server hangs on a truncated frame")
	}
}

func TestUnknownMethodAndBeforeInitialize(t *testing.T) {
	c := newRaw(t, Options{})
	c.write(`{"jsonrpc":"2.0","id":7,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///a.pact"}}}`)
	if m := c.read(); errCode(m) != -32002 {
		t.Errorf("request before initialize: %v", m)
	}
	c.write(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.pact","languageId":"pact","version":1,"text":"x"}}}`)
	c.init()
	c.write(`{"jsonrpc":"2.0","id":8,"method":"ctxql/noSuchMethod","params":{}}`)
	if m := c.read(); errCode(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
	// The didOpen before initialize was dropped.
	c.write(`{"jsonrpc":"2.0","id":9,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///a.pact"}}}`)
	if m := c.read(); errCode(m) != -32602 {
		t.Errorf("symbols of a document opened before initialize: %v", m)
	}
	c.write(`{"jsonrpc":"2.0","id":10,"method":"shutdown"}`) // no params, as Neovim sends it
	if m := c.read(); errCode(m) != 0 {
		t.Errorf("shutdown without params: %v", m)
	}
	c.write(`{"jsonrpc":"2.0","id":11,"method":"textDocument/documentSymbol","params":{}}`)
	if m := c.read(); errCode(m) != -32600 {
		t.Errorf("request after shutdown: %v", m)
	}
	c.write(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := <-c.done; code != 0 {
		t.Errorf("exit after shutdown: code %d", code)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	c.send("exit", nil)
	if code := c.exitCode(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}

func TestInvalidUTF8Document(t *testing.T) {
	c := newRaw(t, Options{})
	c.init()
	// Raw invalid bytes and a lone surrogate escape inside the JSON string.
	body := "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///u.pact\",\"languageId\":\"pact\",\"version\":1,\"text\":\".mt[role=\\\"\xff\xfe\\udc00\\\"] >\\n\xc3\"}}}"
	c.write(body)
	c.write(`{"jsonrpc":"2.0","id":2,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///u.pact"}}}`)
	if m := c.read(); m["result"] == nil {
		t.Errorf("semantic tokens: %v", m)
	}
	c.write(`{"jsonrpc":"2.0","id":3,"method":"textDocument/diagnostic","params":{"textDocument":{"uri":"file:///u.pact"}}}`)
	m := c.read()
	items, _ := m["result"].(map[string]any)["items"].([]any)
	if len(items) == 0 {
		t.Errorf("no diagnostics for a broken document: %v", m)
	}
}

func TestHugeDocumentKeepsOthersResponsive(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB document")
	}
	c := newClient(t, Options{})
	c.initialize()
	// The document is mostly comments so that its parse finishes within the
	// test's time; what matters here is the transfer, the line index and the
	// session, and that its parse runs off the message loop.
	var b strings.Builder
	for b.Len() < 20<<20 {
		b.WriteString("// a comment line of a huge file, é😀\n")
	}
	b.WriteString(".mt >> .x\n")
	c.open("file:///w/big.pact", b.String())
	c.open("file:///w/small.pact", ".mt >\n")
	if d := c.waitDiagnostics("file:///w/small.pact", 1); len(d) != 1 {
		t.Errorf("small document diagnostics %v", d)
	}
	var syms []wireSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "file:///w/small.pact"}}, &syms)
	if len(syms) != 1 {
		t.Errorf("small document symbols %v", syms)
	}
	if d := c.waitDiagnostics("file:///w/big.pact", 1); len(d) == 0 {
		t.Error("big document: no diagnostics")
	}
}

func TestRapidChanges(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	uri := "file:///w/r.pact"
	c.open(uri, "")
	for i := 0; i < 200; i++ {
		c.send("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{
				"range": Range{Start: Position{Line: i, Character: 0}, End: Position{Line: i, Character: 0}},
				"text":  fmt.Sprintf(".q%d\n", i),
			}},
		})
	}
	var syms []wireSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if len(syms) != 200 || syms[199].Name != ".q199" {
		t.Fatalf("after 200 changes: %d symbols, last %v", len(syms), syms[len(syms)-1])
	}
	if d := c.waitDiagnostics(uri, 201); len(d) != 0 {
		t.Errorf("final diagnostics %v", d)
	}
}

// testLang serves PACT files with hover, used to check that optional features
// plug in: hover on "panic" panics, hover on "block" waits for cancellation.
type testLang struct{ started chan struct{} }

func (testLang) ID() lang.ID              { return lang.PACT }
func (testLang) Parse(f *syntax.File) any { return nil }
func (l testLang) Hover(ctx context.Context, s *Snapshot, off int) (string, syntax.Span, bool) {
	switch s.File.Text() {
	case "panic":
		panic("boom")
	case "block":
		close(l.started)
		<-ctx.Done()
		return "", syntax.Span{}, false
	}
	return "**" + s.File.Text()[off:] + "**", syntax.Sp(off, s.File.Len()), true
}

func TestPluggedHoverPanicAndCancel(t *testing.T) {
	lang := testLang{started: make(chan struct{})}
	c := newRaw(t, Options{Languages: []Language{lang}})
	c.write(initMsg)
	caps := c.read()["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["hoverProvider"] != true {
		t.Fatalf("hover not advertised: %v", caps)
	}
	open := func(uri, text string) {
		c.write(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"test","version":1,"text":%q}}}`, uri, text))
	}
	hover := func(id int, uri string, char int) {
		c.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":0,"character":%d}}}`, id, uri, char))
	}
	open("file:///h.pact", "hello")
	open("file:///p.pact", "panic")
	open("file:///b.pact", "block")
	hover(2, "file:///h.pact", 2)
	m := c.read()
	if got := fmt.Sprint(m["result"]); got != "map[contents:map[kind:markdown value:**llo**] range:map[end:map[character:5 line:0] start:map[character:2 line:0]]]" {
		t.Errorf("hover: %s", got)
	}
	hover(3, "file:///p.pact", 0)
	if m := c.read(); errCode(m) != -32603 {
		t.Errorf("panicking handler: %v", m)
	}
	hover(4, "file:///b.pact", 0)
	<-lang.started
	c.write(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}`)
	if m := c.read(); errCode(m) != -32800 || m["id"] != float64(4) {
		t.Errorf("cancelled request: %v", m)
	}
	hover(5, "file:///h.pact", 0) // the server is still alive
	if m := c.read(); m["result"] == nil {
		t.Errorf("after cancel: %v", m)
	}
}

// bareLanguage serves PACT files with only the required Language
// methods.
type bareLanguage struct{}

func (bareLanguage) ID() lang.ID              { return lang.PACT }
func (bareLanguage) Parse(f *syntax.File) any { return nil }
