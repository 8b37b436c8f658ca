package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
)

// TestGolden runs the txtar cases under testdata/lsp. Each case opens the
// document in section "doc" (named by section "name", default test.pact)
// after an initialize offering the encodings in section "encodings" (one a
// line; none means UTF-16 only), then records the pushed diagnostics, the
// document symbols and the semantic tokens. A "change" section holds one
// JSON content change a line, sent as one incremental didChange; the
// diagnostics published for version 2 are recorded as
// "diagnostics-after-change" and the symbols (the text of each query) as
// "symbols-after-change".
// Each "@diag line:col-line:col message" line in an "expect" section must
// match a published diagnostic exactly.
func TestGolden(t *testing.T) {
	golden.Run(t, "../testdata/lsp/*.txtar", func(t *testing.T, c *golden.Case) {
		cl := newClient(t, Options{})
		var encs []string
		for _, l := range strings.Split(strings.TrimSpace(c.InputOr("encodings", "")), "\n") {
			if l != "" {
				encs = append(encs, l)
			}
		}
		caps := cl.initialize(encs...)
		c.Want("position-encoding", fmt.Sprintln(caps["positionEncoding"]))
		uri := "file:///w/" + strings.TrimSpace(c.InputOr("name", "test.pact"))
		cl.open(uri, c.Input("doc"))
		diags := cl.waitDiagnostics(uri, 1)
		c.Want("diagnostics", mustJSON(t, diags))
		if c.Has("expect") && strings.TrimSpace(c.Input("expect")) != "" {
			checkMarkers(t, c.Input("expect"), diags)
		}
		var syms json.RawMessage
		cl.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
		c.Want("symbols", indent(t, syms))
		if _, ok := caps["semanticTokensProvider"]; ok {
			var toks semanticTokens
			cl.mustCall("textDocument/semanticTokens/full", map[string]any{"textDocument": map[string]any{"uri": uri}}, &toks)
			c.Want("tokens", decodeTokens(toks.Data))
		}
		if c.Has("change") {
			var changes []json.RawMessage
			for _, l := range strings.Split(strings.TrimSpace(c.Input("change")), "\n") {
				changes = append(changes, json.RawMessage(l))
			}
			cl.send("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": 2},
				"contentChanges": changes,
			})
			c.Want("diagnostics-after-change", mustJSON(t, cl.waitDiagnostics(uri, 2)))
			var syms2 json.RawMessage
			cl.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms2)
			c.Want("symbols-after-change", indent(t, syms2))
		}
		if code := cl.shutdown(); code != 0 {
			t.Errorf("exit code %d after shutdown, want 0", code)
		}
	})
}

func indent(t *testing.T, raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, v)
}

// decodeTokens renders semantic token data as "line:char len type [mods]"
// lines with absolute positions.
func decodeTokens(data []uint32) string {
	var b strings.Builder
	line, char := 0, 0
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			line += int(data[i])
			char = int(data[i+1])
		} else {
			char += int(data[i+1])
		}
		fmt.Fprintf(&b, "%d:%d %d %s", line, char, data[i+2], tokenTypes[data[i+3]])
		for j, m := range tokenModifiers {
			if data[i+4]&(1<<j) != 0 {
				fmt.Fprintf(&b, " +%s", m)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkMarkers matches "@diag L:C-L:C message" lines (0-based, in the
// negotiated encoding) against diagnostics.
func checkMarkers(t *testing.T, expect string, diags []wireDiagnostic) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(expect), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "@diag ")
		if !ok {
			t.Fatalf("bad marker %q", l)
		}
		rng, msg, _ := strings.Cut(rest, " ")
		found := false
		for _, d := range diags {
			got := fmt.Sprintf("%d:%d-%d:%d", d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character)
			if got == rng && strings.Contains(d.Message, msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no diagnostic %s %q in %s", rng, msg, mustJSON(t, diags))
		}
	}
}
