package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// initializeWith performs the handshake with the given client
// capabilities and initialization options.
func (c *testClient) initializeWith(caps map[string]any, opts any) map[string]any {
	c.t.Helper()
	params := map[string]any{"processId": nil, "capabilities": caps}
	if opts != nil {
		params["initializationOptions"] = opts
	}
	var res struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	c.mustCall("initialize", params, &res)
	c.send("initialized", map[string]any{})
	return res.Capabilities
}

// pushes counts the publishDiagnostics received for uri so far.
func (c *testClient) pushes(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.notes {
		if m.Method == "textDocument/publishDiagnostics" && strings.Contains(string(m.Params), `"uri":"`+uri+`"`) {
			n++
		}
	}
	return n
}

// received counts the messages of method received so far (notifications
// and the server's requests).
func (c *testClient) received(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.notes {
		if m.Method == method {
			n++
		}
	}
	return n
}

// pull asks for the diagnostics of uri.
func (c *testClient) pull(uri string) []wireDiagnostic {
	c.t.Helper()
	var rep fullDocumentDiagnosticReport
	c.mustCall("textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}}, &rep)
	if rep.Kind != "full" {
		c.t.Fatalf("report kind %q", rep.Kind)
	}
	return rep.Items
}

func codes(ds []wireDiagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// awaitDiags waits for pushed diagnostics of uri (any version) that
// satisfy ok.
func (c *testClient) awaitDiags(uri string, ok func([]wireDiagnostic) bool) []wireDiagnostic {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last []wireDiagnostic
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for i := 0; i < len(c.notes); i++ {
			n := c.notes[i]
			if n.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var p publishDiagnosticsParams
			if json.Unmarshal(n.Params, &p) != nil || p.URI != uri {
				continue
			}
			c.notes = append(c.notes[:i:i], c.notes[i+1:]...)
			i--
			last = p.Diagnostics
			if ok(p.Diagnostics) {
				c.mu.Unlock()
				return p.Diagnostics
			}
		}
		c.mu.Unlock()
		select {
		case <-c.notify:
		case <-time.After(10 * time.Millisecond):
		}
	}
	c.t.Fatalf("no diagnostics as expected for %s; last %+v", uri, last)
	return nil
}

// TestPullOrPush checks that a client that pulls diagnostics (it has the
// textDocument.diagnostic capability, as VS Code) gets them only by pulling,
// never also pushed, while a push-only client (Neovim 0.7) gets pushes.
func TestPullOrPush(t *testing.T) {
	uri := "file:///w/p.pact"
	pullCl := newClient(t, Options{})
	caps := pullCl.initializeWith(map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{"dynamicRegistration": false}}}, nil)
	if caps["diagnosticProvider"] == nil {
		t.Fatalf("pull diagnostics not advertised to a client that pulls: %v", caps)
	}
	pullCl.open(uri, ".mt >\n")
	if ds := pullCl.pull(uri); len(ds) != 1 || ds[0].Code != "pact-syntax" {
		t.Errorf("pulled %+v", ds)
	}
	pullCl.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": ".mt > .x\n"}}})
	if ds := pullCl.pull(uri); len(ds) != 0 {
		t.Errorf("pulled after the fix %+v", ds)
	}
	time.Sleep(300 * time.Millisecond) // time enough for a push to arrive, were one sent
	if n := pullCl.pushes(uri); n != 0 {
		t.Errorf("a pull client received %d pushes", n)
	}

	pushCl := newClient(t, Options{})
	caps = pushCl.initializeWith(map[string]any{"textDocument": map[string]any{"synchronization": map[string]any{}}}, nil)
	if caps["diagnosticProvider"] != nil {
		t.Errorf("pull diagnostics advertised to a push-only client")
	}
	pushCl.open(uri, ".mt >\n")
	if ds := pushCl.waitDiagnostics(uri, 1); len(ds) != 1 {
		t.Errorf("pushed %+v", ds)
	}
}

// TestSettingsLive checks that the editor's dialect and rules settings
// change the diagnostics of open documents at once, over the document's
// .ctxql.yaml, and that a .ctxql.yaml change (edited in the editor, saved,
// or changed on disk) re-diagnoses them.
func TestSettingsLive(t *testing.T) {
	dir := t.TempDir()
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	c := newClient(t, Options{})
	c.initialize()
	c.open(uri, "[ttl<1]\n.cb:first-child:first-child\n")
	v2 := c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return len(ds) > 0 })
	if !slices.Contains(codes(v2), "pact-syntax") || !slices.Contains(codes(v2), "PACT001") {
		t.Fatalf("v2 diagnostics %+v", v2)
	}
	settings := func(s map[string]any) {
		c.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": s}})
	}
	// Rules: the finding goes, the syntax error stays.
	settings(map[string]any{"rules": map[string]any{"ignore": []string{"PACT001"}}})
	ds := c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return !slices.Contains(codes(ds), "PACT001") })
	if !slices.Contains(codes(ds), "pact-syntax") {
		t.Errorf("rule selection hid a syntax error: %+v", ds)
	}
	// Dialect: "[ttl<1]" is a v1 query.
	settings(map[string]any{"dialect": map[string]any{"default": "v1"}})
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return !slices.Contains(codes(ds), "pact-syntax") })

	// Back to no settings: the .ctxql.yaml decides.
	settings(map[string]any{"dialect": nil, "rules": map[string]any{"select": []string{}}})
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return slices.Contains(codes(ds), "pact-syntax") })
	cfg := filepath.Join(dir, ".ctxql.yaml")
	if err := os.WriteFile(cfg, []byte("dialect:\n  default: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.send("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": "file://" + cfg, "type": 2}}})
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return !slices.Contains(codes(ds), "pact-syntax") })

	// The .ctxql.yaml edited in the editor applies before it is saved.
	cfgURI := "file://" + filepath.ToSlash(cfg)
	c.open(cfgURI, "dialect:\n  default: v1\n")
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": cfgURI, "version": 2},
		"contentChanges": []any{map[string]any{"text": "dialect:\n  default: v2\n"}}})
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return slices.Contains(codes(ds), "pact-syntax") })
	// An invalid configuration is reported, not ignored silently.
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": cfgURI, "version": 3},
		"contentChanges": []any{map[string]any{"text": "dialect:\n  default: v7\n"}}})
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return slices.Contains(codes(ds), CodeConfig) })
}

// TestDataSettingLive checks that a change of the data setting applies to
// open documents without a restart: counts, runs and data diagnostics
// follow the new data.
func TestDataSettingLive(t *testing.T) {
	dir := t.TempDir()
	one := `{"root":{"id":"root","nodeType":"^root","children":[{"id":"a","nodeType":"cb","ttl":1}]}}`
	two := `{"root":{"id":"root","nodeType":"^root","children":[{"id":"a","nodeType":"cb","ttl":1},{"id":"b","nodeType":"cb","ttl":2}]}}`
	for name, data := range map[string]string{"one.json": one, "two.json": two} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	c := newClient(t, Options{})
	c.initializeWith(map[string]any{}, map[string]any{"data": map[string]any{"*.pact": filepath.Join(dir, "one.json")}})
	c.open(uri, ".cb\n")
	count := func() float64 {
		var res map[string]any
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
			"arguments": []any{uri, Range{}}}, &res)
		n, _ := res["count"].(float64)
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("count %v with one.json", n)
	}
	c.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{
		"data": map[string]any{"*.pact": filepath.Join(dir, "two.json")}}}})
	deadline := time.Now().Add(10 * time.Second)
	for count() != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the new data setting does not apply")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFormatHonoursDialect checks that document formatting parses a file
// without a pragma in the dialect of its .ctxql.yaml (or of the editor
// setting), as "ctxql fmt" does: a v1 file keeps its v1 meaning and a v1
// line such as "[ttl<1]" is not refused.
func TestFormatHonoursDialect(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".ctxql.yaml"), []byte("dialect:\n  default: v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{})
	c.initialize()
	format := func(uri string) ([]wireTextEdit, error) {
		var edits []wireTextEdit
		err := c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri},
			"options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
		return edits, err
	}
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	c.open(uri, ".mt .cb:summary\n[ttl<1]\n")
	edits, err := format(uri)
	if err != nil {
		t.Fatalf("formatting a valid v1 file: %v", err)
	}
	for _, e := range edits {
		if strings.Contains(e.NewText, " .summary") {
			t.Errorf("v1 .cb:summary rewritten as v2 .summary: %+v", edits)
		}
	}
	// The editor's dialect setting wins over .ctxql.yaml: in v2 the file
	// has a syntax error and is not formatted.
	c.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"dialect": map[string]any{"default": "v2"}}}})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := format(uri); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the editor's v2 setting does not apply to formatting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNestingDepth checks the bracket depth the server measures before
// parsing: strings hide their brackets, an apostrophe inside a word opens
// no string, and closing brackets in strings cannot hide nesting.
func TestNestingDepth(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{`{"a": [1, {"b": "((("}]}`, 3},
		{"where: {a: {b: 1}}", 2},
		{"{it's: {a: \"}\", b: {a: \"}\", b: {c: 1}}}}", 4},
		{"{a: \"x\n}}}\" , b: {c: {d: 1}}}", 3},
		{".mt[role='(('] > (.cb)", 1},
		{"p(x) <-- q(x, \")\"), r(x).", 1},
		{strings.Repeat("{a: ", 2000) + "1" + strings.Repeat("}", 2000), 1001},
	} {
		if got := nestingDepth(c.text, 1000); got != c.want {
			t.Errorf("nestingDepth(%.40q) = %d, want %d", c.text, got, c.want)
		}
	}
}

// TestWatchersRegistered checks that a client able to watch files for the
// server (VS Code) is asked to watch .ctxql.yaml files and sample data, so
// that their changes on disk reach the server.
func TestWatchersRegistered(t *testing.T) {
	c := newClient(t, Options{})
	c.initializeWith(map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for _, n := range c.notes {
			if n.Method == "client/registerCapability" {
				c.mu.Unlock()
				if !strings.Contains(string(n.Params), `"**/.ctxql.yaml"`) || !strings.Contains(string(n.Params), "workspace/didChangeWatchedFiles") {
					t.Errorf("registration %s", n.Params)
				}
				return
			}
		}
		c.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no watcher registration")
}

// TestDataFileChanged checks that a change of a document's sample data on
// disk, reported by the client's file watcher, re-diagnoses the document
// with the new data.
func TestDataFileChanged(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.json")
	write := func(role string) {
		text := `{"root":{"id":"root","nodeType":"^root","children":[{"id":"a","nodeType":"cb","role":"` + role + `"}]}}`
		if err := os.WriteFile(data, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("user")
	c := newClient(t, Options{})
	c.initialize()
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	c.open(uri, "// data: ./d.json\n.cb[role=assistant]\n")
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return slices.Contains(codes(ds), CodeNoMatch) })
	write("assistant-and-more")
	write("assistant")
	count := func() float64 {
		var res map[string]any
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
			"arguments": []any{uri, Range{Start: Position{Line: 1}, End: Position{Line: 1}}}}, &res)
		n, _ := res["count"].(float64)
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("count %v before the change is reported", n)
	}
	c.send("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": "file://" + filepath.ToSlash(data), "type": 2}}})
	deadline := time.Now().Add(10 * time.Second)
	for count() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the changed data does not apply")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.awaitDiags(uri, func(ds []wireDiagnostic) bool { return !slices.Contains(codes(ds), CodeNoMatch) })
}

// TestStepHintsSettingLive checks that the inlayHints.steps setting turns
// the step counts off and on again for open documents, that a client that
// accepts it is asked to refresh its inlay hints, and that the result
// count stays either way.
func TestStepHintsSettingLive(t *testing.T) {
	dir := t.TempDir()
	data := `{"root":{"id":"root","nodeType":"^root","children":[{"id":"seq","nodeType":"^seq","children":[{"id":"mt","nodeType":"mt","children":[]}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(dir) + "/q.pact"
	c := newClient(t, Options{})
	c.initializeWith(map[string]any{"workspace": map[string]any{"inlayHint": map[string]any{"refreshSupport": true}}}, nil)
	c.open(uri, "// data: ./d.json\n^seq .mt\n")
	c.waitDiagnostics(uri, 1)
	hints := func() string {
		var hs []struct {
			Position Position `json:"position"`
			Label    string   `json:"label"`
		}
		c.mustCall("textDocument/inlayHint", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": Range{End: Position{Line: 9}}}, &hs)
		var out []string
		for _, h := range hs {
			out = append(out, fmt.Sprintf("%d:%d %s", h.Position.Line, h.Position.Character, strings.TrimSpace(h.Label)))
		}
		return strings.Join(out, ", ")
	}
	refreshes := func() int { return c.received("workspace/inlayHint/refresh") }
	if got := hints(); got != "1:4 1 →, 1:8 → 1" {
		t.Fatalf("hints with the default settings: %s", got)
	}
	for i, on := range []bool{false, true} {
		c.send("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxql": map[string]any{"inlayHints": map[string]any{"steps": on}}}})
		deadline := time.Now().Add(10 * time.Second)
		for refreshes() < i+1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		want := "1:8 → 1"
		if on {
			want = "1:4 1 →, 1:8 → 1"
		}
		if got, n := hints(), refreshes(); got != want || n != i+1 {
			t.Errorf("steps %v: hints %s, want %s; %d refresh request(s)", on, got, want, n)
		}
	}
}
