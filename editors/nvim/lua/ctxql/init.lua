-- ctxql language server client for Neovim 0.7 and later.
--
-- Starts `ctxql lsp` for pact, jql and datalog buffers, and with
-- embedded = true for host files (.ts, .js, .py, .go) too (vim.lsp.start on
-- 0.8+, vim.lsp.start_client + buf_attach_client on 0.7), shows each
-- ctxql/preview notification as virtual text after the query it belongs to,
-- sets buffer-local keymaps on attach (K, gd, gr, <leader>ca) and defines
-- :CtxqlRun, :CtxqlData, :CtxqlFixAll and :CtxqlMigrate.
local M = {}

-- The plugin's version: the ctxql release it belongs to. :checkhealth ctxql
-- compares it with the version of the server it finds.
M.version = "0.1.0"

M.filetypes = { "pact", "jql", "datalog" }

-- host_filetypes are the Neovim filetypes of host-file extensions: the
-- files whose string literals may hold embedded queries.
M.host_filetypes = {
  [".ts"] = { "typescript" },
  [".tsx"] = { "typescriptreact" },
  [".mts"] = { "typescript" },
  [".cts"] = { "typescript" },
  [".js"] = { "javascript" },
  [".jsx"] = { "javascriptreact" },
  [".mjs"] = { "javascript" },
  [".cjs"] = { "javascript" },
  [".py"] = { "python" },
  [".go"] = { "go" },
}

M.defaults = {
  cmd = { "ctxql", "lsp" },
  -- Settings sent as the "ctxql" configuration section (see the server's
  -- documentation): diagnosticsDelay, runTimeout, data = { glob = path }.
  settings = {},
  -- Show previews as virtual text.
  virtual_text = true,
  -- Buffer-local keymaps set when the server attaches; a key the user has
  -- already mapped (globally or for the buffer) is left alone. false turns
  -- them all off; a table changes or (with false) drops single keys.
  -- Show the server's code lenses ("▶ Run", "▶ Run — choose sample
  -- data…") as virtual text, refreshed on enter, save and leaving insert
  -- mode; run the one on the cursor line with vim.lsp.codelens.run().
  codelens = true,
  -- Check the queries embedded in host files (embedded.extensions of the
  -- settings or .ctxql.yaml; .ts, .js, .py and .go by default): the server
  -- attaches to those buffers too, for diagnostics, hovers and quick fixes
  -- only (no keymaps, lenses or previews there). Off by default: Neovim
  -- sends every request of a buffer to every client attached to it.
  embedded = false,
  keymaps = {
    hover = "K",
    definition = "gd",
    references = "gr",
    code_action = "<leader>ca",
  },
}

M.config = vim.deepcopy(M.defaults)
M.ns = vim.api.nvim_create_namespace("ctxql-preview")
-- The last preview per buffer, for :CtxqlRun and tests.
M.previews = {}

local function root_dir(fname)
  local markers = { ".ctxql.yaml", ".git" }
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  while dir and dir ~= "" do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. m) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.fnamemodify(fname, ":p:h")
end

-- lspconfig is an nvim-lspconfig compatible configuration:
--   require("lspconfig.configs").ctxql = { default_config = require("ctxql").lspconfig }
--   require("lspconfig").ctxql.setup({})
M.lspconfig = {
  cmd = M.defaults.cmd,
  filetypes = M.filetypes,
  root_dir = root_dir,
  settings = { ctxql = {} },
}

local function preview_text(p)
  if p.error and p.error ~= "" then
    return "⚠ " .. p.error
  end
  return string.format("→ %d result%s (%.1f ms)", p.count, p.count == 1 and "" or "s", p.elapsed_ms or 0)
end

-- on_preview handles ctxql/preview: virtual text at the end of the query's
-- first line.
function M.on_preview(err, params, ctx)
  if err or not params then
    return
  end
  local bufnr = vim.uri_to_bufnr(params.uri)
  M.previews[bufnr] = params
  if not M.config.virtual_text or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  local line = params.range and params.range.start.line or 0
  pcall(vim.api.nvim_buf_set_extmark, bufnr, M.ns, line, 0, {
    virt_text = { { preview_text(params), "Comment" } },
    virt_text_pos = "eol",
  })
end

-- keymap_actions are what the keymaps do.
local keymap_actions = {
  hover = function() vim.lsp.buf.hover() end,
  definition = function() vim.lsp.buf.definition() end,
  references = function() vim.lsp.buf.references() end,
  code_action = function() vim.lsp.buf.code_action() end,
}

-- set_keymaps maps the configured keys in bufnr unless the user mapped
-- them already; it returns the keys it mapped.
function M.set_keymaps(bufnr)
  local maps = M.config.keymaps
  local done = {}
  if maps == false or maps == nil then
    return done
  end
  for _, name in ipairs({ "hover", "definition", "references", "code_action" }) do
    local lhs = maps[name]
    if type(lhs) == "string" and lhs ~= "" then
      local existing = vim.api.nvim_buf_call(bufnr, function()
        return vim.fn.maparg(lhs, "n")
      end)
      if existing == "" then
        vim.api.nvim_buf_set_keymap(bufnr, "n", lhs, "", {
          noremap = true,
          silent = true,
          callback = keymap_actions[name],
          desc = "ctxql: " .. name:gsub("_", " "),
        })
        table.insert(done, lhs)
      end
    end
  end
  return done
end

local function client_config(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  return {
    name = "ctxql",
    cmd = M.config.cmd,
    root_dir = root_dir(fname),
    settings = { ctxql = M.config.settings },
    init_options = M.config.settings,
    handlers = { ["ctxql/preview"] = M.on_preview },
    on_init = function(client)
      client.notify("workspace/didChangeConfiguration", { settings = { ctxql = M.config.settings } })
    end,
    on_attach = function(_, buf)
      local test_file = M.is_test_file(buf)
      if M.is_host(buf) and not test_file then
        return
      end
      if not test_file then
        M.set_keymaps(buf)
      end
      if M.config.codelens and vim.lsp.codelens then
        local group = vim.api.nvim_create_augroup("ctxql-codelens-" .. buf, { clear = true })
        vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost", "CursorHold" }, {
          group = group,
          buffer = buf,
          callback = function()
            pcall(vim.lsp.codelens.refresh)
          end,
        })
        pcall(vim.lsp.codelens.refresh)
      end
    end,
  }
end

local clients = {}

-- attach starts (or reuses) the server for the buffer's root and attaches it.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local cfg = client_config(bufnr)
  if vim.lsp.start then
    return vim.lsp.start(cfg, { bufnr = bufnr })
  end
  local id = clients[cfg.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(cfg)
    clients[cfg.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function client_for(bufnr)
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == "ctxql" then
      return c
    end
  end
end

-- run evaluates the query on the cursor line (ctxql.run) and shows the
-- result in a floating window.
function M.run()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    vim.notify("ctxql: no language server attached", vim.log.levels.WARN)
    return
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local pos = { line = line, character = 0 }
  local res = client.request_sync("workspace/executeCommand", {
    command = "ctxql.run",
    arguments = { vim.uri_from_bufnr(bufnr), { start = pos, ["end"] = pos } },
  }, 10000, bufnr)
  if not res or res.err then
    vim.notify("ctxql: " .. ((res and res.err and res.err.message) or "no result"), vim.log.levels.WARN)
    return
  end
  if type(res.result) ~= "table" then
    vim.notify("ctxql: no query on this line, or no sample data (:CtxqlData FILE chooses it)", vim.log.levels.WARN)
    return
  end
  local lines = M.run_lines(res.result)
  local buf, win = vim.lsp.util.open_floating_preview(lines, "markdown", { border = "single" })
  M.last_float = { buf = buf, win = win }
  return res.result
end

-- text_table aligns rows (lists of strings) in columns.
local function text_table(rows)
  local widths = {}
  for _, r in ipairs(rows) do
    for i, c in ipairs(r) do
      widths[i] = math.max(widths[i] or 0, vim.fn.strdisplaywidth(c))
    end
  end
  local out = {}
  for _, r in ipairs(rows) do
    local cells = {}
    for i, c in ipairs(r) do
      cells[i] = i < #r and (c .. string.rep(" ", widths[i] - vim.fn.strdisplaywidth(c))) or c
    end
    table.insert(out, table.concat(cells, "  "))
  end
  return out
end

local function cell(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  if type(v) == "table" then
    return vim.fn.json_encode(v)
  end
  return (tostring(v):gsub("\n", "⏎"))
end

-- run_lines is the content of the run float: the summary as plain text,
-- then PACT node summaries (id, nodeType, depth, role/kind, preview) or
-- Datalog tuples under their column names as a text table, and other
-- results as a JSON code block (so only they are highlighted as JSON).
function M.run_lines(result)
  local lines = { preview_text(result) }
  local results = result.results or {}
  if result.error or #results == 0 then
    return lines
  end
  local rows
  if type(result.nodes) == "table" and #result.nodes > 0 then
    rows = { { "id", "nodeType", "depth", "role/kind", "preview" } }
    for _, n in ipairs(result.nodes) do
      local rk = cell(n.role)
      if n.kind and n.kind ~= "" then
        rk = rk ~= "" and (rk .. "/" .. n.kind) or n.kind
      end
      local pv = cell(n.preview)
      if vim.fn.strchars(pv) > 40 then
        pv = vim.fn.strcharpart(pv, 0, 39) .. "…"
      end
      table.insert(rows, { cell(n.id), cell(n.nodeType), cell(n.depth), rk, pv })
    end
  elseif type(result.columns) == "table" and #result.columns > 0 and type(results[1]) == "table" then
    local head = {}
    for i, c in ipairs(result.columns) do
      head[i] = (c.type and c.type ~= "") and (c.name .. ": " .. c.type) or c.name
    end
    rows = { head }
    for _, t in ipairs(results) do
      local r = {}
      for i = 1, #head do
        r[i] = cell(t[i])
      end
      table.insert(rows, r)
    end
  end
  if rows then
    table.insert(lines, "```text")
    vim.list_extend(lines, text_table(rows))
    table.insert(lines, "```")
    return lines
  end
  table.insert(lines, "```json")
  for _, r in ipairs(results) do
    table.insert(lines, vim.fn.json_encode(r))
  end
  table.insert(lines, "```")
  return lines
end

-- apply_action requests the code actions of the buffer and applies the
-- first one of the given kind.
local function apply_action(kind)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    vim.notify("ctxql: no language server attached", vim.log.levels.WARN)
    return false
  end
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 0 } },
    context = { diagnostics = {}, only = { kind } },
  }
  local res = client.request_sync("textDocument/codeAction", params, 10000, bufnr)
  for _, a in ipairs((res and res.result) or {}) do
    if a.kind == kind and a.edit then
      vim.lsp.util.apply_workspace_edit(a.edit, client.offset_encoding or "utf-16")
      return true
    end
  end
  vim.notify("ctxql: nothing to do", vim.log.levels.INFO)
  return false
end

-- set_data makes bufnr name path as its sample data: the server writes
-- the "data:" line (ctxql.setData, in the file's comment syntax, the path
-- relative to the file, replacing an existing one or below a leading
-- "pact:" pragma) and the editor applies the edit.
function M.set_data(bufnr, path)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not path or path == "" then
    vim.notify("ctxql: :CtxqlData needs a file name (JSON, YAML or JSONL sample data)", vim.log.levels.WARN)
    return false
  end
  path = vim.fn.expand(path)
  if vim.fn.filereadable(path) ~= 1 then
    vim.notify("ctxql: " .. path .. " is not a readable file", vim.log.levels.WARN)
    return false
  end
  local client = client_for(bufnr)
  if not client then
    vim.notify("ctxql: no language server attached", vim.log.levels.WARN)
    return false
  end
  local params = {
    command = "ctxql.setData",
    arguments = { vim.uri_from_bufnr(bufnr), vim.fn.fnamemodify(path, ":p") },
  }
  local res, err = client.request_sync("workspace/executeCommand", params, 10000, bufnr)
  local r = res and res.result
  if not r or not r.applied then
    -- The server shows why (window/showMessage) when it answers.
    if not r then
      vim.notify("ctxql: the data line was not written: " .. tostring(err or (res and res.err) or "no answer"), vim.log.levels.WARN)
    end
    return false
  end
  return true
end

function M.fix_all()
  return apply_action("source.fixAll")
end

function M.migrate()
  return apply_action("source.migrate")
end

-- The client side of the server's "choose sample data" lens: asks for the
-- file and writes the data line.
vim.lsp.commands["ctxql.chooseData"] = function(command, ctx)
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  local args = command and command.arguments or {}
  if type(args[1]) == "string" then
    bufnr = vim.uri_to_bufnr(args[1])
  end
  local input = vim.ui and vim.ui.input or function(opts, cb)
    cb(vim.fn.input(opts.prompt, "", "file"))
  end
  input({ prompt = "Sample data (JSON, YAML or JSONL): ", completion = "file" }, function(path)
    if path and path ~= "" then
      M.set_data(bufnr, path)
    end
  end)
end

-- embedded_filetypes returns the filetypes of the host files whose
-- embedded queries the server checks, from the embedded.extensions
-- setting (default .ts, .js, .py, .go).
function M.embedded_filetypes()
  local emb = (M.config.settings or {}).embedded or {}
  local exts = emb.extensions or { ".ts", ".js", ".py", ".go" }
  local seen, out = {}, {}
  for _, ext in ipairs(exts) do
    if ext:sub(1, 1) ~= "." then
      ext = "." .. ext
    end
    for _, ft in ipairs(M.host_filetypes[ext] or {}) do
      if not seen[ft] then
        seen[ft] = true
        table.insert(out, ft)
      end
    end
  end
  return out
end

-- is_host reports whether the buffer is a host file (not a query file).
function M.is_host(bufnr)
  return not vim.tbl_contains(M.filetypes, vim.bo[bufnr].filetype)
end

-- is_test_file reports whether the buffer is a query test file
-- (*.ctxqltest.yaml): YAML to Neovim, served for its "Run test" lenses and
-- its diagnostics.
function M.is_test_file(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr):lower()
  return name:match("[^/\\]%.ctxqltest%.ya?ml$") ~= nil
end

-- test_display is a result as "ctxql test" prints it: a string without
-- quotes (a PACT id), anything else as JSON.
local function test_display(x)
  if type(x) == "string" then
    return x
  end
  return vim.fn.json_encode(x)
end

-- test_items turns the report of "ctxql test --format json" into quickfix
-- items: one per case that did not pass, at the case in its test file,
-- saying what did not hold, where the query is and the results added (+)
-- and removed (-).
function M.test_items(report)
  local items = {}
  for _, r in ipairs(report.results or {}) do
    if r.status ~= "pass" then
      local name = (r.name ~= nil and r.name ~= "") and r.name or "(test file)"
      local parts = { name .. ": " .. table.concat(r.messages or {}, "; ") }
      if type(r.query) == "table" then
        table.insert(parts, string.format("query %s:%d:%d", r.query.file, r.query.line, r.query.column))
      end
      for _, x in ipairs(r.added or {}) do
        table.insert(parts, "+ " .. test_display(x))
      end
      for _, x in ipairs(r.removed or {}) do
        table.insert(parts, "- " .. test_display(x))
      end
      table.insert(items, {
        filename = r.file,
        lnum = r.line,
        col = r.column,
        type = "E",
        text = table.concat(parts, "; "),
      })
    end
  end
  return items
end

-- test runs "ctxql test --format json" on path (default: the current
-- file's directory, else the working directory) in the background and
-- fills the quickfix list with the cases that did not pass, opening it;
-- when every case passes it says so. The outcome is kept in M.last_test
-- ({ ok, message, items }) and handed to done when given.
function M.test(path, done)
  if path == nil or path == "" then
    local name = vim.api.nvim_buf_get_name(0)
    path = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  end
  path = vim.fn.fnamemodify(path, ":p")
  local out, errs = {}, {}
  local function finish(ok, message, items)
    M.last_test = { ok = ok, message = message, items = items or {} }
    if items then
      vim.fn.setqflist({}, " ", { title = "ctxql test " .. path, items = items })
      if #items > 0 then
        vim.cmd("copen")
      else
        vim.cmd("cclose")
      end
    end
    vim.notify(message, ok and vim.log.levels.INFO or vim.log.levels.WARN)
    if done then
      done(M.last_test)
    end
  end
  local job = vim.fn.jobstart({ M.config.cmd[1], "test", "--format", "json", path }, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      errs = data
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        local ok, report = pcall(vim.fn.json_decode, table.concat(out, "\n"))
        if not ok or type(report) ~= "table" or type(report.results) ~= "table" then
          local why = vim.trim(table.concat(errs, "\n"))
          finish(false, "ctxql test: " .. (why ~= "" and why or ("exit status " .. code)))
          return
        end
        local items = M.test_items(report)
        if #items == 0 then
          finish(true, string.format("ctxql test: all %d passed", report.passed), items)
        else
          finish(false, string.format("ctxql test: %d passed, %d failed", report.passed, report.failed + report.errors), items)
        end
      end)
    end,
  })
  if job <= 0 then
    finish(false, "ctxql test: cannot start " .. tostring(M.config.cmd[1]))
  end
end

-- setup merges opts into the defaults, starts the server for the
-- filetypes (and the host files' when embedded is on) and defines the
-- commands.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  M.lspconfig.cmd = M.config.cmd
  local group = vim.api.nvim_create_augroup("ctxql", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    pattern = { "*.ctxqltest.yaml", "*.ctxqltest.yml" },
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  if M.config.embedded then
    local fts = M.embedded_filetypes()
    if #fts > 0 then
      vim.api.nvim_create_autocmd("FileType", {
        group = group,
        pattern = fts,
        callback = function(args)
          if vim.api.nvim_buf_get_name(args.buf) ~= "" then
            M.attach(args.buf)
          end
        end,
      })
    end
  end
  vim.api.nvim_create_user_command("CtxqlRun", M.run, { desc = "Run the ctxql query on this line" })
  vim.api.nvim_create_user_command("CtxqlData", function(a)
    M.set_data(vim.api.nvim_get_current_buf(), a.args)
  end, { nargs = 1, complete = "file", desc = "Choose the sample data of this file" })
  vim.api.nvim_create_user_command("CtxqlFixAll", M.fix_all, { desc = "Apply every safe ctxql fix" })
  vim.api.nvim_create_user_command("CtxqlMigrate", M.migrate, { desc = "Migrate this PACT file to v2" })
  vim.api.nvim_create_user_command("CtxqlTest", function(a)
    M.test(a.args)
  end, { nargs = "?", complete = "file", desc = "Run the query tests (ctxql test) into the quickfix list" })
end

return M
