package play

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ctxql/ctxql/lang"
)

// playground is a running server over a temporary project, with a client
// holding its session cookie.
type playground struct {
	t      testing.TB
	s      *Server
	base   string // http://127.0.0.1:port
	host   string // 127.0.0.1:port
	dir    string // the project
	client *http.Client
	cookie *http.Cookie
}

// project files of the tests: a PACT query with sample data, a Datalog
// program with data, and a file outside the project.
func writeProject(t testing.TB) (dir, outside string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "my project") // a space, escaped in URIs
	outside = filepath.Join(root, "secret.json")
	must(t, os.MkdirAll(filepath.Join(dir, "q"), 0o755))
	hist, err := examples.ReadFile("examples/history.json")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "q", "history.json"), hist, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "q", "a.pact"), []byte("// data: ./history.json\n@t0 ^seq .mt .cb[role=\"user\"]\n"), 0o644))
	must(t, os.WriteFile(outside, hist, 0o644))
	must(t, os.Symlink(outside, filepath.Join(dir, "q", "link.json")))
	return dir, outside
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func start(t testing.TB, b Budget) *playground {
	t.Helper()
	dir, _ := writeProject(t)
	s, err := New(Options{Dir: dir, Budget: b, Version: "test"})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	warn, err := s.Listen("127.0.0.1:0")
	must(t, err)
	if warn != "" {
		t.Errorf("loopback listener warned: %s", warn)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	p := &playground{t: t, s: s, host: s.addr.String(), base: "http://" + s.addr.String(), dir: dir}
	jar, _ := cookiejar.New(nil)
	p.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// Exchange the token of the printed URL for the cookie.
	resp, err := p.client.Get(s.URL())
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("GET %s: %s, want 303", s.URL(), resp.Status)
	}
	for _, c := range resp.Cookies() {
		p.cookie = c
	}
	if p.cookie == nil || !p.cookie.HttpOnly || p.cookie.SameSite != http.SameSiteStrictMode || p.cookie.Value != s.Token() {
		t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Strict, the token", p.cookie)
	}
	return p
}

// do sends a request with the session cookie (when withCookie) and extra
// headers, and returns the status and body.
func (p *playground) do(method, path, body string, withCookie bool, hdr map[string]string) (int, string, http.Header) {
	p.t.Helper()
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	must(p.t, err)
	if withCookie {
		req.AddCookie(p.cookie)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	must(p.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestTokenAndCookie(t *testing.T) {
	p := start(t, Budget{})
	if code, _, _ := p.do("GET", "/api/info", "", false, nil); code != http.StatusUnauthorized {
		t.Errorf("no cookie: %d, want 401", code)
	}
	if code, _, _ := p.do("GET", "/?token=00112233445566778899aabbccddeeff", "", false, nil); code != http.StatusForbidden {
		t.Errorf("wrong token: %d, want 403", code)
	}
	if code, _, _ := p.do("GET", "/api/info", "", false, map[string]string{"Cookie": cookieName(p.s.addr) + "=" + strings.Repeat("0", 32)}); code != http.StatusUnauthorized {
		t.Errorf("wrong cookie: %d, want 401", code)
	}
	code, body, hdr := p.do("GET", "/api/info", "", true, nil)
	if code != http.StatusOK || !strings.Contains(body, `"languages"`) {
		t.Fatalf("with the cookie: %d %s", code, body)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	for k := range hdr {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("CORS header %s set", k)
		}
	}
	if len(p.s.Token()) != 32 {
		t.Errorf("token %q is not 128 bits in hex", p.s.Token())
	}
}

func TestWrongHostRefused(t *testing.T) {
	p := start(t, Budget{})
	_, port, _ := net.SplitHostPort(p.host)
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1:1", "localhost.evil.example:" + port} {
		if code, _, _ := p.do("GET", "/api/info", "", true, map[string]string{"Host": host}); code != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %d, want 421", host, code)
		}
		if code, _, _ := p.do("GET", "/?token="+p.s.Token(), "", false, map[string]string{"Host": host}); code != http.StatusMisdirectedRequest {
			t.Errorf("Host %s with the token: %d, want 421", host, code)
		}
	}
	if code, _, _ := p.do("GET", "/api/info", "", true, map[string]string{"Host": "localhost:" + port}); code != http.StatusOK {
		t.Errorf("Host localhost:%s: %d, want 200", port, code)
	}
}

func TestListenWarnsOffLoopback(t *testing.T) {
	dir, _ := writeProject(t)
	for _, tc := range []struct {
		addr string
		warn bool
	}{{"0.0.0.0:0", true}, {"", false}, {"127.0.0.1:0", false}} {
		s, err := New(Options{Dir: dir})
		must(t, err)
		warn, err := s.Listen(tc.addr)
		must(t, err)
		if (warn != "") != tc.warn || (warn != "" && !strings.Contains(warn, "not a loopback address")) {
			t.Errorf("--addr %q: warning %q", tc.addr, warn)
		}
		if !tc.warn && !s.loop {
			t.Errorf("--addr %q listens on %s, not loopback", tc.addr, s.addr)
		}
		s.Close()
	}
}

func TestCrossOriginPostRefused(t *testing.T) {
	p := start(t, Budget{})
	cross := map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}
	if code, body, _ := p.do("POST", "/api/paste?ext=json", `{"a":1}`, true, cross); code != http.StatusForbidden {
		t.Errorf("cross-origin POST: %d %s, want 403", code, body)
	}
	if code, _, _ := p.do("POST", "/api/paste?ext=json", `{"a":1}`, true, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("cross-origin POST without Sec-Fetch-Site: %d, want 403", code)
	}
	same := map[string]string{"Origin": p.base, "Sec-Fetch-Site": "same-origin"}
	code, body, _ := p.do("POST", "/api/paste?ext=json", `{"a":1}`, true, same)
	if code != http.StatusOK || !strings.Contains(body, `"paste:`) {
		t.Errorf("same-origin POST: %d %s", code, body)
	}
}

func TestOversizedBodyRefused(t *testing.T) {
	p := start(t, Budget{MaxPasteBytes: 1000, MaxQueryBytes: 1000})
	same := map[string]string{"Origin": p.base, "Sec-Fetch-Site": "same-origin"}
	if code, _, _ := p.do("POST", "/api/paste?ext=json", strings.Repeat(" ", 1001), true, same); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized paste: %d, want 413", code)
	}
	// A WebSocket message over the limit closes the connection.
	c := p.dial(t, p.base, true)
	defer c.close()
	big := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":%q}}`, strings.Repeat("x", 200<<10))
	_ = c.ws.Write(context.Background(), websocket.MessageText, []byte(big))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Errorf("oversized WebSocket message: %v, want close 1009", err)
	}
}

func TestFileOutsideProjectRefused(t *testing.T) {
	p := start(t, Budget{})
	for _, path := range []string{"../secret.json", filepath.Join(filepath.Dir(p.dir), "secret.json"), "q/link.json", "/etc/passwd"} {
		if code, body, _ := p.do("GET", "/api/file?path="+url.QueryEscape(path), "", true, nil); code != http.StatusForbidden {
			t.Errorf("GET /api/file?path=%s: %d %s, want 403", path, code, body)
		}
	}
	code, body, _ := p.do("GET", "/api/file?path=q/a.pact", "", true, nil)
	if code != http.StatusOK || !strings.Contains(body, "^seq") {
		t.Errorf("a project file: %d %s", code, body)
	}
	if _, err := New(Options{Dir: p.dir, Data: "../secret.json"}); err == nil {
		t.Errorf("--data outside the project accepted")
	}
}

func TestPageAndAssets(t *testing.T) {
	p := start(t, Budget{})
	code, body, hdr := p.do("GET", "/", "", true, nil)
	if code != http.StatusOK || !strings.Contains(body, `src="assets/app.js"`) {
		t.Fatalf("GET /: %d", code)
	}
	csp := hdr.Get("Content-Security-Policy")
	i := strings.Index(csp, "'nonce-")
	if i < 0 || !strings.HasPrefix(csp, "default-src 'self'") {
		t.Fatalf("the page's Content-Security-Policy = %q, want default-src 'self' and a style nonce", csp)
	}
	nonce := csp[i+len("'nonce-"):]
	nonce = nonce[:strings.IndexByte(nonce, '\'')]
	if !strings.Contains(body, `content="`+nonce+`"`) {
		t.Errorf("the page does not carry its style nonce %s", nonce)
	}
	if _, body2, _ := p.do("GET", "/", "", true, nil); strings.Contains(body2, nonce) {
		t.Errorf("two answers share the nonce %s", nonce)
	}
	for _, a := range []string{"/assets/app.js", "/assets/app.css"} {
		if code, _, _ := p.do("GET", a, "", true, nil); code != http.StatusOK {
			t.Errorf("GET %s: %d", a, code)
		}
		if code, _, _ := p.do("GET", a, "", false, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the cookie: %d, want 401", a, code)
		}
	}
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page loads something from another site")
	}
}

func TestInfo(t *testing.T) {
	p := start(t, Budget{})
	_, body, _ := p.do("GET", "/api/info", "", true, nil)
	var info struct {
		Languages []infoLanguage `json:"languages"`
		Examples  []example      `json:"examples"`
	}
	must(t, json.Unmarshal([]byte(body), &info))
	var ids []string
	for _, l := range info.Languages {
		ids = append(ids, l.ID)
		for _, d := range l.Dialects {
			if _, ok := lang.ParseDialect(d); !ok {
				t.Errorf("%s: dialect %q is not one", l.ID, d)
			}
		}
	}
	if strings.Join(ids, ",") != "pact,jql,datalog" || len(info.Languages[0].Dialects) != 2 {
		t.Errorf("languages = %+v", info.Languages)
	}
	if len(info.Examples) != 3 {
		t.Errorf("examples = %+v", info.Examples)
	}
}
