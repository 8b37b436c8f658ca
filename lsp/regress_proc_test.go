package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/lsp"
)

// applyEdits applies LSP text edits (ranges in UTF-16 code units; the
// texts here are ASCII) to text.
func applyEdits(t *testing.T, text string, edits []any) string {
	t.Helper()
	lineStart := []int{0}
	for i := range len(text) {
		if text[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	off := func(p map[string]any) int {
		line, char := int(p["line"].(float64)), int(p["character"].(float64))
		if line >= len(lineStart) {
			return len(text)
		}
		return min(lineStart[line]+char, len(text))
	}
	type edit struct {
		start, end int
		text       string
	}
	var es []edit
	for _, e := range edits {
		m := e.(map[string]any)
		r := m["range"].(map[string]any)
		es = append(es, edit{off(r["start"].(map[string]any)), off(r["end"].(map[string]any)), m["newText"].(string)})
	}
	// Apply from the end; of the edits at one offset, the last first, so
	// that their texts stand in the order of the array.
	slices.Reverse(es)
	slices.SortStableFunc(es, func(a, b edit) int { return b.start - a.start })
	for _, e := range es {
		text = text[:e.start] + e.text + text[e.end:]
	}
	return text
}

// codeActions asks the server for the code actions over a whole-line range
// of uri, of the kinds in only (all when empty).
func (p *proc) codeActions(uri string, line int, only ...string) []map[string]any {
	p.t.Helper()
	ctx := map[string]any{"diagnostics": []any{}}
	if len(only) > 0 {
		ctx["only"] = only
	}
	id := p.request("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 1}},
		"context":      ctx,
	})
	m := p.response(id, 30*time.Second)
	raw, _ := json.Marshal(m["result"])
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		p.t.Fatalf("codeAction: %v in %s", err, raw)
	}
	return out
}

// TestMigrateActionDialectProcess checks "Migrate file to v2" in a real
// server on pragma-less files that .ctxql.yaml makes v1: it is offered
// (for "[ttl<1]" too) and its edits give the text `ctxql migrate --to v2`
// gives.
func TestMigrateActionDialectProcess(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".ctxql.yaml": "dialect:\n  default: v1\n",
		"a.pact":      ".cb:summary\n",
		"b.pact":      "[ttl<1]\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := ctxqlBinary()
	if err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir)
	p.initialize(nil)
	for _, name := range []string{"a.pact", "b.pact"} {
		cmd := exec.Command(bin, "migrate", "--to", "v2", name)
		cmd.Dir = dir
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("ctxql migrate --to v2 %s: %v", name, err)
		}
		uri := fileURI(filepath.Join(dir, name))
		p.open(uri, files[name])
		var migrate map[string]any
		for _, a := range p.codeActions(uri, 0, "source.migrate") {
			if a["title"] == "Migrate file to v2" {
				migrate = a
			}
		}
		if migrate == nil {
			t.Errorf("%s: Migrate file to v2 not offered", name)
			continue
		}
		edits := migrate["edit"].(map[string]any)["changes"].(map[string]any)[uri].([]any)
		if got := applyEdits(t, files[name], edits); got != string(want) {
			t.Errorf("%s: the editor migrates to %q, the command line to %q", name, got, want)
		}
	}
}

// TestNoSuppressionOfErrorsProcess checks that a real server offers the
// "Suppress ... on this line" quick fix for a rule's finding only: never
// for an error that makes the file invalid (a syntax error, a query the
// evaluator refuses), which no directive hides.
func TestNoSuppressionOfErrorsProcess(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir)
	p.initialize(nil)
	for _, c := range []struct {
		name, text, code string
		suppressible     bool
	}{
		{"check.pact", ".mt:nth(0)\n", "PACT009", false},
		{"syntax.pact", ".cb[ttl<=]\n", "pact-syntax", false},
		{"rule.pact", ".block:summary\n", "PACT001", true},
	} {
		uri := fileURI(filepath.Join(dir, c.name))
		p.open(uri, c.text)
		p.diagsOf(uri, hasCode(c.code))
		offered := false
		for _, a := range p.codeActions(uri, 0, "quickfix") {
			if strings.HasPrefix(fmt.Sprint(a["title"]), "Suppress ") {
				offered = true
			}
		}
		if offered != c.suppressible {
			t.Errorf("%s (%s): suppression offered %v, want %v", c.name, c.code, offered, c.suppressible)
		}
	}
}

// answerRequests answers every request of the server in m with null and
// reports whether m was a workspace/diagnostic/refresh.
func (p *proc) answerRequests(m map[string]any) bool {
	if m["method"] == nil || m["id"] == nil {
		return false
	}
	if m["method"] != "workspace/configuration" { // await answers those
		p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
	}
	return m["method"] == "workspace/diagnostic/refresh"
}

// pullDiags asks for the diagnostics of uri and returns the codes with
// their lines ("DATA001@3"). The server's requests that come while it
// waits for the answer are answered, and its refreshes counted in
// p.refreshes: one may come before the answer it follows.
func (p *proc) pullDiags(uri string) []string {
	p.t.Helper()
	id := p.request("textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}})
	var out []string
	m := p.await(30*time.Second, func(m map[string]any) bool {
		_, note := m["method"]
		return !note && m["id"] == float64(id)
	}, func(m map[string]any) {
		if p.answerRequests(m) {
			p.refreshes++
		}
	})
	raw, _ := json.Marshal(m["result"])
	var rep struct {
		Items []struct {
			Code  string
			Range struct{ Start struct{ Line int } }
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		p.t.Fatalf("diagnostic report: %v in %s", err, raw)
	}
	for _, d := range rep.Items {
		out = append(out, d.Code+"@"+strconv.Itoa(d.Range.Start.Line))
	}
	return out
}

// TestDataChangeRefreshesProcess checks that a real server asks a pull
// client to pull again when the sample data of an open document changes
// on disk, with no edit: the findings then follow the new data.
func TestDataChangeRefreshesProcess(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.json")
	tree := func(role string) string {
		return `{"root":{"id":"root","nodeType":"^root","children":[{"id":"cb1","nodeType":"cb","role":"` + role + `"}]}}`
	}
	if err := os.WriteFile(data, []byte(tree("assistant")), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir)
	p.initialize(map[string]any{
		"textDocument": map[string]any{"diagnostic": map[string]any{}},
		"workspace": map[string]any{"diagnostics": map[string]any{"refreshSupport": true},
			"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
	})
	uri := fileURI(filepath.Join(dir, "q.pact"))
	p.open(uri, "// pact: v1\n// data: ./d.json\n.cb[role='user']\n.cb[role='assistant']\n")
	// settle pulls after each refresh until the findings are want.
	// A refresh that came while a pull was answered (p.refreshes) asks
	// for the next pull as one that comes after.
	settle := func(want []string) {
		t.Helper()
		var got []string
		deadline := time.Now().Add(30 * time.Second)
		p.refreshes = 0
		for got = p.pullDiags(uri); !slices.Equal(got, want); got = p.pullDiags(uri) {
			if time.Now().After(deadline) {
				t.Fatalf("findings %v, want %v", got, want)
			}
			if p.refreshes > 0 {
				p.refreshes = 0
				continue
			}
			p.await(30*time.Second, p.answerRequests, nil)
		}
	}
	settle([]string{"DATA001@2"})
	if err := os.WriteFile(data, []byte(tree("user")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": fileURI(data), "type": 2}}})
	// The change alone, without a pull or an edit, brings a refresh.
	p.await(30*time.Second, p.answerRequests, nil)
	settle([]string{"DATA001@3"})
}

// TestCancelledRunStopsProcess checks that $/cancelRequest stops a running
// evaluation in a real server: the request is answered RequestCancelled,
// and the process goes back to idle (no core kept busy) although the
// evaluation would run for minutes within the one-minute run timeout. The
// figures are CPU time, not wall time, so that a loaded machine (where the
// process gets a fraction of a core) measures the same work: the
// evaluation used at least 100 ms of CPU before the cancellation, and the
// process at most 300 ms after it before it went idle (a 500 ms window in
// which it used at most 20 ms).
func TestCancelledRunStopsProcess(t *testing.T) {
	dir := t.TempDir()
	lsp.WriteSlowDatalog(t, dir)
	p := startProc(t, dir)
	id := p.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"runTimeout": 60000}})
	p.response(id, 20*time.Second)
	p.notify("initialized", map[string]any{})
	uri := fileURI(filepath.Join(dir, "slow.dl"))
	p.open(uri, lsp.SlowProgram)
	start := p.cpuTime()
	run := p.request("workspace/executeCommand", map[string]any{"command": "ctxql.run",
		"arguments": []any{uri, map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 1, "character": 0}}}})
	busy := time.Now()
	for p.cpuTime()-start < 100*time.Millisecond {
		if time.Since(busy) > 30*time.Second {
			t.Fatalf("the evaluation used %v of CPU in 30 s before the cancellation: not busy", p.cpuTime()-start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Closing the document stops its diagnostics; the run stops with
	// $/cancelRequest.
	p.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	cancelled, at := time.Now(), p.cpuTime()
	before := at - start
	p.notify("$/cancelRequest", map[string]any{"id": run})
	m := p.response(run, 20*time.Second)
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32800) {
		t.Errorf("cancelled run answered %v, want RequestCancelled", m)
	}
	t.Logf("answered %v after $/cancelRequest", time.Since(cancelled))
	// Idle: a 500 ms window with at most 20 ms of CPU.
	var after time.Duration
	for {
		w := p.cpuTime()
		time.Sleep(500 * time.Millisecond)
		if p.cpuTime()-w <= 20*time.Millisecond {
			after = w - at
			break
		}
		if time.Since(cancelled) > 30*time.Second {
			t.Fatalf("the server still used %v of CPU in 500 ms, 30 s after the cancellation (%v before it)", p.cpuTime()-w, before)
		}
	}
	if after > 300*time.Millisecond {
		t.Errorf("the server used %v of CPU after the cancellation before it went idle (%v before it)", after, before)
	}
	t.Logf("CPU: %v before the cancellation, %v after it; idle %v after it", before, after, time.Since(cancelled).Round(time.Millisecond))
}

// cpuTime returns the CPU time the process used so far (Linux), failing
// the test where it cannot be read.
func (p *proc) cpuTime() time.Duration {
	p.t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatalf("CPU time: %v", err)
	}
	// The fields after the command name (which may hold spaces) in ")".
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
