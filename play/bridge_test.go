package play

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsClient is a page's end of the language server connection.
type wsClient struct {
	t    testing.TB
	ws   *websocket.Conn
	next int
	seen []map[string]any // read and not yet awaited
}

// dial opens the WebSocket with the given Origin, with or without the
// session cookie.
func (p *playground) dial(t testing.TB, origin string, withCookie bool) *wsClient {
	t.Helper()
	c, err := p.tryDial(origin, withCookie)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return c
}

func (p *playground) tryDial(origin string, withCookie bool) (*wsClient, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	if withCookie {
		h.Set("Cookie", p.cookie.Name+"="+p.cookie.Value)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, "ws://"+p.host+"/lsp", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("%w (%s)", err, resp.Status)
		}
		return nil, err
	}
	ws.SetReadLimit(64 << 20)
	return &wsClient{t: p.t, ws: ws}, nil
}

func (c *wsClient) close() { c.ws.Close(websocket.StatusNormalClosure, "") }

func (c *wsClient) write(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	must(c.t, err)
	must(c.t, c.ws.Write(context.Background(), websocket.MessageText, b))
}

// call sends a request and returns its id.
func (c *wsClient) call(method string, params any) float64 {
	c.next++
	c.write(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	return float64(c.next)
}

func (c *wsClient) notify(method string, params any) {
	c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// await reads messages until one satisfies ok, within d.
func (c *wsClient) await(d time.Duration, what string, ok func(m map[string]any) bool) map[string]any {
	c.t.Helper()
	for i, m := range c.seen {
		if ok(m) {
			c.seen = append(c.seen[:i], c.seen[i+1:]...)
			return m
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		_, b, err := c.ws.Read(ctx)
		if err != nil {
			for _, m := range c.seen {
				c.t.Logf("seen: %v", m)
			}
			c.t.Fatalf("waiting for %s: %v", what, err)
		}
		var m map[string]any
		must(c.t, json.Unmarshal(b, &m))
		if ok(m) {
			return m
		}
		c.seen = append(c.seen, m)
	}
}

// response waits for the answer to request id.
func (c *wsClient) response(id float64, d time.Duration) map[string]any {
	c.t.Helper()
	return c.await(d, fmt.Sprintf("the answer to request %v", id), func(m map[string]any) bool {
		v, ok := m["id"].(float64)
		return ok && v == id && m["method"] == nil
	})
}

// initialize runs the LSP handshake with settings as initialization
// options.
func (c *wsClient) initialize(settings any) map[string]any {
	c.t.Helper()
	id := c.call("initialize", map[string]any{"processId": nil, "rootUri": "file:///", "capabilities": map[string]any{},
		"initializationOptions": settings})
	r := c.response(id, 20*time.Second)
	c.notify("initialized", map[string]any{})
	return r
}

func TestCrossOriginWebSocketRefused(t *testing.T) {
	p := start(t, Budget{})
	if _, err := p.tryDial("http://evil.example", true); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("cross-origin WebSocket: %v, want 403", err)
	}
	if _, err := p.tryDial("", true); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("WebSocket without Origin: %v, want 403", err)
	}
	if _, err := p.tryDial(p.base, false); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("WebSocket without the cookie: %v, want 401", err)
	}
	// A wrong Host with the right Origin and cookie.
	code, _, _ := p.do("GET", "/lsp", "", true, map[string]string{"Host": "evil.example", "Origin": "http://evil.example",
		"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
	if code != http.StatusMisdirectedRequest {
		t.Errorf("WebSocket with a wrong Host: %d, want 421", code)
	}
	c := p.dial(t, p.base, true)
	defer c.close()
	r := c.initialize(nil)
	caps, _ := r["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["textDocumentSync"] == nil || caps["hoverProvider"] == nil {
		t.Errorf("the server's capabilities did not reach the page: %v", r)
	}
}

// runResult runs ctxql.run on the first line of a document.
func (c *wsClient) run(uri string, line int) map[string]any {
	c.t.Helper()
	id := c.call("workspace/executeCommand", map[string]any{"command": "ctxql.run", "arguments": []any{uri,
		map[string]any{"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 0}}}})
	r := c.response(id, 30*time.Second)
	res, _ := r["result"].(map[string]any)
	if res == nil {
		c.t.Fatalf("ctxql.run: %v", r)
	}
	return res
}

func TestLanguageServerThroughBridge(t *testing.T) {
	p := start(t, Budget{})
	c := p.dial(t, p.base, true)
	defer c.close()
	c.initialize(nil)
	uri := fileURI(filepath.Join(p.dir, "q", "a.pact"))
	text, _ := os.ReadFile(filepath.Join(p.dir, "q", "a.pact"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "pact", "version": 1, "text": string(text)}})
	res := c.run(uri, 1)
	got, _ := json.Marshal(res["results"])
	if string(got) != `["cb:u1","cb:u2"]` {
		t.Errorf("ctxql.run results = %s (%v)", got, res)
	}
	// A whole new text reaches the server as an edit: its live preview
	// follows the edited query.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "// data: ./history.json\n@t0 ^seq .mt .cb\n"}}})
	c.await(30*time.Second, "the live preview of the 3 results of @t0 ^seq .mt .cb", func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "ctxql/preview" && p["uri"] == uri && p["count"] == float64(3)
	})
	// The funnel's steps: ctxql.explain passes.
	id0 := c.call("workspace/executeCommand", map[string]any{"command": "ctxql.explain", "arguments": []any{uri,
		map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}}})
	x, _ := c.response(id0, 30*time.Second)["result"].(map[string]any)
	if steps, _ := x["steps"].([]any); len(steps) < 2 || x["error"] != nil {
		t.Errorf("ctxql.explain through the bridge: %v", x)
	} else if last, _ := steps[len(steps)-1].(map[string]any); last["count"] != float64(3) {
		t.Errorf("ctxql.explain: the last step left %v, want the 3 results", last["count"])
	}
	// Commands other than run, explain and why are not passed on.
	id := c.call("workspace/executeCommand", map[string]any{"command": "ctxql.chooseData", "arguments": []any{uri}})
	if r := c.response(id, 30*time.Second); r["error"] == nil {
		t.Errorf("ctxql.chooseData passed: %v", r)
	}
	// A document outside the project is refused.
	out := fileURI(filepath.Join(filepath.Dir(p.dir), "x.pact"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": out, "languageId": "pact", "version": 1, "text": ".cb"}})
	c.await(30*time.Second, "the refusal of a document outside the project", func(m map[string]any) bool {
		return m["method"] == "window/showMessage" && strings.Contains(fmt.Sprint(m["params"]), "not a file of the project")
	})
}

func TestDataOutsideProjectRefused(t *testing.T) {
	p := start(t, Budget{})
	c := p.dial(t, p.base, true)
	defer c.close()
	// In the settings: dropped, and said so.
	c.initialize(map[string]any{"data": map[string]any{"*.pact": "../secret.json"}})
	c.await(30*time.Second, "the refusal of the data setting", func(m map[string]any) bool {
		return m["method"] == "window/showMessage" && strings.Contains(fmt.Sprint(m["params"]), "secret.json")
	})
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"data": map[string]any{"*.pact": "q/link.json"}}}})
	c.await(30*time.Second, "the refusal of a link out of the project", func(m map[string]any) bool {
		return m["method"] == "window/showMessage" && strings.Contains(fmt.Sprint(m["params"]), "link.json")
	})
	for _, bad := range []string{"paste:../secret.json", "paste:" + filepath.Join("..", "..", "secret.json"), "/etc/passwd"} {
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"data": map[string]any{"*.pact": bad}}}})
		c.await(30*time.Second, "the refusal of "+bad, func(m map[string]any) bool {
			return m["method"] == "window/showMessage" && strings.Contains(fmt.Sprint(m["params"]), bad)
		})
	}
	// In an open .ctxql.yaml standing in for the project's: refused.
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": fileURI(filepath.Join(p.dir, "q", ".ctxql.yaml")),
		"languageId": "yaml", "version": 1, "text": "data:\n  \"**\": ../../secret.json\n"}})
	c.await(30*time.Second, "the refusal of an open .ctxql.yaml", func(m map[string]any) bool {
		return m["method"] == "window/showMessage" && strings.Contains(fmt.Sprint(m["params"]), "not a PACT, JQL or Datalog file")
	})
	// In a data line: the language server's reader refuses it.
	uri := fileURI(filepath.Join(p.dir, "q", "b.pact"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "pact", "version": 1,
		"text": "// data: ../../secret.json\n@t0 ^seq .mt .cb\n"}})
	res := c.run(uri, 1)
	if want := "sample data: ../secret.json: path outside the allowed directory"; res["error"] != want {
		t.Errorf("a query whose data line leads out of the project: %v, want the error %q", res, want)
	}
	// The project's own data works, in a setting and in a data line.
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"data": map[string]any{"b.pact": "q/history.json"}}}})
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "@t0 ^seq .mt .cb\n"}}})
	if res := c.run(uri, 0); res["count"] != float64(3) {
		t.Errorf("with project data: %v, want 3 results", res)
	}
}

func TestQueryOverBudget(t *testing.T) {
	p := start(t, Budget{Timeout: 300 * time.Millisecond})
	// A cross product of 400^3 tuples.
	var tuples []string
	for i := range 400 {
		tuples = append(tuples, fmt.Sprintf(`["v%d"]`, i))
	}
	data := `{"relations": {"e": {"param_types": ["Proc"], "tuples": [` + strings.Join(tuples, ",") + `]}}}`
	must(t, os.WriteFile(filepath.Join(p.dir, "big.json"), []byte(data), 0o644))
	c := p.dial(t, p.base, true)
	defer c.close()
	c.initialize(map[string]any{"data": map[string]any{"*.dl": "big.json"}})
	uri := fileURI(filepath.Join(p.dir, "big.dl"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "datalog", "version": 1,
		"text": "big(a, b, c) <-- e(a), e(b), e(c);\n"}})
	id := c.call("workspace/executeCommand", map[string]any{"command": "ctxql.run", "arguments": []any{uri,
		map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}})
	start := time.Now()
	r := c.response(id, 30*time.Second)
	msg := fmt.Sprint(r["error"]) + fmt.Sprint(r["result"])
	// The bridge's budget or the server's run timeout stops it, whichever
	// comes first; both say the same.
	if !strings.Contains(msg, "timed out after 300ms (raise with ctxql play --timeout)") {
		t.Errorf("a query over the time budget: %v", r)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the budget of 300ms stopped the query after %v", el)
	}
	// The server is still up: a small program runs on the same connection.
	small := fileURI(filepath.Join(p.dir, "small.dl"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": small, "languageId": "datalog", "version": 1,
		"text": "one(a) <-- e(a), if a == \"v1\";\n"}})
	// The abandoned evaluation may hold the data for a moment, longer on
	// a loaded machine: try again (a new version: a result is kept per
	// version) for up to 30 s.
	var res map[string]any
	for v := 2; time.Since(start) < 30*time.Second; v++ {
		if v > 2 {
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": small, "version": v},
				"contentChanges": []any{map[string]any{"text": "one(a) <-- e(a), if a == \"v1\";\n" + strings.Repeat("\n", v)}}})
		}
		id := c.call("workspace/executeCommand", map[string]any{"command": "ctxql.run", "arguments": []any{small,
			map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}})
		r := c.response(id, 30*time.Second)
		if res, _ = r["result"].(map[string]any); res != nil && res["error"] == nil {
			break
		}
		t.Logf("%v after the over-budget query: %v", time.Since(start), r)
	}
	if res["count"] != float64(1) {
		t.Errorf("after the over-budget query: %v", res)
	}
	if code, _, _ := p.do("GET", "/api/info", "", true, nil); code != http.StatusOK {
		t.Errorf("the HTTP server after the over-budget query: %d", code)
	}
}

// TestAnswerOverOutputBudget checks that an answer of the language server
// larger than the output budget reaches the page as an error for its
// request, and the connection goes on.
func TestAnswerOverOutputBudget(t *testing.T) {
	p := start(t, Budget{MaxOutputBytes: 20000})
	var tuples []string
	for i := range 5000 {
		tuples = append(tuples, fmt.Sprintf(`["value-%d"]`, i))
	}
	must(t, os.WriteFile(filepath.Join(p.dir, "many.json"), []byte(`{"relations": {"e": {"param_types": ["V"], "tuples": [`+strings.Join(tuples, ",")+`]}}}`), 0o644))
	c := p.dial(t, p.base, true)
	defer c.close()
	if r := c.initialize(map[string]any{"data": map[string]any{"*.dl": "many.json"}}); r["error"] != nil {
		t.Fatalf("initialize: %v", r)
	}
	uri := fileURI(filepath.Join(p.dir, "many.dl"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "datalog", "version": 1,
		"text": "all(a) <-- e(a);\n"}})
	id := c.call("workspace/executeCommand", map[string]any{"command": "ctxql.run", "arguments": []any{uri,
		map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}}})
	r := c.response(id, 30*time.Second)
	if msg := fmt.Sprint(r["error"]); !strings.Contains(msg, "larger than the playground's budget of 20000 bytes") {
		t.Errorf("an answer over the output budget: %v", r)
	}
	// The connection goes on: a small answer arrives.
	id = c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 1}})
	if r := c.response(id, 30*time.Second); r["error"] != nil {
		t.Errorf("after the answer over budget: %v", r)
	}
}
