package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/ostest"
)

const samplePACT = `{"root":{"id":"root","nodeType":"^root","children":[
  {"id":"seq","nodeType":"^seq","children":[
    {"id":"mt:1","nodeType":"mt","children":[{"id":"mc:1","nodeType":"mc","children":[
      {"id":"cb:u1","nodeType":"cb","role":"user","offset":0,"ttl":1}]}]}]}]}}`

// diagsOf waits for a publishDiagnostics of uri whose diagnostics satisfy
// ok and returns them.
func (p *proc) diagsOf(uri string, ok func([]map[string]any) bool) []map[string]any {
	p.t.Helper()
	var last []map[string]any
	m := p.await(30*time.Second, func(m map[string]any) bool {
		if !isNote(m, "textDocument/publishDiagnostics", uri) {
			return false
		}
		raw, _ := json.Marshal(m["params"].(map[string]any)["diagnostics"])
		last = nil
		_ = json.Unmarshal(raw, &last)
		return ok(last)
	}, nil)
	_ = m
	return last
}

func hasCode(code string) func([]map[string]any) bool {
	return func(ds []map[string]any) bool {
		for _, d := range ds {
			if d["code"] == code {
				return true
			}
		}
		return false
	}
}

func messageOf(ds []map[string]any, code string) string {
	for _, d := range ds {
		if d["code"] == code {
			return fmt.Sprint(d["message"])
		}
	}
	return ""
}

// TestHostileDataProcess names /dev/stdin, /dev/zero and a FIFO as sample
// data of documents in a real "ctxql lsp": the server reads none of them
// (not its own protocol input, not an endless stream, not a pipe without a
// writer), reports each as a diagnostic on the data line, answers ctxql.run
// with the reason instead of an error, and keeps serving another document
// with good data.
func TestHostileDataProcess(t *testing.T) {
	dir := t.TempDir()
	if err := ostest.Mkfifo(filepath.Join(dir, "fifo.json")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good.json"), []byte(samplePACT), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir)
	p.initialize(nil)
	good := fileURI(filepath.Join(dir, "good.pact"))
	p.open(good, "// data: ./good.json\n.cb[role=user]\n")
	for _, c := range []struct{ name, data string }{
		{"stdin", "/dev/stdin"},
		{"zero", "/dev/zero"},
		{"zerolink", "./zero.json"},
		{"fifo", "./fifo.json"},
	} {
		uri := fileURI(filepath.Join(dir, c.name+".pact"))
		p.open(uri, "// data: "+c.data+"\n.cb[role=user]\n")
		ds := p.diagsOf(uri, hasCode("DATA002"))
		if msg := messageOf(ds, "DATA002"); !strings.Contains(msg, "not a regular file") {
			t.Errorf("%s: DATA002 %q", c.name, msg)
		}
		for _, d := range ds {
			if d["code"] == "DATA002" && d["range"].(map[string]any)["start"].(map[string]any)["line"] != float64(0) {
				t.Errorf("%s: DATA002 not on the data line: %v", c.name, d)
			}
		}
		// Hover, lenses and a run all answer at once.
		td := map[string]any{"uri": uri}
		pos := map[string]any{"line": 1, "character": 1}
		for _, id := range []int{
			p.request("textDocument/hover", map[string]any{"textDocument": td, "position": pos}),
			p.request("textDocument/codeLens", map[string]any{"textDocument": td}),
			p.request("textDocument/inlayHint", map[string]any{"textDocument": td, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 2, "character": 0}}}),
		} {
			if m := p.response(id, 10*time.Second); m["error"] != nil {
				t.Errorf("%s: %v", c.name, m["error"])
			}
		}
		id := p.request("workspace/executeCommand", map[string]any{"command": "ctxql.run",
			"arguments": []any{uri, map[string]any{"start": pos, "end": pos}}})
		m := p.response(id, 10*time.Second)
		res, _ := m["result"].(map[string]any)
		if m["error"] != nil || !strings.Contains(fmt.Sprint(res["error"]), "not a regular file") {
			t.Errorf("%s: run answered %v", c.name, m)
		}
		// The document with good data still runs.
		id = p.request("workspace/executeCommand", map[string]any{"command": "ctxql.run",
			"arguments": []any{good, map[string]any{"start": pos, "end": pos}}})
		m = p.response(id, 10*time.Second)
		if res, _ := m["result"].(map[string]any); res["count"] != float64(1) {
			t.Errorf("%s: good document's run: %v", c.name, m)
		}
	}
	// Sample data over the size limit is refused with the limit and the
	// setting that raises it.
	p.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"maxDataBytes": 100}}})
	ds := p.diagsOf(good, hasCode("DATA002"))
	if msg := messageOf(ds, "DATA002"); !strings.Contains(msg, "over 100 bytes") || !strings.Contains(msg, "ctxql.maxDataBytes") {
		t.Errorf("data over the limit: %q", msg)
	}
}

// TestHugeDocumentProcess opens a 20 MB PACT document of real queries in a
// real "ctxql lsp": over the document size limit it gets one diagnostic
// naming the limit and the setting, no parse, and the server stays small
// and answers another document at once.
func TestHugeDocumentProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB document")
	}
	dir := t.TempDir()
	p := startProc(t, dir)
	p.initialize(nil)
	var b strings.Builder
	for b.Len() < 20<<20 {
		b.WriteString(".mt[role='user'] > .mc .cb:first-child, ^seq .cb[ttl<=1] >> .x\n")
	}
	big := fileURI(filepath.Join(dir, "big.pact"))
	start := time.Now()
	p.open(big, b.String())
	small := fileURI(filepath.Join(dir, "small.pact"))
	p.open(small, ".mt >\n")
	ds := p.diagsOf(big, hasCode("LSP001"))
	if len(ds) != 1 || !strings.Contains(messageOf(ds, "LSP001"), "ctxql.maxDocumentBytes") {
		t.Errorf("huge document: %v", ds)
	}
	if d := p.diagsOf(small, func(ds []map[string]any) bool { return len(ds) > 0 }); len(d) != 1 {
		t.Errorf("small document: %v", d)
	}
	td := map[string]any{"uri": big}
	for _, m := range []string{"textDocument/semanticTokens/full", "textDocument/documentSymbol", "textDocument/codeLens", "textDocument/formatting"} {
		params := map[string]any{"textDocument": td}
		if m == "textDocument/formatting" {
			params["options"] = map[string]any{"tabSize": 2, "insertSpaces": true}
		}
		if r := p.response(p.request(m, params), 10*time.Second); r["error"] != nil {
			t.Errorf("%s on the huge document: %v", m, r["error"])
		}
	}
	p.alive(small)
	t.Logf("20 MB document handled in %v, peak RSS %d MB", time.Since(start), p.vmHWM()>>20)
	if hwm := p.vmHWM(); hwm > 1<<30 {
		t.Errorf("peak RSS %d MB for a 20 MB document", hwm>>20)
	}
}

// TestDeepNestingProcess opens a JQL YAML query nested 50,000 flow
// mappings deep (244 KB, whose YAML parse alone exhausts memory) in a real
// "ctxql lsp": it gets one diagnostic instead of a parse, and the server
// stays small and serves another document.
func TestDeepNestingProcess(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	p.initialize(nil)
	const n = 50000
	deep := fileURI(filepath.Join(dir, "deep.jql.yaml"))
	p.open(deep, "from: activities\nwhere: "+strings.Repeat("{a: ", n)+"1"+strings.Repeat("}", n)+"\n")
	ds := p.diagsOf(deep, hasCode("LSP002"))
	if len(ds) != 1 || !strings.Contains(messageOf(ds, "LSP002"), "more than 1000 levels") {
		t.Errorf("deep document: %v", ds)
	}
	for _, m := range []string{"textDocument/semanticTokens/full", "textDocument/documentSymbol", "textDocument/codeLens"} {
		if r := p.response(p.request(m, map[string]any{"textDocument": map[string]any{"uri": deep}}), 10*time.Second); r["error"] != nil {
			t.Errorf("%s on the deep document: %v", m, r["error"])
		}
	}
	small := fileURI(filepath.Join(dir, "small.pact"))
	p.open(small, ".mt\n")
	p.alive(small)
	if hwm := p.vmHWM(); hwm > 512<<20 {
		t.Errorf("peak RSS %d MB for a 244 KB document", hwm>>20)
	}
}
