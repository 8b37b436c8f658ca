package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/internal/ostest"
)

// project copies the fixture project into a fresh directory base/proj and
// returns base and the project directory. base/outside holds files the
// server must never read: a secret JSON document in several shapes.
func project(t *testing.T) (base, proj string) {
	t.Helper()
	base = t.TempDir()
	proj = filepath.Join(base, "proj")
	if err := os.CopyFS(proj, os.DirFS("../testdata/acp/project")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "outside")
	must(t, os.MkdirAll(out, 0o755))
	write(t, filepath.Join(out, "activities.jsonl"), `{"id":"SECRET-act","sessionId":"s","type":"planGenerated","timestamp":"2025-01-01T00:00:00Z"}`+"\n")
	write(t, filepath.Join(out, "leak.facts"), "SECRET-fact\n")
	b, err := os.ReadFile("../testdata/acp/project/data/context.json")
	must(t, err)
	write(t, filepath.Join(out, "context.json"), strings.Replace(string(b), "sysA", "SECRETsys", -1))
	write(t, filepath.Join(out, "state.json"), `{"next_session":0,"next_hack":1,"sessions":{},"hacks":{"hack-001":{"id":"hack-001","file":"SECRET-state","reason":"r","created_at":"x","expired":false}}}`)
	return base, proj
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(s), 0o644))
}

func link(t *testing.T, target, path string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	if err := os.Symlink(target, path); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// refused checks that a tool answer is an error result mentioning why, and
// that it carries nothing read from outside.
func refused(t *testing.T, what, text string, isErr bool, why ...string) {
	t.Helper()
	if !isErr {
		t.Errorf("%s: not refused:\n%s", what, text)
	}
	if strings.Contains(text, "SECRET") || strings.Contains(text, "root:") {
		t.Errorf("%s: the answer leaks a file from outside the project:\n%s", what, text)
	}
	for _, w := range why {
		if !strings.Contains(text, w) {
			t.Errorf("%s: answer %q does not say %q", what, text, w)
		}
	}
}

// TestMCPConfinedFiles serves a project whose data directories hold
// symbolic links to files outside it (/etc/passwd and files with secret
// content that would parse) and checks, against the ctxql binary, that every
// tool refuses each file read through such a link, that links staying
// inside keep working, and that the state file and the cache are not read
// through a link out of the project either.
func TestMCPConfinedFiles(t *testing.T) {
	base, proj := project(t)
	out := filepath.Join(base, "outside")
	// Datalog: facts directories with a link to /etc/passwd and to a file
	// that parses.
	write(t, filepath.Join(proj, "facts", "d.dl"), "relation leak(S);\n")
	link(t, "/etc/passwd", filepath.Join(proj, "facts", "leak.facts"))
	write(t, filepath.Join(proj, "facts2", "d.dl"), "relation leak(S);\n")
	link(t, filepath.Join(out, "leak.facts"), filepath.Join(proj, "facts2", "leak.facts"))
	// Datalog: a facts directory whose link stays inside.
	write(t, filepath.Join(proj, "facts3", "d.dl"), "relation leak(S);\n")
	write(t, filepath.Join(proj, "facts3", "real", "x.txt"), "inside-fact\n")
	link(t, "real/x.txt", filepath.Join(proj, "facts3", "leak.facts"))
	// JQL: data directories whose activities.jsonl is a link out, and one
	// whose link stays inside.
	link(t, "/etc/passwd", filepath.Join(proj, "jq1", "activities.jsonl"))
	link(t, filepath.Join(out, "activities.jsonl"), filepath.Join(proj, "jq2", "activities.jsonl"))
	write(t, filepath.Join(proj, "inside.jsonl"), `{"id":"inside-act","sessionId":"s","type":"planGenerated","timestamp":"2025-01-01T00:00:00Z"}`+"\n")
	link(t, "../inside.jsonl", filepath.Join(proj, "jq3", "activities.jsonl"))
	// PACT: snapshot files that are links.
	link(t, "/etc/passwd", filepath.Join(proj, "snap", "passwd.json"))
	link(t, filepath.Join(out, "context.json"), filepath.Join(proj, "snap", "out.json"))
	link(t, "../data/context.json", filepath.Join(proj, "snap", "in.json"))

	s := startRaw(t, proj)
	dq := "q(x) <-- leak(x)."
	for _, c := range []struct {
		data string
		why  string
	}{{"facts", "outside"}, {"facts2", "outside"}, {"facts/leak.facts", "outside"}} {
		text, isErr := s.tool("datalog_query", map[string]any{"query": dq, "data": c.data})
		refused(t, "datalog_query "+c.data, text, isErr, c.why)
	}
	if text, isErr := s.tool("datalog_query", map[string]any{"query": dq, "data": "facts3"}); isErr || !strings.Contains(text, "inside-fact") {
		t.Errorf("datalog_query through a link inside the project: %v\n%s", isErr, text)
	}
	jq := `{"from": "activities"}`
	for _, d := range []string{"jq1", "jq2", "jq1/activities.jsonl", "jq2/activities.jsonl"} {
		text, isErr := s.tool("jql_query", map[string]any{"query": jq, "data": d})
		refused(t, "jql_query "+d, text, isErr, "outside")
	}
	if text, isErr := s.tool("jql_query", map[string]any{"query": jq, "data": "jq3"}); isErr || !strings.Contains(text, "inside-act") {
		t.Errorf("jql_query through a link inside the project: %v\n%s", isErr, text)
	}
	pq := "@t0 ^sys .block"
	for _, d := range []string{"snap/passwd.json", "snap/out.json"} {
		text, isErr := s.tool("pact_select", map[string]any{"query": pq, "data": d})
		refused(t, "pact_select "+d, text, isErr, "outside")
	}
	if text, isErr := s.tool("pact_select", map[string]any{"query": pq, "data": "snap/in.json"}); isErr || !strings.Contains(text, "block:sysA") {
		t.Errorf("pact_select through a link inside the project: %v\n%s", isErr, text)
	}
	// Resources name cache entries; a path through a link out is refused.
	for _, uri := range []string{"acp://file/facts/leak.facts", "acp://file/jq2/activities.jsonl", "acp://file/snap/out.json"} {
		r := s.read(uri)
		b, _ := json.Marshal(r)
		if r["error"] == nil || strings.Contains(string(b), "SECRET") {
			t.Errorf("resources/read %s: not refused: %s", uri, b)
		}
	}
	s.alive()
}

// TestMCPConfinedStateFile checks that a state file that is a link out of
// the project is neither read nor written through, and that a cache that is
// a link out of the project is not served.
func TestMCPConfinedStateFile(t *testing.T) {
	base, proj := project(t)
	out := filepath.Join(base, "outside")
	link(t, filepath.Join(out, "state.json"), filepath.Join(proj, acp.StateFileName))
	before, err := os.ReadFile(filepath.Join(out, "state.json"))
	must(t, err)
	s := startRaw(t, proj)
	text, isErr := s.tool("acp_hack", map[string]any{"action": "list"})
	refused(t, "acp_hack list", text, isErr, "outside")
	text, isErr = s.tool("acp_hack", map[string]any{"action": "mark", "data": map[string]any{"file": "src/a.ts", "reason": "r"}})
	refused(t, "acp_hack mark", text, isErr, "outside")
	text, isErr = s.tool("acp_debug", map[string]any{"action": "start", "data": map[string]any{"problem": "p"}})
	refused(t, "acp_debug start", text, isErr, "outside")
	after, err := os.ReadFile(filepath.Join(out, "state.json"))
	must(t, err)
	if string(after) != string(before) {
		t.Errorf("the state file outside the project was written:\n%s", after)
	}
	s.alive()

	// A lock file that is a link out of the project is not followed (it
	// would be created or locked outside).
	_, proj3 := project(t)
	link(t, filepath.Join(out, "made-by-lock"), filepath.Join(proj3, acp.StateFileName+acp.LockSuffix))
	s3 := startRaw(t, proj3)
	text, isErr = s3.tool("acp_hack", map[string]any{"action": "mark", "data": map[string]any{"file": "src/a.ts", "reason": "r"}})
	refused(t, "acp_hack mark with a linked lock file", text, isErr, "lock state")
	if _, err := os.Lstat(filepath.Join(out, "made-by-lock")); err == nil {
		t.Errorf("the lock file link was followed: %s exists", filepath.Join(out, "made-by-lock"))
	}
	s3.alive()

	// The cache itself.
	proj2 := filepath.Join(base, "proj2")
	must(t, os.MkdirAll(proj2, 0o755))
	link(t, filepath.Join(proj, acp.DefaultCacheName), filepath.Join(proj2, acp.DefaultCacheName))
	cmd := exec.Command(needBinary(t), "mcp", "--force", "--dir", proj2)
	cmd.Stdin = strings.NewReader("")
	outb, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(outb), "outside") {
		t.Errorf("serving a cache linked from outside: exit %d (%v), want 2 and a refusal:\n%s", code, err, outb)
	}
}

// TestMCPRefusesSpecialFiles checks that FIFOs and devices are refused at
// once, not read: a FIFO as a facts file, a JQL data file and a snapshot,
// and /dev/zero reached through the project directory.
func TestMCPRefusesSpecialFiles(t *testing.T) {
	_, proj := project(t)
	write(t, filepath.Join(proj, "fifo", "d.dl"), "relation leak(S);\n")
	for _, p := range []string{"fifo/leak.facts", "fifo/activities.jsonl", "fifo.json"} {
		if err := ostest.Mkfifo(filepath.Join(proj, p)); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	link(t, "/dev/zero", filepath.Join(proj, "zero", "activities.jsonl"))
	link(t, "/dev/zero", filepath.Join(proj, "zero.json"))
	s := startRaw(t, proj)
	for _, c := range []struct{ tool, query, data string }{
		{"datalog_query", "q(x) <-- leak(x).", "fifo"},
		{"datalog_query", "q(x) <-- leak(x).", "fifo/leak.facts"},
		{"jql_query", `{"from": "activities"}`, "fifo"},
		{"pact_select", "@t0 .block", "fifo.json"},
		{"jql_query", `{"from": "activities"}`, "zero"},
		{"pact_select", "@t0 .block", "zero.json"},
		{"datalog_query", "q(x) <-- leak(x).", "zero.json"},
	} {
		start := time.Now()
		text, isErr := s.toolWithin(c.tool, map[string]any{"query": c.query, "data": c.data}, 20*time.Second)
		if !isErr {
			t.Errorf("%s %s: not refused:\n%.300s", c.tool, c.data, text)
		}
		if !strings.Contains(text, "not a regular file") && !strings.Contains(text, "outside") {
			t.Errorf("%s %s: answer %q does not say why", c.tool, c.data, text)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s %s: refused after %s, want at once", c.tool, c.data, d)
		}
	}
	s.alive()
}

// TestMCPMalformedInput sends, one at a time, every kind of malformed
// message to the ctxql binary and checks that each is answered with the
// right JSON-RPC error and that the server still answers a valid request
// after it.
func TestMCPMalformedInput(t *testing.T) {
	_, proj := project(t)
	s := startRaw(t, proj)
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepObj := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100001) + "}"
	huge := `{"jsonrpc":"2.0","id":77,"method":"ping","params":{"x":"` + strings.Repeat("x", 17<<20) + `"}}`
	hugeIDLast := `{"jsonrpc":"2.0","method":"ping","params":{"x":"` + strings.Repeat("x", 17<<20) + `"},"id":78}`
	for _, c := range []struct {
		name string
		line string
		code float64
		id   any
	}{
		{"garbage", "this is not json", -32700, nil},
		{"null", "null", -32600, nil},
		{"number", "42", -32600, nil},
		{"empty object", "{}", -32600, nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, nil},
		{"empty batch", "[]", -32600, nil},
		{"BOM", "\uFEFF" + `{"jsonrpc":"2.0","id":5,"method":"ping"}`, -32700, nil},
		{"trailing NUL", `{"jsonrpc":"2.0","id":5,"method":"ping"}` + "\x00", -32700, nil},
		{"invalid UTF-8", `{"jsonrpc":"2.0","id":5,"method":"p` + "\xff" + `"}`, -32700, nil},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, nil},
		{"1e400 id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil},
		{"huge integer id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, -32600, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, 5.0},
		{"no jsonrpc", `{"id":5,"method":"ping"}`, -32600, 5.0},
		{"numeric method", `{"jsonrpc":"2.0","id":5,"method":5}`, -32600, 5.0},
		{"duplicate key", `{"jsonrpc":"2.0","id":5,"id":6,"method":"ping"}`, -32700, nil},
		{"string params", `{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}`, -32602, 5.0},
		{"100k-deep array", deep, -32600, nil},
		{"100k-deep params", deepObj, -32600, 1.0},
		{"over 16 MB", huge, -32600, 77.0},
		{"over 16 MB, id last", hugeIDLast, -32600, 78.0},
		{"lone surrogate", `{"jsonrpc":"2.0","id":79,"method":"tools/call","params":{"name":"jql_query","arguments":{"query":"\ud83d","data":"data/activities.json"}}}`, -32700, 79.0},
		{"129-deep options", `{"jsonrpc":"2.0","id":80,"method":"tools/call","params":{"name":"pact_select","arguments":{"query":".a","data":"data/context.json","options":` + strings.Repeat(`{"a":`, 129) + "1" + strings.Repeat("}", 129) + `}}}`, -32600, 80.0},
		{"control character in a resource URI", `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"acp://file/a\u0001b"}}`, -32602, 9.0},
		{"control character in an unknown resource URI", `{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"acp://nowhere/a\u0001b"}}`, -32602, 10.0},
		{"DEL in a resource URI", `{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"acp://file/a\u007fb"}}`, -32602, 11.0},
		{"resources/read without uri", `{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{}}`, -32602, 12.0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.t = t
			s.send([]byte(c.line))
			r := s.recv(60 * time.Second)
			e, ok := r["error"].(map[string]any)
			if !ok {
				t.Fatalf("answer is not an error: %v", r)
			}
			if e["code"] != c.code {
				t.Errorf("code %v (%v), want %v", e["code"], e["message"], c.code)
			}
			if r["id"] != c.id {
				t.Errorf("id %v, want %v", r["id"], c.id)
			}
			s.alive()
		})
	}
	s.t = t
	// A resource URI with characters that are fine is still served.
	r := s.read("acp://file/src/auth/session.ts")
	if r["result"] == nil {
		t.Errorf("valid resource not served after the malformed input: %v", r)
	}
	r = s.read("acp://file/nowhere\u00e9")
	if e, _ := r["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["data"]), "nowhere\u00e9") {
		t.Errorf("unknown resource: %v", r)
	}
}

// TestMCPDrainsAtEndOfInput checks that requests still running when the
// input ends are answered before the server exits.
func TestMCPDrainsAtEndOfInput(t *testing.T) {
	_, proj := project(t)
	cmd := exec.Command(needBinary(t), "mcp", "--force", "--dir", proj)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"datalog_query","arguments":{"query":"q(x, y) <-- edge(x, y)","data":"data/relations.json"}}}
{"jsonrpc":"2.0","id":3,"method":"ping"}
`)
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctxql mcp: %v\n%s", err, outb)
	}
	for _, id := range []string{`"id":1,`, `"id":2,`, `"id":3,`} {
		if !strings.Contains(string(outb), id) {
			t.Errorf("no answer with %s:\n%s", id, outb)
		}
	}
}

// TestMCPStateTwoServers runs two `ctxql mcp` processes on one project and
// sends each 100 acp_hack mark requests at once: every mark is stored, each
// under its own id.
func TestMCPStateTwoServers(t *testing.T) {
	_, proj := project(t)
	const n = 100
	servers := []*rawServer{startRaw(t, proj), startRaw(t, proj)}
	for i := range n {
		for k, s := range servers {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": map[string]any{
				"name": "acp_hack", "arguments": map[string]any{"action": "mark", "data": map[string]any{
					"file": "src/a.ts", "line": i + 1, "reason": fmt.Sprintf("server %d mark %d", k, i)}}}})
			s.send(b)
		}
	}
	ids := map[string]string{}
	for k, s := range servers {
		for range n {
			r := s.recv(60 * time.Second)
			res, _ := r["result"].(map[string]any)
			sc, _ := res["structuredContent"].(map[string]any)
			id, _ := sc["id"].(string)
			if id == "" {
				t.Fatalf("server %d: mark not acknowledged with an id: %v", k, r)
			}
			if prev, dup := ids[id]; dup {
				t.Errorf("id %s given twice (%s and server %d)", id, prev, k)
			}
			ids[id] = fmt.Sprintf("server %d", k)
		}
	}
	text, isErr := servers[0].tool("acp_hack", map[string]any{"action": "list"})
	if isErr {
		t.Fatalf("list: %s", text)
	}
	var list struct {
		Hacks []struct{ ID, Reason string }
		Count int
	}
	must(t, json.Unmarshal([]byte(text), &list))
	stored := map[string]bool{}
	for _, h := range list.Hacks {
		stored[h.ID] = true
	}
	if list.Count != 2*n || len(stored) != 2*n {
		t.Errorf("stored %d marks (%d distinct ids), want %d", list.Count, len(stored), 2*n)
	}
	for id := range ids {
		if !stored[id] {
			t.Errorf("acknowledged mark %s is not stored", id)
		}
	}
	ents, _ := os.ReadDir(proj)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// peakRSS returns the peak resident set size of a process, in bytes, from
// /proc (0 where there is none).
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// bigCache writes into proj a cache whose variable BIG names a domain of
// 20,000 files (about 600 KB of JSON).
func bigCache(t *testing.T, proj string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(proj, acp.DefaultCacheName))
	must(t, err)
	var c map[string]any
	must(t, json.Unmarshal(b, &c))
	files := make([]string, 20000)
	for i := range files {
		files[i] = fmt.Sprintf("src/generated/module%05d/file.ts", i)
	}
	c["domains"].(map[string]any)["big"] = map[string]any{"name": "big", "files": files, "symbols": []string{}}
	c["vars"].(map[string]any)["BIG"] = map[string]any{"type": "domain", "value": "big"}
	b, err = json.Marshal(c)
	must(t, err)
	write(t, filepath.Join(proj, acp.DefaultCacheName), string(b))
}

// TestMCPExpandBudget sends acp_expand in full mode a 100 KB text that
// would expand to about 20 GB: the server refuses it promptly with an error
// naming the limit and its flag, stays small, and still expands what fits.
func TestMCPExpandBudget(t *testing.T) {
	_, proj := project(t)
	bigCache(t, proj)
	s := startRaw(t, proj)
	text := strings.Repeat("$BIG ", 20000)
	start := time.Now()
	got, isErr := s.toolWithin("acp_expand", map[string]any{"text": text, "mode": "full"}, 30*time.Second)
	if !isErr || !strings.Contains(got, "larger than 8388608 bytes") || !strings.Contains(got, "--max-output-bytes") {
		t.Errorf("acp_expand full of 100 KB: want an output budget error naming --max-output-bytes, got:\n%.300s", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refused after %s", d)
	}
	if rss := peakRSS(s.cmd.Process.Pid); rss > 512<<20 {
		t.Errorf("server peak RSS %d MB, want under 512 MB", rss>>20)
	}
	got, isErr = s.tool("acp_expand", map[string]any{"text": "$BIG $BIG", "mode": "full"})
	if isErr || !strings.Contains(got, "module19999") {
		t.Errorf("a small full expansion failed: %.300s", got)
	}
	s.alive()

	// The flag raises the limit (and lowers it).
	s2 := startRaw(t, proj, "--max-output-bytes", "1000")
	got, isErr = s2.tool("acp_expand", map[string]any{"text": "$BIG", "mode": "full"})
	if !isErr || !strings.Contains(got, "larger than 1000 bytes (raise with --max-output-bytes)") {
		t.Errorf("with --max-output-bytes 1000: %.300s", got)
	}
	got, isErr = s2.tool("acp_query", map[string]any{"type": "domain", "name": "big"})
	if !isErr || !strings.Contains(got, "result larger than 1000 bytes (raise with --max-output-bytes)") {
		t.Errorf("acp_query of a large domain with --max-output-bytes 1000: %.300s", got)
	}
	s2.alive()
}

// crossRelation writes into dir a relation r of 2,000 rows, whose cross
// product r(a), r(b), r(c) has 8·10⁹ tuples.
func crossRelation(t *testing.T, dir string) {
	t.Helper()
	var rows strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&rows, "r%d\n", i)
	}
	write(t, filepath.Join(dir, "d.dl"), "relation r(S);\n")
	write(t, filepath.Join(dir, "r.facts"), rows.String())
}

// TestMCPToolBudget runs a Datalog cross product over 2,000 rows (8·10⁹
// tuples) under a 1 s deadline and a 256 MB memory budget: the answer is a
// limit error naming its flag, it comes promptly, and the server lives on.
func TestMCPToolBudget(t *testing.T) {
	_, proj := project(t)
	crossRelation(t, filepath.Join(proj, "cross"))
	s := startRaw(t, proj, "--timeout", "1s", "--max-memory", "268435456")
	start := time.Now()
	got, isErr := s.toolWithin("datalog_query", map[string]any{"query": "q(a, b, c) <-- r(a), r(b), r(c).", "data": "cross"}, 30*time.Second)
	if !isErr || !strings.Contains(got, "(raise with --") {
		t.Errorf("cross product: want a limit error naming its flag, got:\n%.300s", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %s under a 1s deadline", d)
	}
	s.alive()
	got, isErr = s.tool("datalog_query", map[string]any{"query": "q(a) <-- r(a).", "data": "cross"})
	if isErr || !strings.Contains(got, "r1999") {
		t.Errorf("a small query after the limit: %.300s", got)
	}

	// The rows of a result.
	s2 := startRaw(t, proj, "--max-results", "10")
	got, isErr = s2.tool("datalog_query", map[string]any{"query": "q(a) <-- r(a).", "data": "cross"})
	if !isErr || !strings.Contains(got, "more than 10 results (raise with --max-results)") {
		t.Errorf("2,000 rows with --max-results 10: %.300s", got)
	}
	got, isErr = s2.tool("datalog_query", map[string]any{"query": `q(a) <-- r(a), if a == "r7".`, "data": "cross"})
	if isErr || !strings.Contains(got, "r7") {
		t.Errorf("one row with --max-results 10: %.300s", got)
	}
}

// TestMCPQueryBounds sends the JQL query whose nested flow mappings grow
// quadratically in the YAML parser (50,000 deep, 250 KB) and a query over
// the size budget: both are refused before any parser sees them, the server
// stays small and answers what follows.
func TestMCPQueryBounds(t *testing.T) {
	_, proj := project(t)
	s := startRaw(t, proj)
	const n = 50000
	bomb := "from: activities\nwhere: " + strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) + "\n"
	for _, tool := range []string{"jql_query", "jql_schema", "datalog_query", "pact_select"} {
		args := map[string]any{"query": bomb, "data": "data/activities.json"}
		if tool == "jql_schema" {
			delete(args, "data")
		}
		got, isErr := s.toolWithin(tool, args, 20*time.Second)
		if !isErr || !strings.Contains(got, "deeper than 1000 levels") {
			t.Errorf("%s of a 50,000-deep query: %.300s", tool, got)
		}
	}
	got, isErr := s.tool("jql_query", map[string]any{"query": `{"from": "activities", "limit": 1}` + strings.Repeat(" ", 2<<20), "data": "data/activities.json"})
	if !isErr || !strings.Contains(got, "query larger than 1048576 bytes (raise with --max-query-bytes)") {
		t.Errorf("a 2 MB query: %.300s", got)
	}
	if rss := peakRSS(s.cmd.Process.Pid); rss > 256<<20 {
		t.Errorf("server peak RSS %d MB, want under 256 MB", rss>>20)
	}
	got, isErr = s.tool("jql_query", map[string]any{"query": `{"from": "activities", "limit": 1}`, "data": "data/activities.json"})
	if isErr || !strings.Contains(got, "planGenerated") {
		t.Errorf("a small query after the refusals: %.300s", got)
	}
}

// TestMCPDatalogChain sends datalog_query the 50-atom chain q(x0) <--
// path(x0, x1), …, path(x49, x50) over 11 tuples, which needed more than
// 848 MB at 40 atoms when joined left to right keeping every variable: the
// server answers it, stays small, and goes on.
func TestMCPDatalogChain(t *testing.T) {
	needBinary(t)
	_, proj := project(t)
	var facts strings.Builder
	for _, a := range []string{"a", "b", "c"} {
		for _, b := range []string{"a", "b", "c"} {
			fmt.Fprintf(&facts, "%s\t%s\n", a, b)
		}
	}
	facts.WriteString("a\td\nd\ta\n")
	write(t, filepath.Join(proj, "chain", "d.dl"), "relation path(S, S);\n")
	write(t, filepath.Join(proj, "chain", "path.facts"), facts.String())
	var body []string
	for i := range 50 {
		body = append(body, fmt.Sprintf("path(x%d, x%d)", i, i+1))
	}
	s := startRaw(t, proj, "--max-memory", "268435456")
	got, isErr := s.toolWithin("datalog_query", map[string]any{"query": "q(x0) <-- " + strings.Join(body, ", ") + ".", "data": "chain"}, 60*time.Second)
	if isErr {
		t.Fatalf("the chain was refused: %.300s", got)
	}
	for _, x := range []string{`"a"`, `"b"`, `"c"`, `"d"`} {
		if !strings.Contains(got, x) {
			t.Errorf("the answer lacks %s: %.300s", x, got)
		}
	}
	if rss := peakRSS(s.cmd.Process.Pid); rss > 512<<20 {
		t.Errorf("server peak RSS %d MB", rss>>20)
	}
	s.alive()
}
