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
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/files"
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
	// confined to the project directory with acp.DefaultMaxDataBytes.
	Files *files.Reader
	// Budget bounds every tool call; zero fields take their defaults.
	Budget Budget
}

// Budget bounds one tool call.
type Budget struct {
	// Timeout is the deadline of a call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxOutputBytes bounds the JSON of a result; 0 means
	// acp.DefaultMaxOutputBytes.
	MaxOutputBytes int
	// MaxMemory bounds how far the heap may grow during a call; 0 means
	// acp.DefaultMaxMemory, < 0 no limit.
	MaxMemory int64
	// MaxResults bounds the rows (JQL documents, Datalog tuples) of a
	// language tool's result; 0 means DefaultMaxResults.
	MaxResults int
	// MaxQueryBytes bounds the query text of a language tool; 0 means
	// DefaultMaxQueryBytes.
	MaxQueryBytes int
}

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
		b.MaxOutputBytes = acp.DefaultMaxOutputBytes
	}
	if b.MaxMemory == 0 {
		b.MaxMemory = acp.DefaultMaxMemory
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
		s.files, s.filesErr = files.Confined(ix.Root, acp.DefaultMaxDataBytes, acp.FlagMaxDataBytes)
	}
	if o.StatePath != "" {
		// A state file named by the embedder may lie anywhere.
		s.state = acp.NewStateFile(files.New(s.maxData(), acp.FlagMaxDataBytes), o.StatePath)
	} else {
		s.state = acp.NewStateFile(s.files, filepath.Join(ix.Root, acp.StateFileName))
	}
	v := o.Version
	if v == "" {
		v = "devel"
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "ctxql-acp", Version: v}, nil)
	s.addResources()
	s.addTools()
	return s
}

func (s *Server) maxData() int64 {
	if s.files != nil {
		return s.files.MaxBytes()
	}
	return acp.DefaultMaxDataBytes
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

// ResourcePath extracts and decodes the part of uri after prefix
// (for example "acp://file/") and confines it to root. It returns the
// cleaned relative path.
func ResourcePath(root, uri, prefix string) (string, error) {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok {
		return "", fmt.Errorf("resource %q does not start with %s", uri, prefix)
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("resource %q: %w", uri, err)
	}
	rel, _, err := acp.Confine(root, p)
	if err != nil {
		return "", err
	}
	return rel, nil
}

func (s *Server) addResources() {
	s.srv.AddResource(&mcp.Resource{URI: "acp://cache", Name: "cache", Description: "Full codebase cache", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "application/json", Text: string(s.ix.Bytes)}}}, nil
		})
	s.srv.AddResource(&mcp.Resource{URI: "acp://vars", Name: "vars", Description: "Variable definitions", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			vars := s.ix.Cache.Vars
			if vars == nil {
				vars = map[string]*acp.Var{}
			}
			return jsonContents(r.Params.URI, vars)
		})
	s.srv.AddResource(&mcp.Resource{URI: "acp://constraints", Name: "constraints", Description: "Constraints summary", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return jsonContents(r.Params.URI, s.constraintsSummary())
		})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "acp://file/{+path}", Name: "file", Description: "Specific file metadata", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			p, err := ResourcePath(s.ix.Root, r.Params.URI, "acp://file/")
			if err != nil {
				return nil, err
			}
			f, err := s.ix.File(p)
			if err != nil {
				return nil, notFound(r.Params.URI)
			}
			return jsonContents(r.Params.URI, f)
		})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "acp://symbol/{+qualified_name}", Name: "symbol", Description: "Specific symbol metadata", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			name, err := url.PathUnescape(strings.TrimPrefix(r.Params.URI, "acp://symbol/"))
			if err != nil {
				return nil, err
			}
			sym, ok := s.ix.Cache.Symbols[name]
			if !ok {
				return nil, notFound(r.Params.URI)
			}
			return jsonContents(r.Params.URI, sym)
		})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "acp://domain/{name}", Name: "domain", Description: "Specific domain metadata", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			name, err := url.PathUnescape(strings.TrimPrefix(r.Params.URI, "acp://domain/"))
			if err != nil {
				return nil, err
			}
			d, err := s.ix.Domain(name)
			if err != nil {
				return nil, notFound(r.Params.URI)
			}
			return jsonContents(r.Params.URI, d)
		})
}

// notFound is the resource-not-found error for uri, its data encoded as
// JSON whatever characters the URI holds.
func notFound(uri string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: "Resource not found", Data: data}
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
