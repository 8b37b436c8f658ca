package lsp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPACTCodeActions checks the code actions on a legacy token: the rule's
// fix as the preferred quick fix, a suppression directive for its line, and
// "fix all" rewriting the file; an unsafe fix is offered but not preferred.
func TestPACTCodeActions(t *testing.T) {
	cl := newClient(t, Options{})
	cl.initialize()
	uri := "file:///w/q.pact"
	cl.open(uri, ".block:summary\n(d1, seg, cont[offset=0])\n")
	diags := cl.waitDiagnostics(uri, 1)
	if b, _ := json.Marshal(diags); !strings.Contains(string(b), `"PACT001"`) || !strings.Contains(string(b), `"tags":[2]`) {
		t.Fatalf("diagnostics lack PACT001 with the deprecated tag: %s", b)
	}
	actions := func(line, char int) []map[string]any {
		var out []map[string]any
		cl.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"range":        map[string]any{"start": map[string]any{"line": line, "character": char}, "end": map[string]any{"line": line, "character": char}},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &out)
		return out
	}
	got := map[string]map[string]any{}
	for _, a := range actions(0, 1) {
		got[a["title"].(string)] = a
	}
	fix, ok := got["replace with .summary"]
	if !ok || fix["isPreferred"] != true || fix["kind"] != "quickfix" {
		t.Fatalf("no preferred quick fix: %v", got)
	}
	if e := edits(t, fix, uri); len(e) != 1 || e[0]["newText"] != ".summary" {
		t.Errorf("quick fix edits %v", e)
	}
	sup, ok := got["Suppress PACT001 on this line"]
	if !ok || edits(t, sup, uri)[0]["newText"] != " // ctxql:ignore PACT001 -- reason" {
		t.Errorf("suppression action: %v", sup)
	}
	all, ok := got["Fix all safe ctxql findings in the file"]
	if !ok || all["kind"] != "source.fixAll" || edits(t, all, uri)[0]["newText"] != ".summary\n(d1, seg, cont[offset=0])\n" {
		t.Errorf("fix all: %v", all)
	}
	var unsafe map[string]any
	for _, a := range actions(1, 12) {
		if strings.HasSuffix(a["title"].(string), "(may change the result)") {
			unsafe = a
		}
	}
	if unsafe == nil || unsafe["isPreferred"] == true {
		t.Errorf("unsafe fix not offered as a non-preferred action: %v", unsafe)
	}
}

func edits(t *testing.T, action map[string]any, uri string) []map[string]any {
	t.Helper()
	b, _ := json.Marshal(action["edit"])
	var e struct {
		Changes map[string][]map[string]any `json:"changes"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e.Changes[uri]
}

// TestMigrateCodeAction checks "Migrate file to v2" on a v1 file: its edits
// turn the file into the v2 text `ctxql migrate --to v2` writes.
func TestMigrateCodeAction(t *testing.T) {
	cl := newClient(t, Options{})
	cl.initialize()
	uri := "file:///w/v1.pact"
	src := "// pact: v1\n.cb:summary\n#cb:u2\n"
	cl.open(uri, src)
	cl.waitDiagnostics(uri, 1)
	var out []map[string]any
	cl.mustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 1, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &out)
	for _, a := range out {
		if a["title"] == "Migrate file to v2" {
			var we []wireTextEdit
			b, _ := json.Marshal(edits(t, a, uri))
			if err := json.Unmarshal(b, &we); err != nil {
				t.Fatal(err)
			}
			if got := applyWire(t, src, we); got != "// pact: v2\n*[nodeType='cb:summary']\n*[id='cb:u2']\n" || a["kind"] != "source.migrate" {
				t.Fatalf("migrated to %q (kind %v)", got, a["kind"])
			}
			return
		}
	}
	t.Fatalf("no migrate action in %v", out)
}

// TestJQLAndDatalogCodeActions checks the rules' quick fixes in the other
// languages: JQL's did-you-mean for a misspelled field, and Datalog's rename
// of a singleton variable; JSON has no comments, so no suppression there.
func TestJQLAndDatalogCodeActions(t *testing.T) {
	cl := newClient(t, Options{})
	cl.initialize()
	titles := func(uri, text string, line, char int) map[string]map[string]any {
		cl.open(uri, text)
		cl.waitDiagnostics(uri, 1)
		var out []map[string]any
		cl.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"range":        map[string]any{"start": map[string]any{"line": line, "character": char}, "end": map[string]any{"line": line, "character": char}},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &out)
		got := map[string]map[string]any{}
		for _, a := range out {
			got[a["title"].(string)] = a
		}
		return got
	}
	jq := titles("file:///w/q.jql", `{"from": "sessions", "where": {"titel": "x"}}`+"\n", 0, 33)
	var fix map[string]any
	for title, a := range jq {
		if strings.Contains(title, "title") && a["kind"] == "quickfix" {
			fix = a
		}
		if strings.HasPrefix(title, "Suppress") {
			t.Errorf("suppression offered in JSON: %q", title)
		}
	}
	if fix == nil {
		t.Fatalf("no did-you-mean fix: %v", jq)
	}
	dl := titles("file:///w/p.dl", "relation e(i32, i32);\np(x) <-- e(x, y);\n", 1, 15)
	found := false
	for title, a := range dl {
		if strings.Contains(title, "_y") && a["kind"] == "quickfix" {
			found = true
		}
	}
	if _, ok := dl["Suppress DL008 on this line"]; !ok || !found {
		t.Fatalf("Datalog actions: %v", dl)
	}
	// No suppression for an error that makes the query invalid: the
	// evaluator refuses the query whatever a directive says.
	pq := titles("file:///w/q.pact", ".mt:nth(0)\n", 0, 5)
	for title := range pq {
		if strings.HasPrefix(title, "Suppress") {
			t.Errorf("suppression offered for a check error: %q", title)
		}
	}
}

// TestQuickFixOnly checks that a request for quick fixes only
// (context.only ["quickfix"], as VS Code sends for the light bulb of a
// diagnostic) gets no fix-all or migration, that "source" gets those and
// no quick fixes, and that the Datalog parser's ':-' → '<--' fix is offered
// as a quick fix.
func TestQuickFixOnly(t *testing.T) {
	cl := newClient(t, Options{})
	cl.initialize()
	actions := func(uri string, line, char int, only ...string) []map[string]any {
		ctx := map[string]any{"diagnostics": []any{}}
		if only != nil {
			ctx["only"] = only
		}
		var out []map[string]any
		cl.mustCall("textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"range":        map[string]any{"start": map[string]any{"line": line, "character": char}, "end": map[string]any{"line": line, "character": char}},
			"context":      ctx,
		}, &out)
		return out
	}
	uri := "file:///w/q.pact"
	cl.open(uri, ".block:summary\n")
	cl.waitDiagnostics(uri, 1)
	all := actions(uri, 0, 1)
	kinds := map[string]int{}
	for _, a := range all {
		kinds[a["kind"].(string)]++
	}
	if kinds["quickfix"] == 0 || kinds["source.fixAll"] == 0 {
		t.Fatalf("without only: %v", all)
	}
	for _, a := range actions(uri, 0, 1, "quickfix") {
		if a["kind"] != "quickfix" {
			t.Errorf("only quickfix gave %v", a)
		}
	}
	src := actions(uri, 0, 1, "source")
	if len(src) == 0 {
		t.Error("only source gave nothing")
	}
	for _, a := range src {
		if a["kind"] == "quickfix" {
			t.Errorf("only source gave %v", a)
		}
	}
	dl := "file:///w/p.dl"
	cl.open(dl, "relation e(i32);\np(x) :- e(x).\n")
	cl.waitDiagnostics(dl, 1)
	var fix map[string]any
	for _, a := range actions(dl, 1, 5, "quickfix") {
		if strings.Contains(a["title"].(string), "<--") {
			fix = a
		}
	}
	if fix == nil {
		t.Fatal("no ':-' quick fix")
	}
	edits := fix["edit"].(map[string]any)["changes"].(map[string]any)[dl].([]any)
	if e := edits[0].(map[string]any); e["newText"] != "<--" {
		t.Errorf("fix edit %v", e)
	}
}
