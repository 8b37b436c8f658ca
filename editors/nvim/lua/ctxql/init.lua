-- ctxql language server client for Neovim 0.7 and later.
--
-- Starts `ctxql lsp` for pact, jql and datalog buffers (vim.lsp.start on
-- 0.8+, vim.lsp.start_client + buf_attach_client on 0.7), shows each
-- ctxql/preview notification as virtual text after the query it belongs to,
-- and defines :CtxqlRun, :CtxqlFixAll and :CtxqlMigrate.
local M = {}

M.filetypes = { "pact", "jql", "datalog" }

M.defaults = {
  cmd = { "ctxql", "lsp" },
  -- Settings sent as the "ctxql" configuration section (see the server's
  -- documentation): diagnosticsDelay, runTimeout, data = { glob = path }.
  settings = {},
  -- Show previews as virtual text.
  virtual_text = true,
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
  local lines = { preview_text(res.result) }
  for _, r in ipairs(res.result.results or {}) do
    table.insert(lines, vim.fn.json_encode(r))
  end
  vim.lsp.util.open_floating_preview(lines, "json", { border = "single" })
  return res.result
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

function M.fix_all()
  return apply_action("source.fixAll")
end

function M.migrate()
  return apply_action("source.migrate")
end

-- setup merges opts into the defaults, starts the server for the
-- filetypes and defines the commands.
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
  vim.api.nvim_create_user_command("CtxqlRun", M.run, { desc = "Run the ctxql query on this line" })
  vim.api.nvim_create_user_command("CtxqlFixAll", M.fix_all, { desc = "Apply every safe ctxql fix" })
  vim.api.nvim_create_user_command("CtxqlMigrate", M.migrate, { desc = "Migrate this PACT file to v2" })
end

return M
