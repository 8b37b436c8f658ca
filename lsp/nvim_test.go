package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/internal/nvimtest"
)

// nvimScript drives Neovim's built-in LSP client (the Neovim 0.7 API, also
// available in later versions): it starts the server, opens the .pact file,
// waits for pushed diagnostics, asks for document symbols and a hover
// synchronously, formats a second file and applies the edits, stops the
// client and writes what it saw as JSON.
const nvimScript = `
local result = {}
local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CTXQL_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "ctxql",
    cmd = {os.getenv("CTXQL_LSP")},
    root_dir = vim.fn.fnamemodify(os.getenv("CTXQL_FILE"), ":h"),
  })
  vim.lsp.buf_attach_client(buf, id)
  result.got_diagnostics = vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  local diags = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(diags, {lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source,
      code = (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or vim.NIL})
  end
  result.diagnostics = diags
  local res = vim.lsp.buf_request_sync(buf, "textDocument/documentSymbol",
    {textDocument = vim.lsp.util.make_text_document_params(buf)}, 15000)
  local syms = {}
  for _, r in pairs(res or {}) do
    for _, s in ipairs(r.result or {}) do
      table.insert(syms, {name = s.name, kind = s.kind, line = s.range.start.line,
        character = s.range.start.character, end_character = s.range["end"].character})
    end
  end
  result.symbols = syms
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover",
    {textDocument = vim.lsp.util.make_text_document_params(buf), position = {line = 1, character = 2}}, 15000)
  for _, r in pairs(hover or {}) do
    if r.result and r.result.contents then
      result.hover = vim.split(r.result.contents.value, "\n")[1]
      result.hover_line = r.result.range.start.line
    end
  end
  -- Formatting: a second, clean but unformatted file.
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CTXQL_FMT")))
  local fbuf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(fbuf, id)
  local edits = vim.lsp.buf_request_sync(fbuf, "textDocument/formatting",
    {textDocument = vim.lsp.util.make_text_document_params(fbuf), options = {tabSize = 2, insertSpaces = true}}, 15000)
  for _, r in pairs(edits or {}) do
    if r.result then vim.lsp.util.apply_text_edits(r.result, fbuf, "utf-16") end
  end
  result.formatted = vim.api.nvim_buf_get_lines(fbuf, 0, -1, false)
  local client = vim.lsp.get_client_by_id(id)
  client.stop()
  result.stopped = vim.wait(15000, function() return client.is_stopped() end, 20)
end)
if not ok then result.error = tostring(err) end
vim.fn.writefile({vim.fn.json_encode(result)}, os.getenv("CTXQL_OUT"))
vim.cmd("qa!")
`

// TestNeovim runs the server under a real client, Neovim headless.
func TestNeovim(t *testing.T) {
	nvim := nvimtest.Find(t)
	dir := t.TempDir()
	server := nvimtest.Build(t, dir, "github.com/ctxql/ctxql/cmd/lsp", "ctxql-lsp")
	file := filepath.Join(dir, "q.pact")
	// Line 2 has non-ASCII text before the error: Neovim converts the
	// server's UTF-16 columns to byte columns (é is 2 bytes, 😀 4).
	src := "// pact: v2\n.mt[role=user]\n.mt[role=\"é😀\"] >> .cb\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fmtFile := filepath.Join(dir, "f.pact")
	if err := os.WriteFile(fmtFile, []byte(".seg>.block:summary  // é😀\n(d2,0) .note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := nvimtest.Run(t, nvim, dir, nvimScript, []string{"CTXQL_FILE=" + file, "CTXQL_LSP=" + server, "CTXQL_FMT=" + fmtFile}, 60*time.Second)
	var got any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("result %q: %v", raw, err)
	}
	const want = `{
	  "got_diagnostics": true,
	  "stopped": true,
	  "hover": "**type** ` + "`.mt`" + ` (v2)",
	  "hover_line": 1,
	  "formatted": ["@t0 .seg > .summary // é😀", "@t0 (d2, 0) .note"],
	  "diagnostics": [{"lnum": 2, "col": 20, "end_lnum": 2, "end_col": 21, "severity": 1,
	    "source": "pact", "code": "pact-syntax",
	    "message": "expected a selector step after \">\", found \">\""}],
	  "symbols": [
	    {"name": ".mt[role=user]", "kind": 15, "line": 1, "character": 0, "end_character": 14},
	    {"name": ".mt[role=\"é😀\"] >> .cb", "kind": 15, "line": 2, "character": 0, "end_character": 22}
	  ]
	}`
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("Neovim saw (-want +got):\n%s\nraw: %s", diff, raw)
	}
}
