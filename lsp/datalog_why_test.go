package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatalogWhy checks the ctxql.why command (a proof tree for a derived
// tuple, the first failing body item of each rule for one that is not,
// both argument forms, the errors) and the "Explain this result" code
// action on a rule.
func TestDatalogWhy(t *testing.T) {
	dir := t.TempDir()
	data := `{"relations": {
  "rw_proc": {"param_types": ["Proc", "Proc"], "tuples": [["a","b"],["b","c"],["c","d"]]},
  "proc": {"param_types": ["Proc"], "tuples": [["a"],["b"],["c"],["d"]]}
}}`
	if err := os.WriteFile(filepath.Join(dir, "d.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{})
	c.initialize()
	uri := "file://" + filepath.ToSlash(dir) + "/p.dl"
	src := "// data: ./d.json\n" +
		"reach(x, y) <-- rw_proc(x, y);\n" +
		"reach(x, z) <-- reach(x, y), rw_proc(y, z);\n" +
		"nf(t, r) <-- reach(t, r), proc(r), !rw_proc(r, _), if t != r;\n"
	c.open(uri, src)
	c.waitDiagnostics(uri, 1)
	why := func(args ...any) whyResult {
		t.Helper()
		var res whyResult
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandWhy, "arguments": args}, &res)
		return res
	}
	name := FilePath(uri)
	res := why(uri, `nf("a", "d")`)
	want := `nf("a", "d")  by rule ` + name + `:4:1  nf(t, r) <-- reach(t, r), proc(r), !rw_proc(r, _), if t != r;` + "\n" +
		`  reach("a", "d")  by rule ` + name + `:3:1  reach(x, z) <-- reach(x, y), rw_proc(y, z);` + "\n" +
		`    reach("a", "c")  by rule ` + name + `:3:1  reach(x, z) <-- reach(x, y), rw_proc(y, z);` + "\n" +
		`      reach("a", "b")  by rule ` + name + `:2:1  reach(x, y) <-- rw_proc(x, y);` + "\n" +
		`        rw_proc("a", "b")  from the data` + "\n" +
		`      rw_proc("b", "c")  from the data` + "\n" +
		`    rw_proc("c", "d")  from the data` + "\n" +
		`  proc("d")  from the data` + "\n" +
		`  !rw_proc("d", _)  holds` + "\n" +
		`  if "a" != "d"  holds` + "\n"
	if !res.Derived || res.Error != "" || res.Relation != "nf" || strings.Join(res.Tuple, ",") != "a,d" || res.Text != want {
		t.Errorf("why nf(a, d): %+v\ntext:\n%s\nwant:\n%s", res, res.Text, want)
	}
	shown := false
	c.mu.Lock()
	for _, n := range c.notes {
		var m struct{ Message string }
		if n.Method == "window/showMessage" && json.Unmarshal(n.Params, &m) == nil && m.Message == want {
			shown = true
		}
	}
	c.mu.Unlock()
	if !shown {
		t.Error("the explanation was not shown with window/showMessage")
	}
	// A preview row: the relation and the tuple's values.
	res = why(uri, "reach", []string{"b", "d"})
	if !res.Derived || !strings.HasPrefix(res.Text, `reach("b", "d")  by rule `+name+":3:1") {
		t.Errorf("why reach(b, d): %+v", res)
	}
	res = why(uri, `nf("a", "c")`)
	if res.Derived || res.Error != "" || !strings.Contains(res.Text, `nf("a", "c") is not derived`) ||
		!strings.Contains(res.Text, `body item 3 at 4:36: !rw_proc("c", _): a matching tuple exists, so the negation fails`) {
		t.Errorf("why nf(a, c): %+v", res)
	}
	for _, bad := range [][]any{{uri}, {uri, "nf(x"}, {uri, `nope("a")`}, {"file:///not/open.dl", `nf("a", "c")`}} {
		if res := why(bad...); res.Error == "" || res.Text != "" {
			t.Errorf("why %v: %+v", bad, res)
		}
	}

	// The code action on the rule of nf explains its first result.
	var actions []map[string]json.RawMessage
	c.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range": Range{Start: Position{Line: 3, Character: 2}, End: Position{Line: 3, Character: 2}}, "context": map[string]any{"diagnostics": []any{}}}, &actions)
	found := false
	for _, a := range actions {
		var cmd wireCommand
		if json.Unmarshal(a["command"], &cmd) != nil || cmd.Command != CommandWhy {
			continue
		}
		found = true
		if !strings.HasPrefix(cmd.Title, "Explain this result: nf(") || len(cmd.Arguments) != 2 || cmd.Arguments[0] != uri {
			t.Errorf("action %+v", cmd)
		}
		var args []json.RawMessage
		b, _ := json.Marshal(cmd.Arguments)
		json.Unmarshal(b, &args)
		var r whyResult
		c.mustCall("workspace/executeCommand", map[string]any{"command": CommandWhy, "arguments": args}, &r)
		if !r.Derived || !strings.Contains(r.Text, "by rule") {
			t.Errorf("the action's command: %+v", r)
		}
	}
	if !found {
		t.Errorf("no explain action in %s", mustJSON(t, actions))
	}
	c.shutdown()
}
