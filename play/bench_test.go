package play

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/lsp"
)

// writeTree writes a PACT snapshot of about 1,000,000 nodes: 2,000 turns of
// 4 message containers of 124 content blocks.
func writeTree(tb testing.TB, path string) {
	var w strings.Builder
	w.WriteString(`{"root":{"id":"root","nodeType":"^root","children":[{"id":"seq","nodeType":"^seq","children":[`)
	for turn := range 2000 {
		sep(&w, turn)
		fmt.Fprintf(&w, `{"id":"mt:%d","nodeType":"mt","children":[`, turn)
		for c := range 4 {
			sep(&w, c)
			fmt.Fprintf(&w, `{"id":"mc:%d:%d","nodeType":"mc","children":[`, turn, c)
			for k := range 124 {
				sep(&w, k)
				role := [2]string{"user", "assistant"}[(turn+c)%2]
				fmt.Fprintf(&w, `{"id":"cb:%d:%d:%d","nodeType":"cb","role":"%s","offset":%d,"ttl":%d}`, turn, c, k, role, k%3-1, (turn*7+k)%5)
			}
			w.WriteString(`]}`)
		}
		w.WriteString(`]}`)
	}
	w.WriteString(`]}]}}`)
	must(tb, os.WriteFile(path, []byte(w.String()), 0o644))
}

func sep(w *strings.Builder, i int) {
	if i > 0 {
		w.WriteByte(',')
	}
}

// pipeClient drives a language server on pipes, as an editor does.
type pipeClient struct {
	w  io.Writer
	r  *bufio.Reader
	tp *textproto.Reader
}

func (c *pipeClient) send(tb testing.TB, v any) {
	b, err := json.Marshal(v)
	must(tb, err)
	_, err = fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
	must(tb, err)
}

func (c *pipeClient) next(tb testing.TB) map[string]any {
	h, err := c.tp.ReadMIMEHeader()
	must(tb, err)
	n, err := strconv.Atoi(h.Get("Content-Length"))
	must(tb, err)
	b := make([]byte, n)
	_, err = io.ReadFull(c.r, b)
	must(tb, err)
	var m map[string]any
	must(tb, json.Unmarshal(b, &m))
	return m
}

func (c *pipeClient) await(tb testing.TB, ok func(map[string]any) bool) map[string]any {
	for {
		if m := c.next(tb); ok(m) {
			return m
		}
	}
}

// isPreview matches the preview of uri with the given count (-1: any).
func isPreview(uri string, count int) func(map[string]any) bool {
	return func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == lsp.MethodPreview && p["uri"] == uri && p["error"] == nil &&
			(count < 0 || p["count"] == float64(count))
	}
}

// BenchmarkEditToPreview measures the time from an edit of a PACT query
// over a 1,000,000-node tree to its ctxql/preview, through the playground
// (whole texts over the WebSocket, as the page sends them) against the
// anchor, the language server driven directly with range edits as the
// editors drive it, in the same run; it reports both p50s and the ratio.
func BenchmarkEditToPreview(b *testing.B) {
	p := start(b, Budget{})
	writeTree(b, filepath.Join(p.dir, "tree.json"))
	uri := fileURI(filepath.Join(p.dir, "q.pact"))
	const head = "// pact: v1\n// data: ./tree.json\n"
	// Every version is a query the server has not evaluated before (it
	// keeps results by query text): each edit names another block to
	// leave out.
	query := func(i int) string {
		return fmt.Sprintf("^seq .mt .mc > .cb[role='assistant'][ttl<=%d][id!='cb:%d:1:0']", i%5, i)
	}
	open := map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "pact", "version": 1, "text": head + query(0) + "\n"}}
	runArgs := map[string]any{"command": lsp.CommandRun, "arguments": []any{uri, map[string]any{
		"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 2, "character": 0}}}}

	// The anchor.
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go lsp.Serve(ctx, pipeConn{cr, sw}, lsp.Options{})
	br := bufio.NewReader(sr)
	pc := &pipeClient{w: cw, r: br, tp: textproto.NewReader(br)}
	pc.send(b, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	pc.await(b, func(m map[string]any) bool { return m["id"] == float64(1) })
	pc.send(b, map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	pc.send(b, map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": open})
	pc.send(b, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": runArgs})
	pc.await(b, func(m map[string]any) bool { return m["id"] == float64(2) })

	// The playground.
	wc := p.dial(b, p.base, true)
	defer wc.close()
	wc.initialize(nil)
	wc.notify("textDocument/didOpen", open)
	wc.response(wc.call("workspace/executeCommand", runArgs), 60*time.Second)

	var anchor, play []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		pc.send(b, map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"range": map[string]any{
				"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 2, "character": len(query(i))}}, "text": query(i + 1)}}}})
		pc.await(b, isPreview(uri, -1))
		anchor = append(anchor, time.Since(start))

		start = time.Now()
		wc.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"text": head + query(i+1) + "\n"}}})
		wc.await(60*time.Second, "the preview", isPreview(uri, -1))
		play = append(play, time.Since(start))
	}
	b.StopTimer()
	pa, pp := p50(anchor), p50(play)
	b.ReportMetric(pa, "anchor-p50-ms")
	b.ReportMetric(pp, "play-p50-ms")
	b.ReportMetric(pp/pa, "ratio")
}

func p50(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1e6
}
