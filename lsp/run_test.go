package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// messages returns the window/showMessage notifications received so far.
func (c *testClient) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.notes {
		if n.Method == "window/showMessage" {
			var p struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(n.Params, &p)
			out = append(out, p.Message)
		}
	}
	return out
}

// TestNoSampleData checks the path of a document without sample data: a
// "choose sample data" lens above its first query, and a run that answers
// (no failed request) with a message saying what is missing, shown in the
// editor; a run where there is no query says so too.
func TestNoSampleData(t *testing.T) {
	c := newClient(t, Options{})
	c.initialize()
	uri := "file:///nowhere/w/q.pact"
	c.open(uri, "// a comment\n.mt\n.cb\n")
	c.waitDiagnostics(uri, 1)
	var lenses []wireCodeLens
	c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses)
	if len(lenses) != 1 || lenses[0].Command.Command != CommandChooseData || !strings.Contains(lenses[0].Command.Title, "choose sample data") ||
		lenses[0].Range.Start.Line != 1 || lenses[0].Command.Arguments[0] != uri {
		t.Fatalf("lenses without data: %+v", lenses)
	}
	var h struct {
		Contents markupContent `json:"contents"`
	}
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": Position{Line: 1, Character: 1}}, &h)
	if !strings.Contains(h.Contents.Value, "MessageTurn") || !strings.Contains(h.Contents.Value, "No sample data") {
		t.Errorf("hover without data: %q", h.Contents.Value)
	}
	var res previewParams
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
		"arguments": []any{uri, Range{Start: Position{Line: 1}, End: Position{Line: 1}}}}, &res)
	if !strings.Contains(res.Error, "No sample data for q.pact") || !strings.Contains(res.Error, "// data:") {
		t.Errorf("run without data answered %+v", res)
	}
	// The editor runs the lens's command on the server when it has none
	// of its own: it explains how to choose data.
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandChooseData, "arguments": []any{uri}}, &res)
	dir := t.TempDir()
	data := filepath.Join(dir, "d.json")
	if err := os.WriteFile(data, []byte(`{"root":{"id":"r","nodeType":"^root","children":[]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	uri2 := "file://" + filepath.ToSlash(dir) + "/r.pact"
	c.open(uri2, "// data: ./d.json\n.mt\n")
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
		"arguments": []any{uri2, Range{Start: Position{Line: 0}, End: Position{Line: 0}}}}, &res)
	if !strings.Contains(res.Error, "No query at line 1 of r.pact") {
		t.Errorf("run off a query answered %+v", res)
	}
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
		"arguments": []any{"file:///nowhere/closed.pact", Range{}}}, &res)
	if !strings.Contains(res.Error, "not open") {
		t.Errorf("run of a closed document answered %+v", res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(c.messages()) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	msgs := c.messages()
	if len(msgs) != 4 || !strings.Contains(msgs[0], "No sample data for q.pact") || !strings.Contains(msgs[1], "No sample data") ||
		!strings.Contains(msgs[2], "No query at line 1") || !strings.Contains(msgs[3], "not open") {
		t.Errorf("messages shown: %q", msgs)
	}
}

// TestResultShapes checks what a results table needs: PACT runs carry a
// summary of each node (id, type, depth, role, kind, content preview) and
// Datalog runs the relation's column names and types, besides the results
// older clients read.
func TestResultShapes(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("word ", 40)
	files := map[string]string{
		"s.json": `{"root":{"id":"root","nodeType":"^root","children":[{"id":"seq","nodeType":"^seq","children":[
		  {"id":"cb:1","nodeType":"cb","role":"user","kind":"text","content":"hello\nworld"},
		  {"id":"cb:2","nodeType":"cb","role":"assistant","content":"` + long + `"}]}]}}`,
		"d.json": `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [["a","b"],["b","c"]]}}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newClient(t, Options{})
	c.initialize()
	pq := "file://" + filepath.ToSlash(dir) + "/q.pact"
	c.open(pq, "// data: ./s.json\n.cb\n")
	var res previewParams
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
		"arguments": []any{pq, Range{Start: Position{Line: 1}, End: Position{Line: 1}}}}, &res)
	want := []NodeSummary{
		{ID: "cb:1", NodeType: "cb", Depth: 2, Role: "user", Kind: "text", Preview: "hello world"},
		{ID: "cb:2", NodeType: "cb", Depth: 2, Role: "assistant", Preview: strings.TrimSpace(strings.Repeat("word ", 16)) + "…"},
	}
	if res.Count != 2 || len(res.Results) != 2 || res.Results[0] != "cb:1" {
		t.Errorf("PACT results %+v", res)
	}
	if got, _ := json.Marshal(res.Nodes); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("PACT nodes\n got %s\nwant %s", got, must(json.Marshal(want)))
	}
	dq := "file://" + filepath.ToSlash(dir) + "/p.dl"
	c.open(dq, "// data: ./d.json\npath(x, y) <-- edge(x, y);\npath(x, z) <-- edge(x, y), path(y, z);\n")
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
		"arguments": []any{dq, Range{Start: Position{Line: 1}, End: Position{Line: 1}}}}, &res)
	if res.Relation != "path" || len(res.Columns) != 2 || res.Columns[0] != (Column{Name: "x", Type: "Node"}) || res.Columns[1] != (Column{Name: "y", Type: "Node"}) || res.Count != 3 {
		t.Errorf("Datalog result %+v", res)
	}
	// The second rule's run names the columns after its own head.
	c.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
		"arguments": []any{dq, Range{Start: Position{Line: 2}, End: Position{Line: 2}}}}, &res)
	if res.Relation != "path" || len(res.Columns) != 2 || res.Columns[0] != (Column{Name: "x", Type: "Node"}) || res.Columns[1] != (Column{Name: "z", Type: "Node"}) || res.Count != 3 {
		t.Errorf("Datalog result of the second rule %+v", res)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestDerivesNothingRelated checks that a Datalog "derives nothing"
// diagnostic points, as related information, at the first body item that
// matches nothing: an atom over an empty relation, an atom that joins
// nothing, a condition no tuple satisfies.
func TestDerivesNothingRelated(t *testing.T) {
	dir := t.TempDir()
	data := `{"relations": {"edge": {"param_types": ["Node", "Node"], "tuples": [["a","b"],["b","c"],["c","d"]]},
	  "empty": {"param_types": ["Node"], "tuples": []}}}`
	if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{})
	c.initialize()
	uri := "file://" + filepath.ToSlash(dir) + "/p.dl"
	src := "// data: ./d.json\n" +
		"path(x, y) <-- edge(x, y);\n" +
		"back(x) <-- path(x, y), edge(y, x);\n" +
		"cond(x) <-- edge(x, y), if x == \"zz\";\n" +
		"none(x) <-- edge(x, y), empty(y);\n"
	c.open(uri, src)
	ds := c.awaitDiags(uri, func(ds []wireDiagnostic) bool {
		n := 0
		for _, d := range ds {
			if d.Code == CodeNoMatch {
				n++
			}
		}
		return n == 3
	})
	want := map[string]struct {
		line, char int
		msg        string
	}{
		"back": {2, 24, "no tuple of edge joins"},
		"cond": {3, 24, "no tuple matches the rule's body up to here"},
		"none": {4, 24, "empty holds no tuple"},
	}
	for _, d := range ds {
		if d.Code != CodeNoMatch {
			continue
		}
		name := strings.Fields(d.Message)[0]
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected %s", d.Message)
			continue
		}
		if len(d.RelatedInformation) != 1 {
			t.Errorf("%s: related %+v", name, d.RelatedInformation)
			continue
		}
		r := d.RelatedInformation[0]
		if r.Location.URI != uri || r.Location.Range.Start != (Position{Line: w.line, Character: w.char}) || !strings.Contains(r.Message, w.msg) {
			t.Errorf("%s: related %+v, want %d:%d %q", name, r, w.line, w.char, w.msg)
		}
	}
}
