-- :checkhealth ctxql: whether the server the plugin starts is there, which
-- version it is, and whether that is the version of the plugin.
--
-- Works with the health API of Neovim 0.7 (require("health").report_*) and
-- of 0.8 and later (vim.health.*).
local M = {}

local function api()
  local h = vim.health or require("health")
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- strip drops a leading "v" of a version ("v0.1.0" → "0.1.0").
local function strip(v)
  return (v:gsub("^v", ""))
end

-- M.parse reads the output of "ctxql version" ("ctxql v0.1.0 (commit abc,
-- linux/amd64)") into the version and the commit.
function M.parse(out)
  local version = out:match("^ctxql (%S+)")
  local commit = out:match("%(commit ([^,%)]+)")
  return version, commit
end

function M.check()
  local h = api()
  local ctxql = require("ctxql")
  h.start("ctxql")
  h.info("plugin version " .. ctxql.version)
  local cmd = (ctxql.config.cmd or ctxql.defaults.cmd)[1]
  local exe = vim.fn.exepath(cmd)
  if exe == "" then
    h.error("the ctxql executable " .. vim.inspect(cmd) .. " was not found", {
      "Download the archive for your platform from the releases and put ctxql on PATH,",
      "or run: go install github.com/ctxql/ctxql/cmd/ctxql@latest",
      "or set cmd in require('ctxql').setup({ cmd = { '/path/to/ctxql', 'lsp' } })",
    })
    return
  end
  h.ok("ctxql executable: " .. exe)
  local out = vim.fn.system({ exe, "version" })
  if vim.v.shell_error ~= 0 then
    h.error("`" .. exe .. " version` failed: " .. vim.trim(out), { "Is it a ctxql older than the version command? Install a newer one." })
    return
  end
  local version, commit = M.parse(out)
  if not version then
    h.error("`" .. exe .. " version` printed no version: " .. vim.trim(out))
    return
  end
  h.ok("ctxql version " .. version .. (commit and (", commit " .. commit) or ""))
  if version == "devel" then
    h.info("a development build (no release version): it cannot be compared with the plugin's " .. ctxql.version)
  elseif strip(version) == strip(ctxql.version) then
    h.ok("the server's version matches the plugin (" .. ctxql.version .. ")")
  else
    h.warn("the server is " .. version .. " but the plugin is " .. ctxql.version, {
      "Install the ctxql release that matches the plugin, or update the plugin to the server's release.",
    })
  end
end

return M
