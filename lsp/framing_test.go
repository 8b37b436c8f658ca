package lsp_test

import (
	"fmt"
	"testing"
	"time"
)

// TestFramingRecoveryProcess sends a frame whose Content-Length is larger
// than its body, followed by valid frames, to a real "ctxql lsp": the
// truncated frame is cut where the next header starts (its body, complete
// in itself here, is answered as a request) and every following request is
// answered. The peer keeps its side open, as an editor does, so
// the declared length never arrives.
func TestFramingRecoveryProcess(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	p.initialize(nil)
	uri := fileURI(dir + "/a.pact")
	p.open(uri, ".mt >> .x\n")
	p.raw("Content-Length: 5000\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"` + uri + `"}}}`)
	ids := []int{}
	for i := 0; i < 3; i++ {
		ids = append(ids, p.request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}))
	}
	got := map[int]bool{}
	deadline := time.Now().Add(20 * time.Second)
	for !(got[1] && got[ids[0]] && got[ids[1]] && got[ids[2]]) && time.Now().Before(deadline) {
		m := p.await(time.Until(deadline), func(m map[string]any) bool { _, note := m["method"]; return !note }, nil)
		id, _ := m["id"].(float64)
		if m["result"] == nil {
			t.Errorf("answer %v", m)
		}
		got[int(id)] = true
	}
	if !got[1] {
		t.Error("the truncated frame's own request not answered")
	}
	// A truncated body that is not a message by itself: a parse error,
	// then the next request is answered.
	p.raw("Content-Length: 5000\r\n\r\n" + `{"jsonrpc":"2.0","id":9,"meth`)
	id := p.request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
	pe := p.await(20*time.Second, func(m map[string]any) bool { _, note := m["method"]; return !note }, nil)
	if e, _ := pe["error"].(map[string]any); e == nil || e["code"] != float64(-32700) {
		t.Errorf("truncated body: %v, want a parse error", pe)
	}
	if m := p.response(id, 20*time.Second); m["result"] == nil {
		t.Errorf("after the truncated body: %v", m)
	}
	// Garbage without any framing, then a valid frame.
	p.raw("garbage without a header\r\n{\"x\":1}" + fmt.Sprintf("Content-Length: %d\r\n\r\n", 3) + "{}}")
	p.alive(uri)
}
