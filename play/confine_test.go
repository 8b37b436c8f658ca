package play

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// secretTree is a PACT tree with marks no project file has: a page that
// receives any of them has read the file outside the project.
const secretTree = `{"root": {"id": "root", "children": [{"id": "seq", "nodeType": "^seq", "children": [
  {"id": "mt:S", "nodeType": "mt", "children": [{"id": "mc:S", "nodeType": "mc", "children": [
    {"id": "cb:SECRETID", "nodeType": "cb", "role": "user", "offset": 0, "ttl": 1, "content": "TOPSECRET"}]}]}]}]}}`

// secretMarks are the bytes of secretTree a leak would show.
var secretMarks = []string{"SECRETID", "TOPSECRET", "mt:S"}

// confinedCase is one way a page may name the file outside the project.
type confinedCase struct {
	name string
	// text is the query document (the data line in it, if any); typed is
	// what of the outside path the page itself wrote, which the page may
	// see again.
	text, typed string
	// settings are the "ctxql" settings of the page, if any.
	settings map[string]any
}

// confinedCases names the outside file as a data line at every line of a
// leading comment block from 2 to 40, by a relative path, an absolute
// path, a file: URI and a link out of the project, and in the settings.
func confinedCases(dir, outside string) []confinedCase {
	uri := fileURI(outside)
	var cs []confinedCase
	for line := 2; line <= 40; line++ {
		cs = append(cs, confinedCase{name: fmt.Sprintf("data line at line %d", line),
			text: strings.Repeat("// a comment\n", line-1) + "// data: ../secret.json\n^seq .mt .cb\n"})
	}
	for _, c := range []struct{ name, path string }{
		{"relative path", "../secret.json"},
		{"path through the project", "./q/../../secret.json"},
		{"absolute path", outside},
		{"file URI", uri},
		{"link out of the project", "q/link.json"},
		{"link by absolute path", filepath.Join(dir, "q", "link.json")},
	} {
		cs = append(cs, confinedCase{name: "data line, " + c.name, text: "// data: " + c.path + "\n^seq .mt .cb\n", typed: c.path})
		cs = append(cs, confinedCase{name: "setting, " + c.name, text: "^seq .mt .cb\n", typed: c.path,
			settings: map[string]any{"data": map[string]any{"*.pact": c.path}}})
	}
	cs = append(cs, confinedCase{name: "configuration above the project", text: "^seq .mt .cb\n"})
	cs = append(cs, confinedCase{name: "setting, pasted data name", text: "^seq .mt .cb\n", typed: "../../secret.json",
		settings: map[string]any{"data": map[string]any{"*.pact": "paste:../../secret.json"}}})
	return cs
}

// TestNothingOutsideTheProject runs a query whose sample data is a file
// outside the project, named in every way a page can name it, through the
// page's WebSocket: the page gets an error, no byte of the file and no
// path of it but what the page wrote itself. The same query over the same
// file inside the project shows the marks, so the check can see a leak.
func TestNothingOutsideTheProject(t *testing.T) {
	p := start(t, Budget{})
	outside := filepath.Join(filepath.Dir(p.dir), "secret.json")
	must(t, os.WriteFile(outside, []byte(secretTree), 0o644))
	must(t, os.WriteFile(filepath.Join(p.dir, "inside.json"), []byte(secretTree), 0o644))

	t.Run("inside", func(t *testing.T) {
		res, all := p.runIsolated(t, nil, "// data: inside.json\n^seq .mt .cb\n", 1)
		if !strings.Contains(all, "SECRETID") || res["count"] != float64(1) {
			t.Fatalf("the project's own copy of the data did not run: %v", res)
		}
	})
	// A configuration above the project is none of the page's business.
	must(t, os.WriteFile(filepath.Join(filepath.Dir(p.dir), ".ctxql.yaml"), []byte("data:\n  \"**\": secret.json\nrules: [TOPSECRET\n"), 0o644))
	for _, c := range confinedCases(p.dir, outside) {
		t.Run(c.name, func(t *testing.T) {
			res, all := p.runIsolated(t, c.settings, c.text, strings.Count(c.text, "\n")-1)
			if res["error"] == nil || res["error"] == "" {
				t.Errorf("the query ran: %v", res)
			}
			for _, m := range secretMarks {
				if strings.Contains(all, m) {
					t.Errorf("the page got %q of the file outside the project:\n%s", m, all)
				}
			}
			// What the page wrote may come back, as written or cleaned
			// (a file: URI in a data line is a name in the document's
			// directory, which does not exist).
			seen := all
			if c.typed != "" {
				seen = strings.ReplaceAll(seen, jsonText(c.typed), "")
				seen = strings.ReplaceAll(seen, jsonText(filepath.Clean(c.typed)), "")
			}
			// Paths of the project may come back; no other path under the
			// directory around it may.
			for _, name := range []string{jsonText(p.dir), jsonText(fileURI(p.dir))} {
				seen = strings.ReplaceAll(seen, name, "")
			}
			root := filepath.Dir(p.dir)
			for _, name := range []string{jsonText(root), jsonText(fileURI(root))} {
				if strings.Contains(seen, name) {
					t.Errorf("the page got a path outside the project (under %s):\n%s", name, all)
				}
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// runIsolated opens text as q.pact on a connection of its own with the
// given settings, runs its line, and returns the run's result and every
// message the page received (as JSON), waiting for the document's
// diagnostics.
func (p *playground) runIsolated(t *testing.T, settings map[string]any, text string, line int) (map[string]any, string) {
	t.Helper()
	// The pages of the cases before may still hold their slots while
	// their language servers stop: wait for one.
	var c *wsClient
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if c, err = p.tryDial(p.base, true); err == nil {
			c.t = t
			break
		} else if !strings.Contains(err.Error(), "503") || time.Now().After(deadline) {
			t.Fatalf("dial: %v", err)
		}
	}
	defer c.close()
	var all []string
	c.initialize(settings)
	uri := fileURI(filepath.Join(p.dir, "q.pact"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "pact", "version": 1, "text": text}})
	res := c.run(uri, line)
	diag := c.await(20*time.Second, "the diagnostics of "+uri, func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "textDocument/publishDiagnostics" && p["uri"] == uri
	})
	// Another request on the connection: whatever the server sent before
	// its answer has arrived.
	id := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": line, "character": 1}})
	c.response(id, 20*time.Second)
	for _, m := range append(c.seen, res, diag) {
		b, _ := json.Marshal(m)
		all = append(all, string(b))
	}
	return res, strings.Join(all, "\n")
}
