package play

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
)

// contentSecurityPolicy lets the page load and connect to nothing but its
// own server: no inline script, no CDN, no frames around it.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// cookieName is the session cookie of the server on port: cookies are not
// kept apart by port, so two playgrounds on one host use two names.
func cookieName(addr net.Addr) string {
	_, port, _ := net.SplitHostPort(addr.String())
	return "ctxql_play_" + port
}

// Handler returns the playground's HTTP handler; the language servers of
// its pages stop when ctx ends.
func (s *Server) Handler(ctx context.Context) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", assetHandler()))
	mux.HandleFunc("GET /api/info", s.info)
	mux.HandleFunc("GET /api/file", s.file)
	mux.HandleFunc("GET /api/files", s.list)
	mux.HandleFunc("GET /api/example", s.example)
	mux.HandleFunc("POST /api/paste", s.pasteData)
	mux.HandleFunc("GET /lsp", func(w http.ResponseWriter, r *http.Request) { s.serveLSP(ctx, w, r) })
	cop := http.NewCrossOriginProtection()
	return s.guard(cop.Handler(mux))
}

// guard checks every request before next sees it: the Host header must
// name the bound address, and the request must carry the session token
// (the cookie, or on the page's own URL the token parameter, which it
// exchanges for the cookie). It also sets the headers every answer
// carries; it never sets CORS headers.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if !s.hosts[r.Host] {
			http.Error(w, "ctxql play: wrong Host header: open the address ctxql play printed", http.StatusMisdirectedRequest)
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet && r.URL.Path == "/" {
			if !s.tokenOK(tok) {
				http.Error(w, "ctxql play: wrong token: open the address ctxql play printed", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName(s.addr), Value: s.token, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode})
			// Drop the token from the address bar and the history; the
			// fragment, if any, stays with the browser.
			u := url.URL{Path: "/"}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(cookieName(s.addr))
		if err != nil || !s.tokenOK(c.Value) {
			http.Error(w, "ctxql play: no session: open the address ctxql play printed (with its token)", http.StatusUnauthorized)
			return
		}
		if r.ContentLength > s.budget.MaxPasteBytes {
			http.Error(w, "ctxql play: request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.budget.MaxPasteBytes)
		next.ServeHTTP(w, r)
	})
}

// tokenOK compares a token with the session's in constant time.
func (s *Server) tokenOK(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1
}

// sameOrigin reports whether the request's Origin is the page's own: the
// scheme, the Host it was sent to and nothing else.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && u.Scheme == "http" && u.Host == r.Host && u.Path == "" && u.User == nil
}
