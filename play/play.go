// Package play is the query playground behind `ctxql play`: a local web
// server for one page (embedded in the binary) whose editor talks to the
// ctxql language server in the same process over a WebSocket.
//
// The playground is a front door like the command line and the editors:
// everything it knows about a language comes from the language server
// (diagnostics, fixes, previews, step counts, Datalog explanations) or
// from the language table (package lang). It never evaluates a query
// itself. Export writes the same page as static files that run on the
// WebAssembly build of ctxql's library instead of a server (export.go).
//
// A local server is an attack surface, so the server is closed by default:
// it listens on loopback unless told otherwise; every request must carry
// the Host of the bound address (DNS rebinding) and the session token (a
// random 128-bit value in the printed URL, exchanged for an HttpOnly,
// SameSite=Strict cookie); state-changing requests must come from the
// page itself (http.CrossOriginProtection), and so must the WebSocket
// (its Origin is checked); the page may load nothing but its own assets
// (Content-Security-Policy default-src 'self'); request bodies and
// WebSocket messages are capped; every file the playground and its
// language servers read is read through one reader confined to the
// project (and the page's pasted data), so no document text, setting, URI
// or link can name a file anywhere else; every evaluation runs under a
// time and a memory budget.
package play

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/files"
)

// Options configure a playground.
type Options struct {
	// Dir is the project directory: every file the playground reads or
	// lets the language server read lies inside it.
	Dir string
	// Path is a query file inside Dir opened at start ("" for none).
	Path string
	// Data is a sample data file inside Dir chosen at start ("" for none).
	Data string
	// Budget bounds every evaluation and request; zero fields take their
	// defaults.
	Budget Budget
	// Version is reported to the page and in the server's serverInfo.
	Version string
	// Log receives the language server's log; nil discards it.
	Log io.Writer
}

// Budget bounds what one page may make the server do.
type Budget struct {
	// Timeout bounds one evaluation and one request to the language
	// server; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxMemory bounds how far the heap may grow during one request; 0
	// means budget.DefaultMaxMemory, < 0 no limit.
	MaxMemory int64
	// MaxDataBytes bounds a sample data file; 0 means
	// budget.DefaultMaxDataBytes.
	MaxDataBytes int64
	// MaxPasteBytes bounds pasted sample data; 0 means DefaultMaxPasteBytes.
	MaxPasteBytes int64
	// MaxQueryBytes bounds a query document, a file the page opens and one
	// WebSocket message; 0 means DefaultMaxQueryBytes.
	MaxQueryBytes int64
	// MaxOutputBytes bounds one answer of the language server; 0 means
	// budget.DefaultMaxOutputBytes.
	MaxOutputBytes int
}

// The default budget.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMaxPasteBytes = 4 << 20
	DefaultMaxQueryBytes = 1 << 20
	// maxConns bounds the pages connected at once, each with its own
	// language server.
	maxConns = 8
)

func (b Budget) withDefaults() Budget {
	if b.Timeout <= 0 {
		b.Timeout = DefaultTimeout
	}
	if b.MaxMemory == 0 {
		b.MaxMemory = budget.DefaultMaxMemory
	}
	if b.MaxDataBytes <= 0 {
		b.MaxDataBytes = budget.DefaultMaxDataBytes
	}
	if b.MaxPasteBytes <= 0 {
		b.MaxPasteBytes = DefaultMaxPasteBytes
	}
	if b.MaxQueryBytes <= 0 {
		b.MaxQueryBytes = DefaultMaxQueryBytes
	}
	if b.MaxOutputBytes <= 0 {
		b.MaxOutputBytes = budget.DefaultMaxOutputBytes
	}
	return b
}

// Server is one playground: the project, the session token and the pasted
// sample data of its pages.
type Server struct {
	opts   Options
	budget Budget
	dir    string        // the project directory, absolute and clean
	files  *files.Reader // confined to dir and paste
	token  string        // hex of 16 random bytes
	paste  string        // private directory of pasted sample data
	ln     net.Listener  // the listener of Listen
	addr   net.Addr      // its address
	hosts  map[string]bool
	loop   bool // bound to a loopback address

	mu    sync.Mutex
	conns int
}

// New returns a playground over the project directory opts.Dir.
func New(opts Options) (*Server, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("project directory: %w", err)
	}
	b := opts.Budget.withDefaults()
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("session token: %w", err)
	}
	paste, err := os.MkdirTemp("", "ctxql-play-")
	if err != nil {
		return nil, fmt.Errorf("pasted data directory: %w", err)
	}
	// The one reader of the playground and of its language servers: the
	// project and the pasted data, nothing else.
	r, err := files.Confined(dir, b.MaxDataBytes, "--max-data-bytes", paste)
	if err != nil {
		os.RemoveAll(paste)
		return nil, fmt.Errorf("project directory: %w", err)
	}
	s := &Server{opts: opts, budget: b, dir: dir, files: r, token: hex.EncodeToString(raw[:]), paste: paste}
	for _, p := range []string{opts.Path, opts.Data} {
		if p == "" {
			continue
		}
		if _, err := s.projectPath(p); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Close removes the pasted data and releases the project directory and
// the listener.
func (s *Server) Close() error {
	if s.ln != nil {
		s.ln.Close()
	}
	err := os.RemoveAll(s.paste)
	if e := s.files.Close(); err == nil {
		err = e
	}
	return err
}

// Token returns the session token.
func (s *Server) Token() string { return s.token }

// Listen opens the server's listener on addr ("127.0.0.1:0" when empty)
// and binds the server to it. It returns a warning when addr names an
// interface other than loopback: the page is then reachable from the
// network (still only with the token).
func (s *Server) Listen(addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	s.ln = ln
	s.bind(ln.Addr())
	warn := ""
	if !isLoopback(host) {
		warn = fmt.Sprintf("warning: listening on %s, which is not a loopback address: anyone who can reach it and has the link's token can run queries over this project's files", ln.Addr())
	}
	return warn, nil
}

// isLoopback reports whether host (an IP literal or "localhost") names a
// loopback interface; "" (every interface) does not.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bind records the address the server answers on: requests must name it
// (or, on loopback, localhost with its port) in their Host header.
func (s *Server) bind(addr net.Addr) {
	s.addr = addr
	host, port, _ := net.SplitHostPort(addr.String())
	s.hosts = map[string]bool{addr.String(): true}
	ip := net.ParseIP(host)
	s.loop = ip != nil && ip.IsLoopback()
	if s.loop {
		s.hosts[net.JoinHostPort("localhost", port)] = true
	}
	if ip != nil && ip.IsUnspecified() {
		// Bound to every interface: accept the address of any of them, as
		// an IP literal (never a name, which a rebinding DNS could point
		// at this machine).
		if ifs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range ifs {
				if n, ok := a.(*net.IPNet); ok {
					s.hosts[net.JoinHostPort(n.IP.String(), port)] = true
				}
			}
		}
		s.hosts[net.JoinHostPort("localhost", port)] = true
	}
}

// URL returns the page's address with the session token, as printed.
func (s *Server) URL() string {
	host, port, _ := net.SplitHostPort(s.addr.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/?token=" + s.token
}

// Serve answers requests on the listener of Listen until ctx ends.
func (s *Server) Serve(ctx context.Context) error {
	ln := s.ln
	if ln == nil {
		return errors.New("ctxql play: Serve before Listen")
	}
	hs := &http.Server{
		Handler:           s.Handler(ctx),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = hs.Shutdown(sctx)
			cancel()
			_ = hs.Close()
		case <-done:
		}
	}()
	err := hs.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// projectPath resolves p (relative to the project, or absolute) to an
// absolute path inside the project, following symbolic links only while
// they stay inside; anything else is refused with files.ErrOutside.
func (s *Server) projectPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.dir, p)
	}
	p = filepath.Clean(p)
	if _, err := s.files.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// rel names an absolute path relative to the project when it lies inside.
func (s *Server) rel(p string) string {
	if r, err := filepath.Rel(s.dir, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return p
}

// inside reports whether the absolute path p lies in the project, by its
// name alone (for documents, which are never read from disk).
func (s *Server) inside(p string) bool {
	r, err := filepath.Rel(s.dir, filepath.Clean(p))
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}
