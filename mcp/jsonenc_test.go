package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResultsKeepHTMLCharacters: tool results carrying <, > and & — in the
// text block, in the structured content and on the wire — hold them as they
// are, as ctxql prints JSON everywhere (and as jq does), not as \u003c,
// \u003e and \u0026.
func TestResultsKeepHTMLCharacters(t *testing.T) {
	_, proj := project(t)
	write(t, filepath.Join(proj, "lt", "tree.json"), `{"root": {"children": [{"id": "seg:<a&b>", "nodeType": "seg", "children": []}]}}`)
	write(t, filepath.Join(proj, "lt", "e.json"), `{"relations": {"e": {"param_types": ["String"], "tuples": [["x<y&z>"]]}}}`)
	write(t, filepath.Join(proj, "lt", "acts.json"), `[{"id": "a<1>&", "type": "planGenerated"}]`)
	s := startRaw(t, proj)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"pact_select", map[string]any{"query": ".seg", "data": "lt/tree.json"}, "seg:<a&b>"},
		{"datalog_query", map[string]any{"query": "q(x) <-- e(x).", "data": "lt/e.json"}, "x<y&z>"},
		{"jql_query", map[string]any{"query": `{from: "activities", where: {id: "a<1>&"}}`, "data": "lt/acts.json"}, "a<1>&"},
	} {
		s.next++
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": "tools/call",
			"params": map[string]any{"name": c.tool, "arguments": c.args}})
		s.send(req)
		var line []byte
		for line == nil {
			select {
			case l, ok := <-s.lines:
				if !ok {
					t.Fatalf("server closed its output\n%s", s.stderr)
				}
				var m struct{ ID int }
				if json.Unmarshal(l, &m) == nil && m.ID == s.next {
					line = l
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%s: no answer", c.tool)
			}
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(line, []byte(esc)) {
				t.Errorf("%s: the response holds %s:\n%.400s", c.tool, esc, line)
			}
		}
		var resp struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.Result.IsError || len(resp.Result.Content) != 1 {
			t.Fatalf("%s: %v\n%.400s", c.tool, err, line)
		}
		if text := resp.Result.Content[0].Text; !strings.Contains(text, c.want) {
			t.Errorf("%s: the text block lacks %q: %.300s", c.tool, c.want, text)
		}
		if !strings.Contains(string(resp.Result.StructuredContent), c.want) {
			t.Errorf("%s: the structured content lacks %q: %.300s", c.tool, c.want, resp.Result.StructuredContent)
		}
	}
}
