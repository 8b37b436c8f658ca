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

// testScript opens a test file with a failing case, runs the case from
// the server's "Run test" lens and records the diagnostics on the case and
// on its query; runs :CtxqlTest on the directory and records the quickfix
// list and whether its window opened; then, the case
// fixed, runs it again (from a buffer of the directory, without an
// argument) and records the message and the list.
const testScript = `
local out = {}
local ok, err = pcall(function()
  vim.opt.rtp:prepend(os.getenv("CTXQL_PLUGIN"))
  vim.g.ctxql_config = { cmd = { os.getenv("CTXQL_BIN"), "lsp" } }
  vim.cmd("runtime! plugin/ctxql.lua")
  local ctxql = require("ctxql")
  local dir = os.getenv("CTXQL_DIR")
  local function qf()
    local list = {}
    for _, it in ipairs(vim.fn.getqflist()) do
      table.insert(list, { file = vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ":t"), lnum = it.lnum, col = it.col, type = it.type, text = it.text })
    end
    return list
  end
  local function qf_open()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.bo[vim.api.nvim_win_get_buf(w)].buftype == "quickfix" then return true end
    end
    return false
  end
  -- The server's lenses in the test file: the one on the failing case
  -- runs it, and its diagnostics come on the case and on the query.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/blocks.ctxqltest.yaml"))
  local tb = vim.api.nvim_get_current_buf()
  -- The plugin asks for the lenses once the server is attached.
  out.lenses_shown = vim.wait(30000, function() return #vim.lsp.codelens.get(tb) >= 4 end, 20)
  local titles = {}
  for _, l in ipairs(vim.lsp.codelens.get(tb)) do
    table.insert(titles, string.format("%d %s", l.range.start.line, l.command and l.command.title or ""))
  end
  table.sort(titles)
  out.lenses = titles
  vim.api.nvim_win_set_cursor(0, { 7, 0 })
  vim.lsp.codelens.run()
  local qb = vim.fn.bufadd(dir .. "/blocks.pact")
  out.lens_ran = vim.wait(30000, function() return #vim.diagnostic.get(tb) > 0 and #vim.diagnostic.get(qb) > 0 end, 20)
  local function diags(b)
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(b)) do
      table.insert(list, string.format("%d:%d %s", d.lnum, d.col, (d.message:gsub("\n", " | "))))
    end
    return list
  end
  out.case_diagnostics = diags(tb)
  out.query_diagnostics = diags(qb)

  ctxql.last_test = nil
  vim.cmd("CtxqlTest " .. vim.fn.fnameescape(dir))
  out.first_done = vim.wait(30000, function() return ctxql.last_test ~= nil end, 20)
  out.first_message = ctxql.last_test and ctxql.last_test.message
  out.first_qf = qf()
  out.first_qf_open = qf_open()
  out.title = vim.fn.getqflist({ title = 1 }).title == "ctxql test " .. dir .. "/"

  local f = io.open(dir .. "/blocks.ctxqltest.yaml", "r")
  local text = f:read("*a")
  f:close()
  f = io.open(dir .. "/blocks.ctxqltest.yaml", "w")
  f:write((text:gsub("want: %[a, b%]", "want: [a, c]")))
  f:close()
  vim.cmd("wincmd p")
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/blocks.pact"))
  ctxql.last_test = nil
  vim.cmd("CtxqlTest")
  out.second_done = vim.wait(30000, function() return ctxql.last_test ~= nil end, 20)
  out.second_message = ctxql.last_test and ctxql.last_test.message
  out.second_qf = qf()
  out.second_qf_open = qf_open()
end)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv("CTXQL_OUT"))
vim.cmd("qa!")
`

// TestCtxqlTest runs :CtxqlTest in Debian's Neovim (0.7) headless with the
// real ctxql: a failing case fills the quickfix list (one entry at the
// case, with the results added and removed) and opens it; once every case
// passes the list is empty and closed, and the message says so.
func TestCtxqlTest(t *testing.T) {
	nvim := nvimtest.Find(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, "queries")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := nvimtest.Build(t, home, "github.com/ctxql/ctxql/cmd/ctxql", "ctxql")
	files := map[string]string{
		"data.json":   `{"root":{"id":"root","children":[{"id":"a","nodeType":"cb","ttl":0},{"id":"b","nodeType":"cb","ttl":2},{"id":"c","nodeType":"cb","ttl":1}]}}`,
		"blocks.pact": "// pact: v2\n.cb[ttl>=2]\n.cb[ttl<=1]\n",
		"blocks.ctxqltest.yaml": "data: data.json\nfile: blocks.pact\ntests:\n" +
			"  - name: long-lived\n    line: 2\n    want: [b]\n" +
			"  - name: short-lived\n    line: 3\n    want: [a, b]\n" +
			"  - name: two of them\n    line: 3\n    count: 2\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw := nvimtest.Run(t, nvim, home, testScript, []string{"CTXQL_PLUGIN=" + plugin, "CTXQL_BIN=" + bin, "CTXQL_DIR=" + dir}, 90*time.Second)
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("result %q: %v", raw, err)
	}
	want := map[string]any{
		"lenses_shown":      true,
		"lenses":            []any{"0 ▶ Run all tests (3)", "3 ▶ Run test", "6 ▶ Run test", "9 ▶ Run test"},
		"lens_ran":          true,
		"case_diagnostics":  []any{"6:4 test \"short-lived\" failed: results differ from want: 1 unexpected, 1 missing (want 2, got 2) | + c | - b"},
		"query_diagnostics": []any{"2:0 test \"short-lived\" failed: results differ from want: 1 unexpected, 1 missing (want 2, got 2) | + c | - b (blocks.ctxqltest.yaml:7)"},
		"first_done":        true,
		"first_message":     "ctxql test: 2 passed, 1 failed",
		"first_qf": []any{map[string]any{
			"file": "blocks.ctxqltest.yaml", "lnum": float64(7), "col": float64(5), "type": "E",
			"text": "short-lived: results differ from want: 1 unexpected, 1 missing (want 2, got 2); query " + dir + "/blocks.pact:3:1; + c; - b",
		}},
		"first_qf_open":  true,
		"title":          true,
		"second_done":    true,
		"second_message": "ctxql test: all 3 passed",
		"second_qf":      []any{},
		"second_qf_open": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Neovim saw (-want +got):\n%s\nraw: %s", diff, raw)
	}
}
