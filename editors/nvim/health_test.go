package nvim

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/nvimtest"
)

// pluginVersion reads M.version from the plugin's init.lua.
func pluginVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("lua", "ctxql", "init.lua"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^M\.version = "([^"]+)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatal(`init.lua has no M.version = "..." line`)
	}
	return string(m[1])
}

// TestPluginVersionIsTheExtensions pins that the Neovim plugin and the VS
// Code extension carry the same version: both belong to one release.
func TestPluginVersionIsTheExtensions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if v := pluginVersion(t); v != pkg.Version {
		t.Errorf("the Neovim plugin is %s, the VS Code extension %s", v, pkg.Version)
	}
}

const healthScript = `
local out = {}
local ok, err = pcall(function()
  vim.opt.rtp:prepend(os.getenv("CTXQL_PLUGIN"))
  local ctxql = require("ctxql")
  for _, case in ipairs({ { "release", os.getenv("CTXQL_RELEASE") }, { "other", os.getenv("CTXQL_OTHER") },
      { "devel", os.getenv("CTXQL_BIN") }, { "missing", "/nonexistent/ctxql" } }) do
    ctxql.config.cmd = { case[2], "lsp" }
    vim.cmd("checkhealth ctxql")
    out[case[1]] = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    vim.cmd("bwipeout!")
  end
end)
if not ok then out.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv("CTXQL_OUT"))
vim.cmd("qa!")
`

// TestCheckhealth runs :checkhealth ctxql against a server of the plugin's
// release, one of another release, a development build and a missing one.
func TestCheckhealth(t *testing.T) {
	nvim := nvimtest.Find(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	version := pluginVersion(t)
	devel := nvimtest.Build(t, dir, "github.com/ctxql/ctxql/cmd/ctxql", "ctxql")
	build := func(name, v string) string {
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bin, "-ldflags",
			"-X github.com/ctxql/ctxql/cli.Version="+v+" -X github.com/ctxql/ctxql/cli.Commit=abc123", "github.com/ctxql/ctxql/cmd/ctxql")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
		return bin
	}
	release := build("ctxql-release", "v"+version)
	other := build("ctxql-other", "v99.0.0")
	raw := nvimtest.Run(t, nvim, dir, healthScript, []string{"CTXQL_PLUGIN=" + plugin, "CTXQL_BIN=" + devel,
		"CTXQL_RELEASE=" + release, "CTXQL_OTHER=" + other}, 60*time.Second)
	var got map[string]string
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("result %q: %v", raw, err)
	}
	if got["error"] != "" {
		t.Fatal(got["error"])
	}
	for name, want := range map[string][]string{
		"release": {"OK", "ctxql executable: " + release, "ctxql version v" + version + ", commit abc123", "matches the plugin (" + version + ")"},
		"other":   {"WARNING", "the server is v99.0.0 but the plugin is " + version},
		"devel":   {"ctxql executable: " + devel, "ctxql version devel", "a development build"},
		"missing": {"ERROR", `"/nonexistent/ctxql" was not found`, "go install github.com/ctxql/ctxql/cmd/ctxql@latest"},
	} {
		for _, w := range want {
			if !strings.Contains(got[name], w) {
				t.Errorf("%s: the report lacks %q:\n%s", name, w, got[name])
			}
		}
	}
	if strings.Contains(got["release"], "WARNING") || strings.Contains(got["release"], "ERROR") {
		t.Errorf("release: a warning or error in\n%s", got["release"])
	}
}
