// Package mcpserver serves an ACP cache over the Model Context Protocol:
// the resources acp://cache, acp://vars, acp://constraints, acp://file/{path},
// acp://symbol/{qualified_name} and acp://domain/{name}, and the tools
// acp_query, acp_constraints, acp_expand, acp_debug and acp_hack, plus
// query tools for the toolchain's own languages.
//
// The server is read-only except for its state file (debug sessions and
// hack markers), kept beside the cache, locked across processes and written
// atomically. Every path it is given is confined to the project directory,
// and every file it opens is opened through a reader confined to it, links
// resolved. Every tool call runs under a Budget.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/lang"
)

// Options configure a Server.
type Options struct {
	// Now returns the current time; nil means time.Now. Tests fix it.
	Now func() time.Time
	// StatePath is the state file; empty means acp.StateFileName beside
	// the cache.
	StatePath string
	// Version is reported to clients.
	Version string
	// Files opens the data files the tools read; nil means a reader
	// confined to the project directory with budget.DefaultMaxDataBytes.
	Files *files.Reader
	// Budget bounds every tool call; zero fields take their defaults.
	Budget Budget
}

// Budget bounds one tool call.
type Budget struct {
	// Timeout is the deadline of a call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxOutputBytes bounds the bytes written for the result of a tool
	// call or a resource read, as it goes out (a tool's structured result
	// is written twice, as structured content and as its text); 0 means
	// DefaultMaxOutputBytes.
	MaxOutputBytes int
	// MaxMemory bounds how far the heap may grow during a call; 0 means
	// budget.DefaultMaxMemory, < 0 no limit.
	MaxMemory int64
	// MaxResults bounds the rows (JQL documents, Datalog tuples) of a
	// language tool's result; 0 means DefaultMaxResults.
	MaxResults int
	// MaxQueryBytes bounds the query text of a language tool; 0 means
	// DefaultMaxQueryBytes.
	MaxQueryBytes int
	// MaxTuples bounds a Datalog call's intermediate and derived tuples;
	// 0 means lang.DefaultMaxTuples.
	MaxTuples int
}

// FlagMaxTuples is the "ctxql mcp" flag that raises MaxTuples.
const FlagMaxTuples = "--max-tuples"

// langBudget is the language table's budget of one call: Datalog's tuples
// as MaxTuples says, JQL's result bytes as the output budget.
func (b Budget) langBudget() lang.Budget {
	return lang.Budget{MaxTuples: b.MaxTuples, MaxBytes: int64(b.MaxOutputBytes)}
}

// raise adds to an evaluation stopped by its budget how to raise the limit:
// the server's flag.
func raise(err error, flag string) error {
	var le *lang.LimitError
	if errors.As(err, &le) {
		return le.WithFlag(flag)
	}
	return err
}

// DefaultMaxOutputBytes is the default output budget: a result that fits
// it goes out on a line that the TypeScript SDK's stdio client, which reads
// lines of up to 10 MiB, still accepts.
const DefaultMaxOutputBytes = 8 << 20

// DefaultMaxQueryBytes is the default bound on a query's text.
const DefaultMaxQueryBytes = 1 << 20

// FlagMaxQueryBytes is the flag of `ctxql mcp` that raises MaxQueryBytes.
const FlagMaxQueryBytes = "--max-query-bytes"

// DefaultMaxResults is the default bound on the rows of a result.
const DefaultMaxResults = 100000

// DefaultTimeout is the default deadline of a tool call.
const DefaultTimeout = 30 * time.Second

func (b Budget) withDefaults() Budget {
	if b.Timeout <= 0 {
		b.Timeout = DefaultTimeout
	}
	if b.MaxOutputBytes <= 0 {
		b.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if b.MaxMemory == 0 {
		b.MaxMemory = budget.DefaultMaxMemory
	}
	if b.MaxResults <= 0 {
		b.MaxResults = DefaultMaxResults
	}
	if b.MaxQueryBytes <= 0 {
		b.MaxQueryBytes = DefaultMaxQueryBytes
	}
	return b
}

// Server answers MCP requests from one loaded cache.
type Server struct {
	ix       *acp.Index
	now      func() time.Time
	files    *files.Reader
	filesErr error
	state    *acp.StateFile
	budget   Budget
	srv      *mcp.Server
}

// New builds the server for ix.
func New(ix *acp.Index, o Options) *Server {
	s := &Server{ix: ix, now: o.Now, files: o.Files, budget: o.Budget.withDefaults()}
	if s.now == nil {
		s.now = time.Now
	}
	if s.files == nil {
		s.files, s.filesErr = files.Confined(ix.Root, budget.DefaultMaxDataBytes, budget.FlagMaxDataBytes)
	}
	if o.StatePath != "" {
		// A state file named by the embedder may lie anywhere.
		s.state = acp.NewStateFile(files.New(s.maxData(), budget.FlagMaxDataBytes), o.StatePath)
	} else {
		s.state = acp.NewStateFile(s.files, filepath.Join(ix.Root, acp.StateFileName))
	}
	v := o.Version
	if v == "" {
		v = "devel"
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "ctxql-acp", Version: v}, nil)
	s.srv.AddReceivingMiddleware(s.checkRequests)
	s.addResources()
	s.addTools()
	return s
}

func (s *Server) maxData() int64 {
	if s.files != nil {
		return s.files.MaxBytes()
	}
	return budget.DefaultMaxDataBytes
}

// MCP returns the underlying SDK server.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves over t until the client disconnects or ctx is cancelled.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.srv.Run(ctx, t)
}

func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := acp.MarshalJSON(v, true)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// ErrInvalidURI is wrapped by the errors of resource URIs that cannot be
// decoded.
var ErrInvalidURI = errors.New("invalid resource URI")

// ResourcePath extracts and decodes the part of uri after prefix
// (for example "acp://file/") and confines it to root. It returns the
// cleaned relative path.
func ResourcePath(root, uri, prefix string) (string, error) {
	return resourcePath(context.Background(), root, uri, prefix)
}

func resourcePath(ctx context.Context, root, uri, prefix string) (string, error) {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok {
		return "", fmt.Errorf("resource %q does not start with %s: %w", clip([]byte(uri)), prefix, ErrInvalidURI)
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("resource %q: %w: %w", clip([]byte(uri)), ErrInvalidURI, err)
	}
	rel, _, err := acp.ConfineContext(ctx, root, p)
	if err != nil {
		return "", err
	}
	return rel, nil
}

// readHandler makes the handler of a resource from f: the read runs under
// the budget of a tool call, its contents must fit the output budget as
// written, and its errors carry JSON-RPC codes: -32602 for a URI refused
// (outside the project, too long, undecodable), the SDK's resource-not-found
// code for a resource that does not exist, -32603 for the rest (a limit,
// named in the message, or a failure).
func (s *Server) readHandler(name string, f func(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)) mcp.ResourceHandler {
	return func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := r.Params.URI
		v, err := s.bounded(ctx, r.Session, "resources/read "+name, func(ctx context.Context) (any, error) { return f(ctx, uri) })
		if err == nil {
			res := v.(*mcp.ReadResourceResult)
			if err = s.fits(res); err == nil {
				return res, nil
			}
			err = fmt.Errorf("resources/read %s: %w", name, err)
		}
		s.log(ctx, r.Session, "warning", "resources/read "+name, err)
		return nil, rpcError(err)
	}
}

// rpcError is the JSON-RPC error of a failed resource read.
func rpcError(err error) error {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		return we
	case errors.Is(err, acp.ErrOutsideRoot), errors.Is(err, acp.ErrPathTooLong), errors.Is(err, ErrInvalidURI):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

func (s *Server) addResources() {
	s.addPaged(&pagedResource{name: "cache", uri: "acp://cache", listed: true,
		load: func() ([]byte, error) { return s.ix.Bytes, nil }},
		"Full codebase cache")
	s.addPaged(&pagedResource{name: "vars", uri: "acp://vars", load: func() ([]byte, error) {
		vars := s.ix.Cache.Vars
		if vars == nil {
			vars = map[string]*acp.Var{}
		}
		return acp.MarshalJSON(vars, true)
	}}, "Variable definitions")
	s.addPaged(&pagedResource{name: "constraints", uri: "acp://constraints", load: func() ([]byte, error) {
		return acp.MarshalJSON(s.constraintsSummary(), true)
	}}, "Constraints summary")
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "acp://file/{+path}", Name: "file", Description: "Specific file metadata", MIMEType: "application/json"},
		s.readHandler("file", func(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
			p, err := resourcePath(ctx, s.ix.Root, uri, "acp://file/")
			if err != nil {
				return nil, err
			}
			f, err := s.ix.File(p)
			if err != nil {
				return nil, notFound(uri)
			}
			return jsonContents(uri, f)
		}))
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "acp://symbol/{+qualified_name}", Name: "symbol", Description: "Specific symbol metadata", MIMEType: "application/json"},
		s.readHandler("symbol", func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
			name, err := url.PathUnescape(strings.TrimPrefix(uri, "acp://symbol/"))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidURI, err)
			}
			sym, ok := s.ix.Cache.Symbols[name]
			if !ok {
				return nil, notFound(uri)
			}
			return jsonContents(uri, sym)
		}))
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "acp://domain/{name}", Name: "domain", Description: "Specific domain metadata", MIMEType: "application/json"},
		s.readHandler("domain", func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
			name, err := url.PathUnescape(strings.TrimPrefix(uri, "acp://domain/"))
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInvalidURI, err)
			}
			d, err := s.ix.Domain(name)
			if err != nil {
				return nil, notFound(uri)
			}
			return jsonContents(uri, d)
		}))
}

// notFound is the resource-not-found error for uri, its data encoded as
// JSON whatever characters the URI holds.
func notFound(uri string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found", Data: data}
}

// ConstraintsSummary is the acp://constraints resource: files per lock
// level, the count of each, and the per-file constraints.
type ConstraintsSummary struct {
	ByLockLevel map[string][]string             `json:"by_lock_level"`
	Counts      map[string]int                  `json:"counts"`
	ByFile      map[string]*acp.FileConstraints `json:"by_file"`
}

func (s *Server) constraintsSummary() ConstraintsSummary {
	c := s.ix.Cache.Constraints
	out := ConstraintsSummary{ByLockLevel: c.ByLockLevel, Counts: map[string]int{}, ByFile: c.ByFile}
	if out.ByLockLevel == nil {
		out.ByLockLevel = map[string][]string{}
	}
	if out.ByFile == nil {
		out.ByFile = map[string]*acp.FileConstraints{}
	}
	for l, fs := range out.ByLockLevel {
		out.Counts[l] = len(fs)
	}
	return out
}
