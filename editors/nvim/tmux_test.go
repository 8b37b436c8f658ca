package nvim

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/nvimtest"
)

// sgr matches one SGR escape sequence of a captured pane.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// colorsOn returns the distinct SGR sequences on the screen line that
// contains text, or nil when no line does.
func colorsOn(screen, text string) map[string]bool {
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(sgr.ReplaceAllString(line, ""), text) {
			out := map[string]bool{}
			for _, m := range sgr.FindAllString(line, -1) {
				if m != "\x1b[0m" && m != "\x1b[m" && m != "\x1b[39m" {
					out[m] = true
				}
			}
			return out
		}
	}
	return nil
}

// TestTerminal runs the plugin in Debian's Neovim (0.7) in a real terminal
// (tmux) against the real server, as a user would: it looks at the
// highlighting of a PACT, a Datalog and a JQL file, presses K on a query
// and types :CtxqlRun, and reads what the screen shows.
func TestTerminal(t *testing.T) {
	nvim := nvimtest.Find(t)
	nvimtest.FindTmux(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := nvimtest.Build(t, dir, "github.com/ctxql/ctxql/cmd/ctxql", "ctxql")
	files := map[string]string{
		"data.json": `{"root":{"id":"root","nodeType":"^root","children":[
		  {"id":"a","nodeType":"cb","ttl":0},{"id":"b","nodeType":"cb","ttl":2},{"id":"c","nodeType":"cb","ttl":1}]}}`,
		"q.pact":      "// pact: v1\n// data: ./data.json\n.cb[ttl<=1] // short-lived blocks\n",
		"paths.dl":    "// reachability\nrelation edge(String, String);\npath(x, y) <-- edge(x, y);\n",
		"nodata.pact": "// pact: v1\n.cb[ttl>=1]\n",
		"acts.jql":    "{\n  \"from\": \"activities\", // all of them\n  \"limit\": 10\n}\n",
		"init.lua": `vim.opt.rtp:prepend(os.getenv("CTXQL_PLUGIN"))
vim.g.ctxql_config = { cmd = { os.getenv("CTXQL_BIN"), "lsp" } }
vim.o.termguicolors = false
vim.o.swapfile = false
vim.cmd("filetype on")
vim.cmd("syntax on")
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	term := nvimtest.StartTmux(t, dir, 100, 30, []string{"CTXQL_PLUGIN=" + plugin, "CTXQL_BIN=" + bin},
		nvim, "-n", "-i", "NONE", "-u", filepath.Join(dir, "init.lua"), filepath.Join(dir, "q.pact"))

	// Highlighting: the query line shows several colours (node type,
	// attribute, number, comment), in each language.
	for _, c := range []struct{ file, line string }{
		{"paths.dl", "path(x, y) <-- edge(x, y);"},
		{"acts.jql", `"from": "activities", // all of them`},
		{"q.pact", ".cb[ttl<=1] // short-lived blocks"},
	} {
		term.Keys(":edit "+filepath.Join(dir, c.file), "Enter")
		screen := term.WaitFor(c.file+" highlighted", 10*time.Second, true, func(s string) bool {
			return len(colorsOn(s, c.line)) >= 3
		})
		if strings.Contains(screen, "No Syntax items") {
			t.Errorf("%s: no syntax:\n%s", c.file, screen)
		}
	}

	// K on the query shows the server's hover (with the result count from
	// the sample data), not man. The buffer-local K exists once the server
	// has attached; its lens on the query line shows that it has.
	term.WaitFor("the server attached", 30*time.Second, false, func(s string) bool {
		return strings.Contains(s, "short-lived blocks ▶ Run")
	})
	term.Keys("3G", "0", "K")
	screen := term.WaitFor("the hover", 15*time.Second, false, func(s string) bool {
		return strings.Contains(s, "result(s)") || strings.Contains(s, "man") || strings.Contains(s, "E149")
	})
	if !strings.Contains(screen, "Sample data: 2 result") || !strings.Contains(screen, "type `.cb`") {
		t.Errorf("K did not show the hover with 2 results:\n%s", screen)
	}

	t.Logf("the hover:\n%s", screen)

	// :CtxqlRun opens a float with the summary and the results.
	term.Keys("Escape", ":CtxqlRun", "Enter")
	screen = term.WaitFor("the run float", 15*time.Second, false, func(s string) bool {
		return strings.Contains(s, "→ 2 results")
	})
	// PACT runs show the node summaries as a table.
	for _, row := range []*regexp.Regexp{
		regexp.MustCompile(`│id\s+nodeType\s+depth\s+role/kind\s+preview`),
		regexp.MustCompile(`│a\s+cb\s+1\s`),
		regexp.MustCompile(`│c\s+cb\s+1\s`),
	} {
		if !row.MatchString(screen) {
			t.Errorf("the run float lacks the row %s:\n%s", row, screen)
		}
	}
	if strings.Contains(screen, `"b"`) || regexp.MustCompile(`│b\s`).MatchString(screen) {
		t.Errorf("the run float shows node b, which does not match:\n%s", screen)
	}
	t.Logf("the run float:\n%s", screen)

	// Without sample data the lens says how to get some; :CtxqlData
	// writes the data line and the lens becomes ▶ Run.
	term.Keys("Escape", ":edit "+filepath.Join(dir, "nodata.pact"), "Enter")
	term.WaitFor("the choose-data lens", 15*time.Second, false, func(s string) bool {
		return strings.Contains(s, "▶ Run — choose sample data…")
	})
	term.Keys(":CtxqlData "+filepath.Join(dir, "data.json"), "Enter", ":write", "Enter")
	screen = term.WaitFor("the data line and the run lens", 15*time.Second, false, func(s string) bool {
		return strings.Contains(s, "// data: ./data.json") && strings.Contains(s, "▶ Run (2)")
	})
	t.Logf("after :CtxqlData:\n%s", screen)
	term.Keys("Escape", ":qa!", "Enter")
}
