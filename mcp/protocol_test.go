package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

// TestMCPProtocolFlows speaks to `ctxql mcp` in raw JSON-RPC in both flows a
// client may use: the session of initialize (protocol 2025-06-18), and the
// 2026-07-28 protocol of the Python SDK's default client, which calls
// server/discover and sends its protocol version, identity and capabilities
// in the _meta of every request, never calling initialize. In both, ping
// answers {}, logging/setLevel answers {} (and refuses an unknown level with
// -32602), the level it sets makes a failing call log a warning before its
// answer, and the tools and resources answer.
func TestMCPProtocolFlows(t *testing.T) {
	needBinary(t)
	_, proj := project(t)
	discoverMeta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcp", "version": "0.0.0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	for _, flow := range []struct {
		name  string
		start func(t *testing.T) *rawServer
		meta  map[string]any // added to the params of every request
	}{
		{"initialize", func(t *testing.T) *rawServer { return startRaw(t, proj) }, nil},
		{"server/discover", func(t *testing.T) *rawServer {
			s := startProcess(t, proj)
			r := s.call("server/discover", map[string]any{"_meta": discoverMeta})
			res, _ := r["result"].(map[string]any)
			if res == nil || !strings.Contains(fmt.Sprint(res["supportedVersions"]), "2026-07-28") {
				t.Fatalf("server/discover: %v", r)
			}
			if caps, _ := res["capabilities"].(map[string]any); caps["logging"] == nil || caps["tools"] == nil {
				t.Errorf("server/discover capabilities: %v", res["capabilities"])
			}
			return s
		}, discoverMeta},
	} {
		t.Run(strings.ReplaceAll(flow.name, "/", "-"), func(t *testing.T) {
			s := flow.start(t)
			params := func(p map[string]any) map[string]any {
				p = maps.Clone(p)
				if flow.meta != nil {
					p["_meta"] = flow.meta
				}
				return p
			}
			if r := s.call("ping", params(map[string]any{})); r["error"] != nil || r["result"] == nil {
				t.Errorf("ping: %v", r)
			}
			if code, msg := rpcError(t, s.call("logging/setLevel", params(map[string]any{"level": "verbose"}))); code != -32602 || !strings.Contains(msg, `unknown logging level "verbose"`) {
				t.Errorf("setLevel verbose: %v %s", code, msg)
			}
			if r := s.call("logging/setLevel", params(map[string]any{"level": "warning"})); r["error"] != nil || r["result"] == nil {
				t.Fatalf("setLevel warning: %v", r)
			}
			// A failing call logs its error at warning, then answers.
			b := fmt.Sprintf(`{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":%s}`,
				mustJSON(t, params(map[string]any{"name": "acp_query", "arguments": map[string]any{"type": "symbol", "name": "nosuch"}})))
			s.send([]byte(b))
			m := s.recv(30 * time.Second)
			p, _ := m["params"].(map[string]any)
			if m["method"] != "notifications/message" || p["level"] != "warning" || !strings.Contains(fmt.Sprint(p["data"]), "nosuch") {
				t.Errorf("after setLevel warning, a failing call logs nothing: %v", m)
			} else if m = s.recv(30 * time.Second); m["id"] != "q1" {
				t.Errorf("the failing call's answer: %v", m)
			}
			r := s.call("tools/list", params(map[string]any{}))
			if res, _ := r["result"].(map[string]any); len(fmt.Sprint(res["tools"])) < 100 || !strings.Contains(fmt.Sprint(res["tools"]), "acp_query") {
				t.Errorf("tools/list: %.300v", r)
			}
			r = s.call("tools/call", params(map[string]any{"name": "acp_query", "arguments": map[string]any{"type": "stats"}}))
			if res, _ := r["result"].(map[string]any); res == nil || res["isError"] == true || res["structuredContent"] == nil {
				t.Errorf("acp_query stats: %.300v", r)
			}
			r = s.call("resources/read", params(map[string]any{"uri": "acp://vars"}))
			if res, _ := r["result"].(map[string]any); res == nil || !strings.Contains(fmt.Sprint(res["contents"]), "acp://vars") {
				t.Errorf("resources/read acp://vars: %.300v", r)
			}
			if r := s.call("ping", params(map[string]any{})); r["result"] == nil {
				t.Errorf("ping at the end: %v", r)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}
