package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/fileuri"
)

// testWorkspace writes a PACT query file, its data and a test file with a
// passing and a failing case into a temporary directory, and returns the
// directory and the test file's text.
func testWorkspace(t testing.TB) (dir, testText string) {
	t.Helper()
	dir = t.TempDir()
	testText = "data: tree.json\nfile: blocks.pact\ntests:\n" +
		"  - name: user blocks\n    line: 2\n    want: [cb:u1]\n" +
		"  - name: assistant blocks\n    line: 3\n    want: [cb:u1]\n"
	write := map[string]string{
		"tree.json": `{"root": {"id": "root", "children": [{"id": "mt:1", "nodeType": "mt", "children": [` +
			`{"id": "cb:u1", "nodeType": "cb", "role": "user"}, {"id": "cb:a1", "nodeType": "cb", "role": "assistant"}]}]}}`,
		"blocks.pact":           "// pact: v2\n.cb[role='user']\n.cb[role='assistant']\n",
		"blocks.ctxqltest.yaml": testText,
	}
	for name, text := range write {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, testText
}

// TestTestFileLenses checks that a test file gets "Run all tests" at the top
// and "Run test" on each case, with the arguments of CommandTest, and that
// the problems of the format are its diagnostics.
func TestTestFileLenses(t *testing.T) {
	dir, text := testWorkspace(t)
	c := newClient(t, Options{})
	caps := c.initialize()
	cmds, _ := caps["executeCommandProvider"].(map[string]any)["commands"].([]any)
	if !strings.Contains(mustJSON(t, cmds), CommandTest) {
		t.Errorf("executeCommandProvider commands %v lack %s", cmds, CommandTest)
	}
	uri := fileuri.FromPath(filepath.Join(dir, "blocks.ctxqltest.yaml"))
	c.open(uri, text)
	if ds := c.waitDiagnostics(uri, 1); len(ds) != 0 {
		t.Errorf("a valid test file has diagnostics: %s", mustJSON(t, ds))
	}
	var lenses []wireCodeLens
	c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses)
	type want struct {
		line  int
		title string
		args  string
	}
	wants := []want{
		{0, "▶ Run all tests (2)", `["` + uri + `"]`},
		{3, "▶ Run test", `["` + uri + `","user blocks"]`},
		{6, "▶ Run test", `["` + uri + `","assistant blocks"]`},
	}
	if len(lenses) != len(wants) {
		t.Fatalf("got %d lenses, want %d: %s", len(lenses), len(wants), mustJSON(t, lenses))
	}
	for i, w := range wants {
		l := lenses[i]
		b, _ := json.Marshal(l.Command.Arguments)
		args := string(b)
		if l.Range.Start.Line != w.line || l.Command.Title != w.title || l.Command.Command != CommandTest || args != w.args {
			t.Errorf("lens %d = line %d %q %s %s, want line %d %q %s %s", i, l.Range.Start.Line, l.Command.Title, l.Command.Command, args,
				w.line, w.title, CommandTest, w.args)
		}
	}

	bad := strings.Replace(text, "want: [cb:u1]\n", "wnat: [cb:u1]\n", 1)
	c.send("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": bad}}})
	ds := c.waitDiagnostics(uri, 2)
	if len(ds) == 0 || !strings.Contains(ds[0].Message, `unknown key "wnat"`) || ds[0].Range.Start.Line != 5 {
		t.Errorf("diagnostics of a test file with an unknown key: %s", mustJSON(t, ds))
	}
	c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses)
	if len(lenses) != 0 {
		t.Errorf("a test file with errors has lenses: %s", mustJSON(t, lenses))
	}
}

// TestRunTestCommand runs cases through CommandTest: a failing case is a
// diagnostic on its query (in a query file that is not open, and in one
// that is) and on the case, with the results added and removed; a passing
// run of the case clears both.
func TestRunTestCommand(t *testing.T) {
	dir, text := testWorkspace(t)
	c := newClient(t, Options{})
	c.initialize()
	testPath := filepath.Join(dir, "blocks.ctxqltest.yaml")
	uri := fileuri.FromPath(testPath)
	queryURI := fileuri.FromPath(filepath.Join(dir, "blocks.pact"))
	c.open(uri, text)
	c.waitDiagnostics(uri, 1)

	var res testRun
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandTest, "arguments": []any{uri, "assistant blocks"}}, &res)
	if res.Passed != 0 || res.Failed != 1 || len(res.Results) != 1 {
		t.Fatalf("running the failing case: %s", mustJSON(t, res))
	}
	r := res.Results[0]
	if r.Name != "assistant blocks" || r.Status != "fail" || r.Range.Start.Line != 6 || r.Query == nil ||
		r.Query.URI != queryURI || r.Query.Range.Start.Line != 2 ||
		mustJSON(t, r.Added) != "[\n  \"cb:a1\"\n]\n" || mustJSON(t, r.Removed) != "[\n  \"cb:u1\"\n]\n" {
		t.Errorf("result of the failing case: %s", mustJSON(t, r))
	}
	// The query file is not open: its diagnostic is pushed alone.
	qds := c.waitDiagnostics(queryURI, -1)
	if len(qds) != 1 || qds[0].Range.Start.Line != 2 || qds[0].Range.Start.Character != 0 || qds[0].Severity != 1 ||
		!strings.Contains(qds[0].Message, `test "assistant blocks" failed`) ||
		!strings.Contains(qds[0].Message, "\n+ cb:a1") || !strings.Contains(qds[0].Message, "\n- cb:u1") ||
		!strings.Contains(qds[0].Message, "blocks.ctxqltest.yaml:7") {
		t.Errorf("diagnostics on the query: %s", mustJSON(t, qds))
	}
	// The test file is open: it is diagnosed again, with the case's.
	tds := c.waitDiagnostics(uri, 1)
	if len(tds) != 1 || tds[0].Range.Start.Line != 6 || !strings.Contains(tds[0].Message, "results differ from want") {
		t.Errorf("diagnostics on the test file: %s", mustJSON(t, tds))
	}

	// With the query file open, running every case puts the failure
	// among its own diagnostics.
	c.open(queryURI, "// pact: v2\n.cb[role='user']\n.cb[role='assistant']\n")
	c.waitDiagnostics(queryURI, 1)
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandTest, "arguments": []any{uri}}, &res)
	if res.Passed != 1 || res.Failed != 1 || len(res.Results) != 2 || res.Results[0].Status != "pass" {
		t.Fatalf("running every case: %s", mustJSON(t, res))
	}
	qds = c.waitDiagnostics(queryURI, 1)
	if len(qds) != 1 || qds[0].Range.Start.Line != 2 || !strings.Contains(qds[0].Message, "assistant blocks") {
		t.Errorf("diagnostics on the open query file: %s", mustJSON(t, qds))
	}
	c.waitDiagnostics(uri, 1)

	// Fixed on disk, the case passes and its diagnostics go.
	fixed := strings.Replace(text, "line: 3\n    want: [cb:u1]", "line: 3\n    want: [cb:a1]", 1)
	if err := os.WriteFile(testPath, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandTest, "arguments": []any{uri, "assistant blocks"}}, &res)
	if res.Passed != 1 || res.Failed != 0 {
		t.Fatalf("running the fixed case: %s", mustJSON(t, res))
	}
	if qds := c.waitDiagnostics(queryURI, 1); len(qds) != 0 {
		t.Errorf("diagnostics on the query after the case passed: %s", mustJSON(t, qds))
	}
	if tds := c.waitDiagnostics(uri, 1); len(tds) != 0 {
		t.Errorf("diagnostics on the test file after the case passed: %s", mustJSON(t, tds))
	}

	// An unknown case and a file that is not a test file are refused with a message.
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandTest, "arguments": []any{uri, "nothing"}}, &res)
	if !strings.Contains(res.Error, `no case named "nothing"`) {
		t.Errorf("running an unknown case: %s", mustJSON(t, res))
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandTest, "arguments": []any{queryURI}}, &res)
	if !strings.Contains(res.Error, "not a query test file") {
		t.Errorf("running a query file as tests: %s", mustJSON(t, res))
	}
}
