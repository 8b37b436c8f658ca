package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ctxql/ctxql/acp"
)

// procStat returns the CPU time (user and system) a process has used and
// its resident set size, from /proc.
func procStat(t *testing.T, pid int) (cpu time.Duration, rss int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("read /proc/%d/stat: %v", pid, err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	const ticks = 100 // USER_HZ on Linux
	cpu = time.Duration(utime+stime) * time.Second / ticks
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(s), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &rss)
			rss <<= 10
		}
	}
	return cpu, rss
}

// needProc skips where /proc is absent (not Linux).
func needProc(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
}

// rpcError returns the code and message of an error response.
func rpcError(t *testing.T, r map[string]any) (float64, string) {
	t.Helper()
	e, ok := r["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error response: %.300v", r)
	}
	code, _ := e["code"].(float64)
	msg, _ := e["message"].(string)
	return code, msg
}

// bigRelation writes into proj/big a relation of n tuples of one value of
// about width bytes.
func bigRelation(t *testing.T, proj string, n, width int) {
	t.Helper()
	var rows strings.Builder
	pad := strings.Repeat("v", width-12)
	for i := range n {
		fmt.Fprintf(&rows, "%s%010d\n", pad, i)
	}
	write(t, filepath.Join(proj, "big", "d.dl"), "relation r(S);\n")
	write(t, filepath.Join(proj, "big", "r.facts"), rows.String())
}

// paddedCache pads the cache of proj with a string of n bytes.
func paddedCache(t *testing.T, proj string, n int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(proj, acp.DefaultCacheName))
	must(t, err)
	var c map[string]any
	must(t, json.Unmarshal(b, &c))
	c["padding"] = strings.Repeat("p", n)
	b, err = json.Marshal(c)
	must(t, err)
	write(t, filepath.Join(proj, acp.DefaultCacheName), string(b))
}

// TestMCPLargeResult sends datalog_query a result of 80,000 tuples, 7.6 MB
// of JSON, and reads acp://cache of a 9 MB cache: each is refused with an
// error naming --max-output-bytes, since the tool result goes out as text
// and as structured content (about 16 MB), no line the server writes
// reaches the 10 MiB a TypeScript SDK client reads, and the session goes
// on. A raised budget lets both through.
func TestMCPLargeResult(t *testing.T) {
	_, proj := project(t)
	bigRelation(t, proj, 80000, 95)
	paddedCache(t, proj, 9<<20)

	s := startRaw(t, proj)
	got, isErr := s.tool("datalog_query", map[string]any{"query": "q(a) <-- r(a).", "data": "big"})
	if !isErr || !strings.Contains(got, "larger than 8388608 bytes (raise with --max-output-bytes)") || !strings.Contains(got, "as written") {
		t.Errorf("80,000 tuples: want an error naming the output budget as written, got %.300s", got)
	}
	r := s.read("acp://cache")
	if code, msg := rpcError(t, r); code != -32603 || !strings.Contains(msg, "larger than 8388608 bytes (raise with --max-output-bytes)") {
		t.Errorf("acp://cache of 9 MB: %v %s", code, msg)
	}
	s.alive()
	if n := s.longest.Load(); n >= 10<<20 {
		t.Errorf("the server wrote a line of %d bytes", n)
	}

	s2 := startRaw(t, proj, "--max-output-bytes", fmt.Sprint(40<<20))
	got, isErr = s2.tool("datalog_query", map[string]any{"query": "q(a) <-- r(a).", "data": "big"})
	if isErr || !strings.Contains(got, "vvv0000079999") {
		t.Errorf("80,000 tuples under a 40 MB budget: %.300s", got)
	}
	if r := s2.read("acp://cache"); r["result"] == nil {
		t.Errorf("acp://cache under a 40 MB budget: %.300v", r)
	}
}

// TestMCPPathBounds sends acp_constraints a 128 KiB path of 64,000
// segments and reads an acp://file/ URI of 24,000 segments: both are
// refused at once with -32602 or an error naming the bound, and the server
// spends well under a second of CPU on them. A --timeout of 1ns shows that
// resource reads run under the deadline of tool calls.
func TestMCPPathBounds(t *testing.T) {
	needProc(t)
	_, proj := project(t)
	s := startRaw(t, proj, "--timeout", "2s")
	pid := s.cmd.Process.Pid
	cpu0, _ := procStat(t, pid)
	long := strings.Repeat("a/", 64000) + strings.Repeat("a", 3072) // 128 KiB
	got, isErr := s.toolWithin("acp_constraints", map[string]any{"file": long}, 5*time.Second)
	if !isErr || !strings.Contains(got, "longer than 4096 bytes") {
		t.Errorf("acp_constraints of a 128 KiB path: %.300s", got)
	}
	r := s.callWithin("resources/read", map[string]any{"uri": "acp://file/" + strings.Repeat("b/", 24000) + "x"}, 5*time.Second)
	if code, msg := rpcError(t, r); code != -32602 || !strings.Contains(msg, "longer than 4096 bytes") {
		t.Errorf("acp://file/ of 24,000 segments: %v %s", code, msg)
	}
	r = s.callWithin("resources/read", map[string]any{"uri": "acp://file/" + strings.Repeat("b/", 300) + "x"}, 5*time.Second)
	if code, msg := rpcError(t, r); code != -32602 || !strings.Contains(msg, "more than 256") {
		t.Errorf("acp://file/ of 301 segments: %v %s", code, msg)
	}
	s.alive()
	if cpu1, _ := procStat(t, pid); cpu1-cpu0 > 500*time.Millisecond {
		t.Errorf("the long paths cost %s of CPU", cpu1-cpu0)
	}

	s2 := startRaw(t, proj, "--timeout", "1ns")
	r = s2.read("acp://vars")
	if code, msg := rpcError(t, r); code != -32603 || !strings.Contains(msg, "timed out after 1ns (raise with --timeout)") {
		t.Errorf("acp://vars under --timeout 1ns: %v %s", code, msg)
	}
}

// TestMCPNoReplyAfterCancel starts a Datalog cross product, cancels it
// with notifications/cancelled and checks that no answer with its id ever
// comes (the deadline passes meanwhile), that its work stops within a
// second, and that a ping sent after is answered; a cancellation of a
// finished request changes nothing.
func TestMCPNoReplyAfterCancel(t *testing.T) {
	_, proj := project(t)
	crossRelation(t, filepath.Join(proj, "cross"))
	s := startRaw(t, proj, "--timeout", "1s")
	if r := s.call("logging/setLevel", map[string]any{"level": "debug"}); r["result"] == nil {
		t.Fatalf("setLevel: %v", r)
	}
	s.send([]byte(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"pact_select","arguments":{"query":".a","data":"data/context.json"}}}`))
	if r := s.recv(30 * time.Second); r["id"] != "slow" {
		t.Fatalf("a quick call: %v", r)
	}
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`))
	s.send([]byte(`{"jsonrpc":"2.0","id":"heavy","method":"tools/call","params":{"name":"datalog_query","arguments":{"query":"q(a, b, c) <-- r(a), r(b), r(c).","data":"cross"}}}`))
	time.Sleep(100 * time.Millisecond)
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"heavy","reason":"user"}}`))
	s.send([]byte(`{"jsonrpc":"2.0","id":"after","method":"ping"}`))
	deadline := time.Now().Add(3 * time.Second) // past the 1s deadline of the call
	sawPing := false
	stoppedAfter := -1.0
	for time.Now().Before(deadline) {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("server closed its output; stderr: %s", s.stderr)
			}
			var m map[string]any
			must(t, json.Unmarshal(l, &m))
			switch m["id"] {
			case "heavy":
				t.Errorf("the cancelled request was answered: %.300s", l)
			case "after":
				sawPing = true
			}
			p, _ := m["params"].(map[string]any)
			if d, _ := p["data"].(map[string]any); d["event"] == "abandoned work stopped" && d["request"] == "datalog_query" {
				stoppedAfter, _ = d["after_ms"].(float64)
			}
		case <-time.After(time.Until(deadline)):
		}
	}
	if !sawPing {
		t.Errorf("the ping after the cancellation was not answered")
	}
	if stoppedAfter < 0 || stoppedAfter > 1000 {
		t.Errorf("the cancelled Datalog work was not reported stopped within a second (after_ms %v)", stoppedAfter)
	}
	s.alive()
}

// TestMCPRefusedResourceCodes reads resources the server refuses and
// checks the JSON-RPC code and message of each.
func TestMCPRefusedResourceCodes(t *testing.T) {
	_, proj := project(t)
	s := startRaw(t, proj)
	for _, c := range []struct {
		uri  string
		code float64
		msg  string
	}{
		{"acp://file/../../etc/passwd", -32602, "has a .. segment: path outside the project directory"},
		{"acp://file/%2e%2e/%2e%2e/etc/passwd", -32602, "outside the project directory"},
		{"acp://file//etc/passwd", -32602, "absolute path"},
		{"acp://file/src/%zz", -32602, ""},
		{"acp://symbol/%zz", -32602, ""},
		// The SDK's resource-not-found code is -32602 too.
		{"acp://file/nowhere.ts", -32602, "Resource not found"},
		{"acp://domain/nowhere", -32602, "Resource not found"},
	} {
		code, msg := rpcError(t, s.read(c.uri))
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: %v %q, want %v %q", c.uri, code, msg, c.code, c.msg)
		}
	}
}

// TestMCPToolSchemas lists the tools and checks each for an output schema,
// read-only and destructive hints, enumerations of its enumerated
// parameters and a description of every parameter and result field at
// every depth; then it
// calls each tool and validates its structured result against its output
// schema.
func TestMCPToolSchemas(t *testing.T) {
	_, proj := project(t)
	s := startRaw(t, proj)
	r := s.call("tools/list", map[string]any{})
	var list struct {
		Tools []struct {
			Name         string
			InputSchema  *jsonschema.Schema
			OutputSchema *jsonschema.Schema
			Annotations  map[string]any
		}
	}
	b, _ := json.Marshal(r["result"])
	must(t, json.Unmarshal(b, &list))
	enums := map[string]string{"acp_query": "type", "acp_debug": "action", "acp_hack": "action", "acp_expand": "mode", "pact_select": "dialect"}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range list.Tools {
		if tl.OutputSchema == nil || tl.OutputSchema.Type != "object" {
			t.Errorf("%s: output schema %v", tl.Name, tl.OutputSchema)
			continue
		}
		res, err := tl.OutputSchema.Resolve(nil)
		if err != nil {
			t.Errorf("%s: output schema: %v", tl.Name, err)
		}
		schemas[tl.Name] = res
		if _, ok := tl.Annotations["readOnlyHint"].(bool); !ok {
			t.Errorf("%s: no readOnlyHint: %v", tl.Name, tl.Annotations)
		}
		if _, ok := tl.Annotations["destructiveHint"].(bool); !ok {
			t.Errorf("%s: no destructiveHint: %v", tl.Name, tl.Annotations)
		}
		if p := enums[tl.Name]; p != "" && len(tl.InputSchema.Properties[p].Enum) < 2 {
			t.Errorf("%s: %s has no enum", tl.Name, p)
		}
		var walk func(what, path string, sc *jsonschema.Schema)
		walk = func(what, path string, sc *jsonschema.Schema) {
			if sc == nil {
				return
			}
			for name, p := range sc.Properties {
				if p.Description == "" {
					t.Errorf("%s: %s %s%s has no description", tl.Name, what, path, name)
				}
				walk(what, path+name+".", p)
			}
			for _, v := range sc.AnyOf {
				walk(what, path, v)
			}
			walk(what, path+"[].", sc.Items)
		}
		walk("parameter", "", tl.InputSchema)
		walk("result field", "", tl.OutputSchema)
	}
	ro := map[string]bool{}
	for _, tl := range list.Tools {
		ro[tl.Name], _ = tl.Annotations["readOnlyHint"].(bool)
	}
	if !ro["acp_query"] || ro["acp_hack"] || ro["acp_debug"] {
		t.Errorf("read-only hints: %v", ro)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"acp_query", map[string]any{"type": "symbol", "name": "validateSession"}},
		{"acp_query", map[string]any{"type": "file", "name": "src/auth/session.ts"}},
		{"acp_query", map[string]any{"type": "callers", "name": "src/auth/session.ts:SessionService.validateSession"}},
		{"acp_query", map[string]any{"type": "search", "pattern": "session"}},
		{"acp_query", map[string]any{"type": "stats"}},
		{"acp_constraints", map[string]any{"file": "src/auth/session.ts"}},
		{"acp_expand", map[string]any{"text": "no vars"}},
		{"acp_debug", map[string]any{"action": "start", "data": map[string]any{"problem": "p"}}},
		{"acp_debug", map[string]any{"action": "attempt", "data": map[string]any{"session_id": "debug-001", "description": "d"}}},
		{"acp_hack", map[string]any{"action": "mark", "data": map[string]any{"file": "src/a.ts", "reason": "r"}}},
		{"acp_hack", map[string]any{"action": "list"}},
		{"acp_hack", map[string]any{"action": "revert", "data": map[string]any{"id": "hack-001"}}},
		{"pact_select", map[string]any{"query": ".block", "data": "data/context.json"}},
		{"pact_select", map[string]any{"query": ".block[", "data": "data/context.json"}},
		{"jql_query", map[string]any{"query": `{"from": "activities", "limit": 2}`, "data": "data/activities.json"}},
		{"jql_schema", map[string]any{}},
		{"jql_schema", map[string]any{"query": `{"from": "activities"}`}},
		{"datalog_query", map[string]any{"query": "q(x, y) <-- edge(x, y).", "data": "data/relations.json"}},
		{"datalog_query", map[string]any{"query": "p(x) <-- edge(x, _).", "data": "data/relations.json", "program": true}},
	} {
		r := s.call("tools/call", map[string]any{"name": c.tool, "arguments": c.args})
		res, _ := r["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Errorf("%s %v: %.300v", c.tool, c.args, r)
			continue
		}
		sc, ok := res["structuredContent"].(map[string]any)
		if !ok {
			t.Errorf("%s %v: no structured content: %.300v", c.tool, c.args, res)
			continue
		}
		if err := schemas[c.tool].Validate(sc); err != nil {
			t.Errorf("%s %v: the result does not match the output schema: %v\n%.300v", c.tool, c.args, err, sc)
		}
	}
}

// TestMCPLoggingAndPrompts checks logging/setLevel, the log messages a
// client asks for, and that prompts are neither advertised nor answered.
func TestMCPLoggingAndPrompts(t *testing.T) {
	_, proj := project(t)
	s := startRaw(t, proj)
	if code, msg := rpcError(t, s.call("logging/setLevel", map[string]any{"level": "verbose"})); code != -32602 || !strings.Contains(msg, `unknown logging level "verbose"`) {
		t.Errorf("setLevel verbose: %v %s", code, msg)
	}
	if code, _ := rpcError(t, s.call("prompts/list", map[string]any{})); code != -32601 {
		t.Errorf("prompts/list: code %v, want -32601", code)
	}
	if code, _ := rpcError(t, s.call("prompts/get", map[string]any{"name": "x"})); code != -32601 {
		t.Errorf("prompts/get: code %v, want -32601", code)
	}
	// Nothing is logged before the client asks.
	s.send([]byte(`{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{"name":"acp_query","arguments":{"type":"symbol","name":"nosuch"}}}`))
	if m := s.recv(30 * time.Second); m["id"] != "q1" {
		t.Errorf("a log message before logging/setLevel: %v", m)
	}
	if r := s.call("logging/setLevel", map[string]any{"level": "warning"}); r["result"] == nil {
		t.Fatalf("setLevel warning: %v", r)
	}
	s.send([]byte(`{"jsonrpc":"2.0","id":"q2","method":"tools/call","params":{"name":"acp_query","arguments":{"type":"symbol","name":"nosuch"}}}`))
	m := s.recv(30 * time.Second)
	p, _ := m["params"].(map[string]any)
	if m["method"] != "notifications/message" || p["level"] != "warning" || !strings.Contains(fmt.Sprint(p["data"]), "nosuch") {
		t.Errorf("after setLevel warning, a failing call logs nothing: %v", m)
	}
	if m := s.recv(30 * time.Second); m["id"] != "q2" {
		t.Errorf("the call's answer: %v", m)
	}
	caps, _ := s.init["capabilities"].(map[string]any)
	if _, ok := caps["prompts"]; ok || caps["logging"] == nil {
		t.Errorf("capabilities %v: want logging and no prompts", caps)
	}
}
