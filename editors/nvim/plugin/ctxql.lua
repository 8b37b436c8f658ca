-- ctxql: starts the ctxql language server for PACT, JQL and Datalog files.
-- require("ctxql").setup({...}) changes the defaults; without it the plugin
-- starts the server with them.
if vim.g.loaded_ctxql then
  return
end
vim.g.loaded_ctxql = true
require("ctxql").setup(vim.g.ctxql_config)
