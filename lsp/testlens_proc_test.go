package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProcRunTest runs the cases of a test file with inline queries and
// data through a real "ctxql lsp" process, as a client that pulls its
// diagnostics (VS Code): the server asks it to pull again, and the failing
// case's diagnostic stands on its inline query, then goes once it passes.
func TestProcRunTest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ttl.ctxqltest.yaml")
	text := "language: pact\n" +
		"data: {root: {id: root, children: [{id: 'cb:x', nodeType: cb, ttl: 1}, {id: 'cb:y', nodeType: cb, ttl: 5}]}}\n" +
		"tests:\n" +
		"  - name: short-lived\n    query: \".cb[ttl<=1]\"\n    want: ['cb:x']\n" +
		"  - name: long-lived\n    query: \".cb[ttl>1]\"\n    want: ['cb:x']\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir)
	p.initialize(map[string]any{
		"textDocument": map[string]any{"diagnostic": map[string]any{}},
		"workspace":    map[string]any{"diagnostics": map[string]any{"refreshSupport": true}},
	})
	uri := fileURI(path)
	p.open(uri, text)

	lenses := p.response(p.request("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}), 20*time.Second)
	if got := strings.Count(jsonOf(t, lenses["result"]), "▶ Run test\""); got != 2 {
		t.Errorf("want a Run test lens per case, got %s", jsonOf(t, lenses["result"]))
	}

	id := p.request("workspace/executeCommand", map[string]any{"command": "ctxql.test", "arguments": []any{uri}})
	refreshed := false
	res := p.await(20*time.Second, func(m map[string]any) bool {
		if m["method"] == "workspace/diagnostic/refresh" && m["id"] != nil {
			refreshed = true
			p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
		}
		return m["id"] == float64(id) && m["method"] == nil
	}, nil)
	out := jsonOf(t, res["result"])
	if !strings.Contains(out, `"passed":1`) || !strings.Contains(out, `"failed":1`) {
		t.Fatalf("running the tests: %s", out)
	}
	if !refreshed {
		p.await(20*time.Second, func(m map[string]any) bool {
			if m["method"] == "workspace/diagnostic/refresh" && m["id"] != nil {
				p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
				return true
			}
			return false
		}, nil)
	}
	pull := func() string {
		m := p.response(p.request("textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}}), 20*time.Second)
		return jsonOf(t, m["result"])
	}
	ds := pull()
	// The inline query of "long-lived" is on line 8 (0-based 7), after "query: ".
	if !strings.Contains(ds, `"start":{"character":11,"line":7}`) || !strings.Contains(ds, `test \"long-lived\" failed`) ||
		!strings.Contains(ds, `\n+ cb:y`) || !strings.Contains(ds, `\n- cb:x`) || strings.Contains(ds, "short-lived") {
		t.Errorf("pulled diagnostics after the run: %s", ds)
	}

	fixed := strings.Replace(text, "query: \".cb[ttl>1]\"\n    want: ['cb:x']", "query: \".cb[ttl>1]\"\n    want: ['cb:y']", 1)
	if err := os.WriteFile(path, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	id = p.request("workspace/executeCommand", map[string]any{"command": "ctxql.test", "arguments": []any{uri, "long-lived"}})
	res = p.await(20*time.Second, func(m map[string]any) bool {
		if m["method"] == "workspace/diagnostic/refresh" && m["id"] != nil {
			p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
		}
		return m["id"] == float64(id) && m["method"] == nil
	}, nil)
	if out := jsonOf(t, res["result"]); !strings.Contains(out, `"passed":1`) || !strings.Contains(out, `"failed":0`) {
		t.Fatalf("running the fixed case: %s", out)
	}
	if ds := pull(); strings.Contains(ds, "long-lived") {
		t.Errorf("the fixed case still has a diagnostic: %s", ds)
	}
}

// jsonOf is v as compact JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
