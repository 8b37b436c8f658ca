// Package nvim holds the test of the Neovim plugin: the plugin itself is
// Lua (plugin/, ftdetect/, lua/ctxql/).
package nvim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxql/ctxql/internal/nvimtest"
)

// script loads the plugin from this directory into a clean Neovim, opens a
// .pact file with an error and sample data, waits for diagnostics, edits
// a query and waits for its preview (virtual text), runs :CtxqlRun, and
// :CtxqlMigrate before and after removing the error, and writes what it saw
// as JSON.
const script = `
local out = {}
local ok, err = pcall(function()
  vim.opt.rtp:prepend(os.getenv("CTXQL_PLUGIN"))
  vim.g.ctxql_config = { cmd = { os.getenv("CTXQL_BIN"), "lsp" }, embedded = true }
  vim.cmd([[nnoremap gr :echo "mine"<CR>]]) -- a user mapping the plugin keeps
  vim.cmd("filetype on")
  vim.cmd("runtime! ftdetect/ctxql.vim")
  vim.cmd("runtime! plugin/ctxql.lua")
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CTXQL_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  out.got_diagnostics = vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.diagnostic = (vim.diagnostic.get(buf)[1] or {}).message
  local ctxql = require("ctxql")
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { ".cb[ttl<=2]" })
  out.got_preview = vim.wait(15000, function()
    local p = ctxql.previews[buf]
    return p ~= nil and p.count == 3
  end, 20)
  out.preview_count = (ctxql.previews[buf] or {}).count
  local marks = vim.api.nvim_buf_get_extmarks(buf, ctxql.ns, 0, -1, { details = true })
  if marks[1] then
    out.virtual_text = marks[1][4].virt_text[1][1]
  end
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  local res = ctxql.run()
  out.run_count = res and res.count
  -- The float: the summary line is plain text, only the results are JSON.
  local fl = ctxql.last_float
  if fl and vim.api.nvim_win_is_valid(fl.win) then
    out.float_first = vim.api.nvim_buf_get_lines(fl.buf, 0, 1, false)[1]:sub(1, #"→ 3 results")
    local groups = {}
    vim.api.nvim_win_call(fl.win, function()
      local text = vim.api.nvim_buf_get_lines(fl.buf, 0, 1, false)[1]
      for col = 1, #text do
        local id = vim.fn.synID(1, col, 1)
        for _, name in ipairs({ vim.fn.synIDattr(id, "name"), vim.fn.synIDattr(vim.fn.synIDtrans(id), "name") }) do
          if name:lower():find("error") or name:lower():find("json") then groups[name] = true end
        end
      end
    end)
    out.float_header_json_or_error = vim.tbl_keys(groups)
    vim.api.nvim_win_close(fl.win, true)
  end
  local function buffer_map(lhs)
    local m = vim.fn.maparg(lhs, "n", false, true)
    if m.buffer == 1 then return "buffer" end
    return m.rhs or ""
  end
  out.maps = { K = buffer_map("K"), gd = buffer_map("gd"), gr = buffer_map("gr"), ca = buffer_map("<leader>ca") }
  out.syntax = vim.bo[buf].syntax
  out.refused = ctxql.migrate() -- the file has a syntax error
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, {})
  vim.wait(15000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
  out.migrated = ctxql.migrate()
  out.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  -- A file without sample data: :CtxqlData writes the data line below the
  -- pragma and the preview follows.
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CTXQL_NODATA")))
  local nb = vim.api.nvim_get_current_buf()
  vim.wait(15000, function() return #vim.lsp.buf_get_clients(nb) > 0 end, 20)
  vim.cmd("CtxqlData " .. vim.fn.fnameescape(os.getenv("CTXQL_DATA")))
  out.nodata_lines = vim.api.nvim_buf_get_lines(nb, 0, -1, false)
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  local r2 = ctxql.run()
  out.nodata_run_count = r2 and r2.count
  -- Datalog runs show their tuples under the relation's columns.
  out.tuple_lines = ctxql.run_lines({ count = 2, elapsed_ms = 0, relation = "path",
    columns = { { name = "x", type = "Node" }, { name = "y", type = "" } }, results = { { "a", "b" }, { "a", "c" } } })
  out.tuple_lines[1] = out.tuple_lines[1]:sub(1, #"→ 2 results")
  -- A host file: the server checks its embedded query; no keymaps there.
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("CTXQL_HOST")))
  local hb = vim.api.nvim_get_current_buf()
  out.host_filetype = vim.bo[hb].filetype
  out.host_diagnostics = vim.wait(15000, function() return #vim.diagnostic.get(hb) > 0 end, 20)
  local hd = vim.diagnostic.get(hb)[1] or {}
  out.host_diagnostic = (hd.message or ""):sub(1, #"legacy type sugar .block:summary")
  out.host_diagnostic_at = { hd.lnum, hd.col }
  out.host_K = buffer_map("K")
  -- Keymaps can be switched off.
  ctxql.config.keymaps = false
  vim.cmd("enew")
  out.off_maps = #ctxql.set_keymaps(vim.api.nvim_get_current_buf())
end)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv("CTXQL_OUT"))
vim.cmd("qa!")
`

// TestPlugin runs the plugin in Debian's Neovim (0.7) headless against the
// real server.
func TestPlugin(t *testing.T) {
	nvim := nvimtest.Find(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := nvimtest.Build(t, dir, "github.com/ctxql/ctxql/cmd/ctxql", "ctxql")
	data := `{"root":{"id":"root","nodeType":"^root","children":[
	  {"id":"a","nodeType":"cb","ttl":0},{"id":"b","nodeType":"cb","ttl":2},{"id":"c","nodeType":"cb","ttl":1},{"id":"d","nodeType":"cb","ttl":4},
	  {"id":"e","nodeType":"cb:summary","ttl":9}]}}`
	if err := os.WriteFile(filepath.Join(dir, "data.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "q.pact")
	src := "// pact: v1\n// data: ./data.json\n.cb[ttl<=1]\n.cb:summary\n.cb[ttl<=]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	nodata := filepath.Join(dir, "nodata.pact")
	if err := os.WriteFile(nodata, []byte("// pact: v1\n.cb[ttl>=2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "agent.ts")
	if err := os.WriteFile(host, []byte("declare const ctx: { select(q: string): unknown };\nexport const summaries = ctx.select(\".block:summary\");\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := nvimtest.Run(t, nvim, dir, script, []string{"CTXQL_PLUGIN=" + plugin, "CTXQL_BIN=" + bin, "CTXQL_FILE=" + file,
		"CTXQL_NODATA=" + nodata, "CTXQL_DATA=" + filepath.Join(dir, "data.json"), "CTXQL_HOST=" + host}, 90*time.Second)
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("result %q: %v", raw, err)
	}
	want := map[string]any{
		"filetype":                   "pact",
		"got_diagnostics":            true,
		"diagnostic":                 "expected a value after \"<=\", found \"]\"",
		"got_preview":                true,
		"preview_count":              float64(3),
		"virtual_text":               "→ 3 results",
		"run_count":                  float64(3),
		"float_first":                "→ 3 results",
		"float_header_json_or_error": []any{},
		"maps":                       map[string]any{"K": "buffer", "gd": "buffer", "gr": `:echo "mine"<CR>`, "ca": "buffer"},
		"syntax":                     "pact",
		"nodata_lines":               []any{"// pact: v1", "// data: ./data.json", ".cb[ttl>=2]"},
		"nodata_run_count":           float64(2),
		"off_maps":                   float64(0),
		"host_filetype":              "typescript",
		"host_diagnostics":           true,
		"host_diagnostic":            "legacy type sugar .block:summary",
		"host_diagnostic_at":         []any{float64(1), float64(37)},
		"host_K":                     "",
		"tuple_lines":                []any{"→ 2 results", "```text", "x: Node  y", "a        b", "a        c", "```"},
		"refused":                    false,
		"migrated":                   true,
		"lines":                      []any{"// pact: v2", "// data: ./data.json", ".cb[ttl<=2]", "*[nodeType='cb:summary']"},
	}
	if vt, ok := got["virtual_text"].(string); ok && len(vt) > len("→ 3 results") {
		got["virtual_text"] = vt[:len("→ 3 results")] // the timing varies
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Neovim saw (-want +got):\n%s\nraw: %s", diff, raw)
	}
}
