package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// heavyProject writes into proj data on which each language has a call
// that runs for many seconds: a PACT snapshot range whose nodes' contents
// all differ (one line diff per node), a JQL activities file that a query
// scans to the end, and a Datalog cross product.
func heavyProject(t *testing.T, proj string) map[string]map[string]any {
	t.Helper()
	rng := rand.New(rand.NewSource(1))
	snap := func(cycle int) map[string]any {
		var kids []any
		for i := range 150 {
			var sb strings.Builder
			for j := range 4000 {
				fmt.Fprintf(&sb, "%d %d\n", j, rng.Intn(10))
			}
			kids = append(kids, map[string]any{"id": fmt.Sprintf("c%d", i), "nodeType": "cb", "content": sb.String()})
		}
		return map[string]any{"cycle": cycle, "root": map[string]any{"id": "root", "nodeType": "block", "children": kids}}
	}
	b, err := json.Marshal(map[string]any{"snapshots": []any{snap(1), snap(2)}})
	must(t, err)
	write(t, filepath.Join(proj, "heavy", "range.json"), string(b))

	var acts strings.Builder
	for i := range 1000000 {
		fmt.Fprintf(&acts, `{"id":"a%07d","sessionId":"s%d","type":"planGenerated","timestamp":"2025-01-01T00:00:00Z","message":"%s"}`+"\n", i, i%100, strings.Repeat("n", 20))
	}
	write(t, filepath.Join(proj, "heavy", "jql", "activities.jsonl"), acts.String())

	crossRelation(t, filepath.Join(proj, "heavy", "dl"))

	return map[string]map[string]any{
		"pact_select":   {"query": "@t-1..@t0 .cb", "data": "heavy/range.json", "dialect": "v1", "options": map[string]any{"includeContent": true}},
		"jql_query":     {"query": `{"from": "activities", "where": {"type": "planGenerated", "message": {"neq": "x"}}, "limit": 10}`, "data": "heavy/jql"},
		"datalog_query": {"query": "q(a, b, c) <-- r(a), r(b), r(c).", "data": "heavy/dl"},
	}
}

// TestMCPAbandonedCallsStop sends 20 heavy calls in a row, each abandoned
// at a 150 ms deadline, over every language, and checks for each that the
// server says the abandoned work stopped within a second of the deadline,
// that its CPU is idle one second after the deadline, and that its memory
// is back near where it was before the calls.
func TestMCPAbandonedCallsStop(t *testing.T) {
	needProc(t)
	_, proj := project(t)
	calls := heavyProject(t, proj)
	s := startRaw(t, proj, "--timeout", "150ms", "--max-memory", "4294967296")
	pid := s.cmd.Process.Pid
	if r := s.call("logging/setLevel", map[string]any{"level": "debug"}); r["result"] == nil {
		t.Fatalf("setLevel: %v", r)
	}
	s.alive()
	_, idleRSS := procStat(t, pid)
	tools := []string{"pact_select", "jql_query", "datalog_query"}
	abandoned := map[string]int{}
	for i := range 20 {
		tool := tools[i%len(tools)]
		answeredAt, stoppedAfter := abandon(t, s, fmt.Sprintf("call %d (%s)", i, tool), tool, calls[tool], "150ms", time.Second)
		if stoppedAfter > 1000 {
			t.Errorf("call %d (%s): the abandoned work ran on for %v ms after the deadline", i, tool, stoppedAfter)
		}
		if stoppedAfter >= 0 {
			abandoned[tool]++
		}
		time.Sleep(time.Until(answeredAt.Add(time.Second)))
		cpu0, _ := procStat(t, pid)
		time.Sleep(500 * time.Millisecond)
		cpu1, rss := procStat(t, pid)
		if cpu1-cpu0 > 100*time.Millisecond {
			t.Errorf("call %d (%s): %s of CPU in the 500 ms starting a second after the deadline", i, tool, cpu1-cpu0)
		}
		if rss > idleRSS+64<<20 {
			t.Errorf("call %d (%s): RSS %d MB a second after the deadline, %d MB when idle", i, tool, rss>>20, idleRSS>>20)
		}
	}
	s.alive()
	t.Logf("calls abandoned and reported stopped, by tool: %v", abandoned)
}

// abandon calls tool with args on s, a server at the debug logging level
// whose deadline is deadline, expects a time-out answer, and returns when
// the answer came and, from the server's log in the time wait after it,
// how many milliseconds the abandoned work ran on (-1: no such log, the
// call's work having returned at the deadline by itself or run on for
// longer than wait).
func abandon(t *testing.T, s *rawServer, name, tool string, args map[string]any, deadline string, wait time.Duration) (answeredAt time.Time, stoppedAfter float64) {
	t.Helper()
	s.next++
	id := s.next
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	s.send(b)
	stoppedAfter = -1
	logged := func(m map[string]any) {
		p, _ := m["params"].(map[string]any)
		if d, _ := p["data"].(map[string]any); m["method"] == "notifications/message" && d["event"] == "abandoned work stopped" {
			stoppedAfter, _ = d["after_ms"].(float64)
		}
	}
	for answeredAt.IsZero() {
		m := s.recv(30 * time.Second)
		logged(m)
		if n, ok := m["id"].(float64); ok && int(n) == id {
			answeredAt = time.Now()
			res, _ := m["result"].(map[string]any)
			if res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "timed out after "+deadline) {
				t.Fatalf("%s: want a time-out, got %.300v", name, m)
			}
		}
	}
	// The server reports abandoned work when it stops (a call whose
	// evaluator returned at the deadline by itself was not abandoned).
	for left := time.Until(answeredAt.Add(wait)); left > 0 && stoppedAfter < 0; left = time.Until(answeredAt.Add(wait)) {
		select {
		case l := <-s.lines:
			var m map[string]any
			must(t, json.Unmarshal(l, &m))
			logged(m)
		case <-time.After(left):
		}
	}
	return answeredAt, stoppedAfter
}

// TestMCPAbandonedLoadStops calls datalog_query and pact_select on data
// files that take far longer to load than the 100 ms deadline: the load
// stops at the deadline, so the work abandoned at it runs on for a small
// part of the time a whole call over the same data takes (measured on a
// server without the short deadline).
func TestMCPAbandonedLoadStops(t *testing.T) {
	needProc(t)
	_, proj := project(t)
	write(t, filepath.Join(proj, "big", "dl.json"), canceltest.DatalogJSON(2000000))
	var tree strings.Builder
	tree.WriteString(`{"root": {"id": "root", "nodeType": "root", "children": [`)
	for i := range 1500000 {
		if i > 0 {
			tree.WriteByte(',')
		}
		fmt.Fprintf(&tree, `{"id": "n%d", "nodeType": "cb", "ttl": %d, "content": "block %d"}`, i, i%7, i)
	}
	tree.WriteString(`]}}`)
	write(t, filepath.Join(proj, "big", "tree.json"), tree.String())
	calls := map[string]map[string]any{
		"datalog_query": {"query": `q(x) <-- e(x, "none").`, "data": "big/dl.json"},
		"pact_select":   {"query": "#none", "data": "big/tree.json"},
	}
	full := startRaw(t, proj, "--timeout", "60s", "--max-memory", "4294967296")
	s := startRaw(t, proj, "--timeout", "100ms", "--max-memory", "4294967296")
	if r := s.call("logging/setLevel", map[string]any{"level": "debug"}); r["result"] == nil {
		t.Fatalf("setLevel: %v", r)
	}
	for _, tool := range []string{"datalog_query", "pact_select"} {
		start := time.Now()
		if got, isErr := full.toolWithin(tool, calls[tool], time.Minute); isErr {
			t.Fatalf("%s without the short deadline: %.300s", tool, got)
		}
		whole := time.Since(start)
		// Listening for longer than a whole call, a call whose load did
		// not stop is reported when it ends.
		_, stoppedAfter := abandon(t, s, tool, tool, calls[tool], "100ms", whole+time.Second)
		t.Logf("%s: a whole call %v; abandoned at 100 ms, the work ran on %v ms (-1: returned at the deadline)", tool, whole, stoppedAfter)
		if time.Duration(stoppedAfter)*time.Millisecond > whole/3 {
			t.Errorf("%s: the abandoned work ran on for %v ms after the deadline; a whole call takes %v", tool, stoppedAfter, whole)
		}
	}
	s.alive()
}
