package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/internal/budget"
)

// A pagedResource is a resource that a single read may not be able to
// carry within the output budget: acp://cache, acp://vars and
// acp://constraints. Read whole while it fits the budget, it is also served
// in pages, URI/page/1 to URI/page/N, each a piece of its text cut at a
// character boundary so that the page, as written, fits the budget; the
// pages' texts joined are the resource's text, byte for byte.
type pagedResource struct {
	name, uri string
	load      func() ([]byte, error)
	// listed says whether the pages are listed as resources, which takes
	// cutting the text into pages when the server starts.
	listed bool

	once sync.Once
	text []byte
	cuts []int // page i (0-based) is text[cuts[i]:cuts[i+1]]
	err  error
}

// pageSlack is the room a page leaves, within the output budget, for the
// envelope of its text: its URI, its MIME type and its _meta.
const pageSlack = 16 << 10

// pages returns the resource's text and its page boundaries for the output
// budget max, computed once: the resources a server serves do not change
// while it runs.
func (p *pagedResource) pages(max int) ([]byte, []int, error) {
	p.once.Do(func() {
		p.text, p.err = p.load()
		if p.err == nil {
			p.cuts = cutPages(p.text, max-min(pageSlack, max/4))
		}
	})
	return p.text, p.cuts, p.err
}

// pageURI is the URI of the page n (1-based).
func (p *pagedResource) pageURI(n int) string { return fmt.Sprintf("%s/page/%d", p.uri, n) }

// cutPages cuts text into pages whose JSON string encoding takes at most
// limit bytes each (at least one character per page), at character
// boundaries. It returns the offsets where the pages start, followed by
// len(text); empty text is one empty page.
func cutPages(text []byte, limit int) []int {
	cuts := []int{0}
	cost := 0
	for i := 0; i < len(text); {
		r, w := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(text[i:])
		}
		c := encodedLen(r, w)
		if cost+c > limit && i > cuts[len(cuts)-1] {
			cuts = append(cuts, i)
			cost = 0
		}
		cost += c
		i += w
	}
	return append(cuts, len(text))
}

// encodedLen bounds the bytes the character r, w bytes long in the text,
// takes in a JSON string as the server writes it: an escape for quotes,
// backslashes and control characters, \u escapes for the line and
// paragraph separators, for the characters some encoders escape in HTML
// and for an invalid byte (written as U+FFFD).
func encodedLen(r rune, w int) int {
	switch {
	case r == utf8.RuneError && w == 1:
		return 6
	case r < 0x20, r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029':
		return 6
	case r == '"', r == '\\':
		return 2
	}
	return w
}

// addPaged registers p: the resource itself, which is read whole while it
// fits the output budget and refused, naming its pages, once it does not;
// the template of its pages; and, when it has more than one page, each page
// as a resource of its own when p is listed, so that a client listing
// resources finds them.
func (s *Server) addPaged(p *pagedResource, desc string) {
	max := s.budget.MaxOutputBytes
	s.srv.AddResource(&mcp.Resource{URI: p.uri, Name: p.name, Description: desc, MIMEType: "application/json"},
		s.readHandler(p.name, func(context.Context, string) (*mcp.ReadResourceResult, error) {
			text, cuts, err := p.pages(max)
			if err != nil {
				return nil, err
			}
			res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.uri, MIMEType: "application/json", Text: string(text)}}}
			if len(cuts) > 2 {
				if err := s.fits(res); err != nil {
					n := len(cuts) - 1
					return nil, fmt.Errorf("%s is %d bytes: %w; it is served in %d pages: read %s to %s and join their texts",
						p.uri, len(text), budget.OutputLimit("result", max), n, p.pageURI(1), p.pageURI(n))
				}
			}
			return res, nil
		}))
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: p.uri + "/page/{n}", Name: p.name + "-page",
		Description: fmt.Sprintf("Page n (from 1) of %s: pieces of its text, each within the output budget, that joined in order are the whole", p.uri),
		MIMEType:    "text/plain"},
		s.readHandler(p.name+" page", func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
			return s.readPage(p, uri)
		}))
	if !p.listed {
		return
	}
	if _, cuts, err := p.pages(max); err == nil && len(cuts) > 2 {
		n := len(cuts) - 1
		for i := 1; i <= n; i++ {
			s.srv.AddResource(&mcp.Resource{URI: p.pageURI(i), Name: fmt.Sprintf("%s-page-%d", p.name, i),
				Description: fmt.Sprintf("Page %d of %d of %s: bytes %d to %d of its text", i, n, p.uri, cuts[i-1], cuts[i]),
				MIMEType:    "text/plain", Size: int64(cuts[i] - cuts[i-1])},
				s.readHandler(p.name+" page", func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
					return s.readPage(p, uri)
				}))
		}
	}
}

// readPage reads a page of p: its text, with _meta giving the page, the
// count of pages, its byte offset in the whole and the next page's URI.
func (s *Server) readPage(p *pagedResource, uri string) (*mcp.ReadResourceResult, error) {
	rest, ok := strings.CutPrefix(uri, p.uri+"/page/")
	if !ok {
		return nil, notFound(uri)
	}
	n, err := strconv.Atoi(rest)
	if err != nil || strconv.Itoa(n) != rest {
		return nil, notFound(uri)
	}
	text, cuts, err := p.pages(s.budget.MaxOutputBytes)
	if err != nil {
		return nil, err
	}
	pages := len(cuts) - 1
	if n < 1 || n > pages {
		return nil, notFound(uri)
	}
	meta := mcp.Meta{"page": n, "pages": pages, "offset": cuts[n-1], "bytes": len(text)}
	if n < pages {
		meta["next"] = p.pageURI(n + 1)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain",
		Text: string(text[cuts[n-1]:cuts[n]]), Meta: meta}}}, nil
}
