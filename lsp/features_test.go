package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
)

// TestFeatures runs the marker cases under testdata/lsp-features. Each case
// opens the document in section "doc" (named by section "name", default
// test.pact) in a temporary directory holding the files of the sections
// "file:NAME" (sample data, referenced by a "// data: ./NAME" line), waits
// for its diagnostics and checks each line of section "expect". A
// "settings" section holds the JSON "ctxql" settings sent as
// initializationOptions.
//
//	@hover L:C text          the hover at L:C contains text
//	@nohover L:C             there is no hover at L:C
//	@complete L:C a b ...    the completions at L:C include the labels a, b, ...
//	@format                  formatting gives section "formatted"
//	@rangeformat L:C L:C     formatting that range gives section "range-formatted"
//	@lens I title            the I-th code lens (0-based) has a title containing title
//	@run L:C N               ctxql.run at L:C returns N results and pushes a preview
//	@emptied L:C L:C text    ctxql.run at the first L:C returns no results, emptied by the step
//	                         at the second L:C whose text is text
//	@inlay L:C label         an inlay hint at L:C reads label
//	@noinlay L:C             there is no inlay hint at L:C
//	@datadiag L:C message    a diagnostic at L:C (published after the data loads) contains message
//	@related L:C L:C message a diagnostic at the first L:C has related information at the second
//	                         (a range in the document) whose message contains message
//	@edit L:C text N         inserting text at L:C pushes a preview with N results
//	@def L:C P...            the definitions of the symbol at L:C start at the positions P
//	@refs L:C P...           its references (declaration included) start at P
//	@rename L:C name         renaming it gives section "renamed" ("@rename L:C name error": refused)
//	@nodiag CODE, @hasdiag CODE  the first published diagnostics lack / have a finding with CODE
//	@nodiagat L:C  the published diagnostics have none starting at L:C (0-based)
//	@diagat L:C CODE message  a published diagnostic at L:C has CODE and a message containing message
//	@folds L-L[c] ...        the folding ranges are exactly these line ranges ("c": kind comment)
//	@select L:C R...         the selection ranges at L:C, innermost first, are the ranges
//	                         R (L:C-L:C) and nothing else
//	@symbol query name@L ... workspace/symbol for query lists exactly the names (in this
//	                         document, starting on line L), "-" for none
//	@signature L:C label N   the signature help at L:C shows label with parameter N active
//	                         ("@signature L:C -": none)
//
// Positions are 0-based UTF-16.
func TestFeatures(t *testing.T) {
	golden.Run(t, "../testdata/lsp-features/*.txtar", func(t *testing.T, c *golden.Case) {
		dir := t.TempDir()
		for _, f := range c.Archive.Files {
			if name, ok := strings.CutPrefix(f.Name, "file:"); ok {
				c.Input(f.Name)
				if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		cl := newClient(t, Options{})
		if c.Has("settings") {
			var opts map[string]any
			if err := json.Unmarshal([]byte(c.Input("settings")), &opts); err != nil {
				t.Fatalf("settings: %v", err)
			}
			cl.initializeWith(map[string]any{}, opts)
		} else {
			cl.initialize()
		}
		uri := "file://" + filepath.ToSlash(dir) + "/" + strings.TrimSpace(c.InputOr("name", "test.pact"))
		doc := c.Input("doc")
		cl.open(uri, doc)
		diags := cl.waitDiagnostics(uri, 1)
		version := 1
		td := map[string]any{"uri": uri}
		for _, line := range strings.Split(strings.TrimSpace(c.Input("expect")), "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			pos := func(i int) Position {
				l, ch, ok := strings.Cut(f[i], ":")
				ln, err1 := strconv.Atoi(l)
				cn, err2 := strconv.Atoi(ch)
				if !ok || err1 != nil || err2 != nil {
					t.Fatalf("bad position in %q", line)
				}
				return Position{Line: ln, Character: cn}
			}
			rest := func(i int) string { return strings.Join(f[i:], " ") }
			switch f[0] {
			case "@hover", "@nohover":
				var h *struct {
					Contents markupContent `json:"contents"`
				}
				cl.mustCall("textDocument/hover", map[string]any{"textDocument": td, "position": pos(1)}, &h)
				if f[0] == "@nohover" {
					if h != nil {
						t.Errorf("%s: unexpected hover %q", line, h.Contents.Value)
					}
				} else if h == nil || !strings.Contains(h.Contents.Value, rest(2)) {
					t.Errorf("%s: hover %+v", line, h)
				}
			case "@complete":
				var items []wireCompletionItem
				cl.mustCall("textDocument/completion", map[string]any{"textDocument": td, "position": pos(1)}, &items)
				have := map[string]bool{}
				for _, it := range items {
					have[it.Label] = true
				}
				for _, want := range f[2:] {
					if !have[want] {
						t.Errorf("%s: no %q in %v", line, want, have)
					}
				}
			case "@format":
				var edits []wireTextEdit
				cl.mustCall("textDocument/formatting", map[string]any{"textDocument": td, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
				c.Want("formatted", applyWire(t, doc, edits))
			case "@rangeformat":
				var edits []wireTextEdit
				from, to := pos(1), pos(2)
				cl.mustCall("textDocument/rangeFormatting", map[string]any{"textDocument": td, "range": Range{Start: from, End: to},
					"options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
				c.Want("range-formatted", applyWire(t, doc, edits))
			case "@lens":
				var lenses []wireCodeLens
				cl.mustCall("textDocument/codeLens", map[string]any{"textDocument": td}, &lenses)
				i, _ := strconv.Atoi(f[1])
				if i >= len(lenses) || !strings.Contains(lenses[i].Command.Title, rest(2)) {
					t.Errorf("%s: lenses %+v", line, lenses)
				} else if lenses[i].Command.Command != CommandRun || len(lenses[i].Command.Arguments) != 2 {
					t.Errorf("%s: lens command %+v", line, lenses[i].Command)
				}
			case "@run":
				var res previewParams
				p := pos(1)
				cl.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
					"arguments": []any{uri, Range{Start: p, End: p}}}, &res)
				want, _ := strconv.Atoi(f[2])
				if res.Count != want || len(res.Results) != want || res.Error != "" {
					t.Errorf("%s: run gave count %d, %d results, error %q", line, res.Count, len(res.Results), res.Error)
				}
				pre := cl.waitPreview(uri)
				if pre.Count != want || pre.Range.Start.Line != p.Line {
					t.Errorf("%s: preview %+v", line, pre)
				}
			case "@emptied":
				var res previewParams
				p := pos(1)
				cl.mustCall("workspace/executeCommand", map[string]any{"command": CommandRun,
					"arguments": []any{uri, Range{Start: p, End: p}}}, &res)
				if e := res.EmptiedBy; res.Count != 0 || e == nil || e.Range.Start != pos(2) || e.Text != rest(3) {
					t.Errorf("%s: run gave count %d, emptiedBy %+v", line, res.Count, e)
				}
				cl.waitPreview(uri)
			case "@inlay", "@noinlay":
				var hints []struct {
					Position Position `json:"position"`
					Label    string   `json:"label"`
				}
				end := Position{Line: 1000}
				cl.mustCall("textDocument/inlayHint", map[string]any{"textDocument": td, "range": Range{End: end}}, &hints)
				p, found, at := pos(1), false, false
				for _, h := range hints {
					if h.Position == p {
						at = true
						if f[0] == "@inlay" && strings.TrimSpace(h.Label) == rest(2) {
							found = true
						}
					}
				}
				if (f[0] == "@inlay" && !found) || (f[0] == "@noinlay" && at) {
					t.Errorf("%s: hints %+v", line, hints)
				}
			case "@related":
				p, rp, found := pos(1), pos(2), false
				deadline := time.Now().Add(10 * time.Second)
				for !found && time.Now().Before(deadline) {
					for _, d := range diags {
						for _, r := range d.RelatedInformation {
							if d.Range.Start == p && r.Location.URI == uri && r.Location.Range.Start == rp && strings.Contains(r.Message, rest(3)) {
								found = true
							}
						}
					}
					if !found {
						diags = cl.waitDiagnostics(uri, version)
					}
				}
				if !found {
					t.Errorf("%s: diagnostics %s", line, mustJSON(t, diags))
				}
			case "@datadiag":
				p, found := pos(1), false
				deadline := time.Now().Add(10 * time.Second)
				for !found && time.Now().Before(deadline) {
					for _, d := range diags {
						if d.Range.Start == p && strings.Contains(d.Message, rest(2)) {
							found = true
						}
					}
					if !found {
						diags = cl.waitDiagnostics(uri, version)
					}
				}
				if !found {
					t.Errorf("%s: diagnostics %s", line, mustJSON(t, diags))
				}
			case "@nodiagat":
				for _, d := range diags {
					if d.Range.Start == pos(1) {
						t.Errorf("%s: diagnostics %s", line, mustJSON(t, diags))
					}
				}
			case "@nodiag", "@hasdiag":
				found := false
				for _, d := range diags {
					if d.Code == f[1] {
						found = true
					}
				}
				if found != (f[0] == "@hasdiag") {
					t.Errorf("%s: diagnostics %s", line, mustJSON(t, diags))
				}
			case "@edit":
				p := pos(1)
				version++
				cl.send("textDocument/didChange", map[string]any{
					"textDocument":   map[string]any{"uri": uri, "version": version},
					"contentChanges": []any{map[string]any{"range": Range{Start: p, End: p}, "text": f[2]}},
				})
				want, _ := strconv.Atoi(f[3])
				if pre := cl.waitPreview(uri); pre.Count != want || pre.Range.Start.Line != p.Line {
					t.Errorf("%s: preview %+v", line, pre)
				}
			case "@def", "@refs":
				var locs []Location
				method, params := "textDocument/definition", map[string]any{"textDocument": td, "position": pos(1)}
				if f[0] == "@refs" {
					method, params["context"] = "textDocument/references", map[string]any{"includeDeclaration": true}
				}
				cl.mustCall(method, params, &locs)
				var got []string
				for _, l := range locs {
					got = append(got, fmt.Sprintf("%d:%d", l.Range.Start.Line, l.Range.Start.Character))
				}
				if strings.Join(got, " ") != rest(2) {
					t.Errorf("%s: got %v", line, got)
				}
			case "@rename":
				var we struct {
					Changes map[string][]wireTextEdit `json:"changes"`
				}
				err := cl.call("textDocument/rename", map[string]any{"textDocument": td, "position": pos(1), "newName": f[2]}, &we)
				if len(f) > 3 && f[3] == "error" {
					if err == nil {
						t.Errorf("%s: rename allowed", line)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				c.Want("renamed", applyWire(t, doc, we.Changes[uri]))
			case "@diagat":
				found := false
				for _, d := range diags {
					if d.Range.Start == pos(1) && d.Code == f[2] && strings.Contains(d.Message, rest(3)) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: diagnostics %s", line, mustJSON(t, diags))
				}
			case "@folds":
				var folds []wireFoldingRange
				cl.mustCall("textDocument/foldingRange", map[string]any{"textDocument": td}, &folds)
				var got []string
				for _, fr := range folds {
					g := fmt.Sprintf("%d-%d", fr.StartLine, fr.EndLine)
					if fr.Kind == "comment" {
						g += "c"
					}
					got = append(got, g)
				}
				if strings.Join(got, " ") != rest(1) {
					t.Errorf("%s: folds %v", line, got)
				}
			case "@select":
				var sel []wireSelectionRange
				cl.mustCall("textDocument/selectionRange", map[string]any{"textDocument": td, "positions": []Position{pos(1)}}, &sel)
				var got []string
				for r := &sel[0]; r != nil; r = r.Parent {
					got = append(got, fmt.Sprintf("%d:%d-%d:%d", r.Range.Start.Line, r.Range.Start.Character, r.Range.End.Line, r.Range.End.Character))
				}
				if len(sel) != 1 || strings.Join(got, " ") != rest(2) {
					t.Errorf("%s: selection ranges %v", line, got)
				}
			case "@symbol":
				var syms []wireSymbolInformation
				cl.mustCall("workspace/symbol", map[string]any{"query": strings.Trim(f[1], `"`)}, &syms)
				var got []string
				for _, y := range syms {
					if y.Location.URI != uri {
						t.Errorf("%s: symbol %+v of another document", line, y)
					}
					got = append(got, fmt.Sprintf("%s@%d", y.Name, y.Location.Range.Start.Line))
				}
				if want := rest(2); strings.Join(got, " ") != want && !(want == "-" && len(got) == 0) {
					t.Errorf("%s: symbols %v", line, got)
				}
			case "@signature":
				var h *wireSignatureHelp
				cl.mustCall("textDocument/signatureHelp", map[string]any{"textDocument": td, "position": pos(1)}, &h)
				if f[2] == "-" {
					if h != nil {
						t.Errorf("%s: unexpected signature %+v", line, h)
					}
					continue
				}
				want, _ := strconv.Atoi(f[len(f)-1])
				label := strings.Join(f[2:len(f)-1], " ")
				if h == nil || len(h.Signatures) != 1 || h.Signatures[0].Label != label || h.ActiveParameter != want {
					t.Errorf("%s: signature help %+v", line, h)
				} else {
					// Each parameter's label offsets name one of the label's types.
					sig := h.Signatures[0]
					for _, p := range sig.Parameters {
						if p.Label[0] >= p.Label[1] || p.Label[1] > len(sig.Label) || strings.ContainsAny(sig.Label[p.Label[0]:p.Label[1]], "(), ") {
							t.Errorf("%s: parameter %v of %q", line, p.Label, sig.Label)
						}
					}
				}
			default:
				t.Fatalf("unknown marker %q", line)
			}
		}
		if code := cl.shutdown(); code != 0 {
			t.Errorf("exit code %d after shutdown, want 0", code)
		}
	})
}

// waitPreview waits for the next ctxql/preview notification for uri.
func (c *testClient) waitPreview(uri string) previewParams {
	c.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		for i, n := range c.notes {
			if n.Method != MethodPreview {
				continue
			}
			var p previewParams
			if err := json.Unmarshal(n.Params, &p); err != nil {
				c.mu.Unlock()
				c.t.Fatalf("bad preview %s: %v", n.Params, err)
			}
			if p.URI == uri {
				c.notes = append(c.notes[:i:i], c.notes[i+1:]...)
				c.mu.Unlock()
				return p
			}
		}
		c.mu.Unlock()
		select {
		case <-c.notify:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			c.mu.Lock()
			var got []string
			for _, n := range c.notes {
				got = append(got, n.Method)
			}
			c.mu.Unlock()
			c.t.Fatalf("no %s for %s; notifications: %v", MethodPreview, uri, got)
		}
	}
}

// applyWire applies UTF-16 text edits to text.
func applyWire(t *testing.T, text string, edits []wireTextEdit) string {
	t.Helper()
	f := syntax.NewFile("edit", text)
	type e struct {
		start, end int
		text       string
	}
	var es []e
	for _, w := range edits {
		es = append(es, e{f.OffsetUTF16(syntax.UTF16Pos(w.Range.Start)), f.OffsetUTF16(syntax.UTF16Pos(w.Range.End)), w.NewText})
	}
	for i := len(es) - 1; i >= 0; i-- {
		text = text[:es[i].start] + es[i].text + text[es[i].end:]
	}
	return text
}
