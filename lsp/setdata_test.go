package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSetData runs ctxql.setData as an editor does: the server asks the
// editor to apply the data line (workspace/applyEdit), in the document's
// comment syntax, the path relative to the document, replacing an
// existing data line and going below a PACT dialect pragma; the edited
// text reads back as the document's data.
func TestSetData(t *testing.T) {
	for _, c := range []struct{ name, uri, text, data, want string }{
		{"pact", "file:///w/q/a.pact", ".cb\n", "/w/q/d.json", "// data: ./d.json\n.cb\n"},
		{"pact pragma", "file:///w/q/a.pact", "// pact: v1\n.cb\n", "/w/data/h.json", "// pact: v1\n// data: ../data/h.json\n.cb\n"},
		{"pact replaced", "file:///w/a.pact", "// pact: v1\n// a comment\n//data: ./old.json\n.cb\n", "/w/sub/new.yaml",
			"// pact: v1\n// a comment\n// data: ./sub/new.yaml\n.cb\n"},
		{"jql yaml", "file:///w/q.jql.yaml", "from: activities\n", "/w/y.json", "# data: ./y.json\nfrom: activities\n"},
		{"jql yaml replaced", "file:///w/q.jql.yaml", "# data: ./x.json\nfrom: activities\n", "/w/y.json", "# data: ./y.json\nfrom: activities\n"},
		{"datalog", "file:///w/r.dl", "path(x) <-- e(x);\n", "/w/d.jsonl", "// data: ./d.jsonl\npath(x) <-- e(x);\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, Options{})
			caps := cl.initialize()
			if cmds, _ := caps["executeCommandProvider"].(map[string]any)["commands"].([]any); !strings.Contains(mustJSON(t, cmds), CommandSetData) {
				t.Errorf("executeCommandProvider commands %v lack %s", cmds, CommandSetData)
			}
			cl.open(c.uri, c.text)
			var res setDataResult
			cl.mustCall("workspace/executeCommand", map[string]any{"command": CommandSetData, "arguments": []any{c.uri, c.data}}, &res)
			if !res.Applied || res.Error != "" {
				t.Fatalf("result %+v", res)
			}
			var p struct {
				Edit struct {
					Changes map[string][]wireTextEdit `json:"changes"`
				} `json:"edit"`
			}
			edits := cl.notesOf("workspace/applyEdit")
			if len(edits) != 1 {
				t.Fatalf("%d workspace/applyEdit requests, want 1", len(edits))
			}
			if err := json.Unmarshal(edits[0], &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Edit.Changes) != 1 {
				t.Fatalf("changes of %d documents: %+v", len(p.Edit.Changes), p.Edit.Changes)
			}
			got := applyWire(t, c.text, p.Edit.Changes[c.uri])
			if got != c.want {
				t.Errorf("edited text %q, want %q", got, c.want)
			}
		})
	}
}

// TestSetDataRefused answers and shows why no data line is written: a
// relative path, a document that is not open, missing arguments.
func TestSetDataRefused(t *testing.T) {
	cl := newClient(t, Options{})
	cl.initialize()
	cl.open("file:///w/a.pact", ".cb\n")
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{"file:///w/a.pact", "d.json"}, "absolute path"},
		{[]any{"file:///w/b.pact", "/w/d.json"}, "not open"},
		{[]any{"file:///w/a.pact"}, "needs the arguments [uri, path]"},
	} {
		var res setDataResult
		cl.mustCall("workspace/executeCommand", map[string]any{"command": CommandSetData, "arguments": c.args}, &res)
		if res.Applied || !strings.Contains(res.Error, c.want) {
			t.Errorf("%v: %+v, want an error with %q", c.args, res, c.want)
		}
	}
	if n := len(cl.notesOf("workspace/applyEdit")); n != 0 {
		t.Errorf("%d workspace/applyEdit requests, want none", n)
	}
}

// notesOf returns the params of the server's requests and notifications
// of a method, in order.
func (c *testClient) notesOf(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []json.RawMessage
	for _, n := range c.notes {
		if n.Method == method {
			out = append(out, n.Params)
		}
	}
	return out
}
