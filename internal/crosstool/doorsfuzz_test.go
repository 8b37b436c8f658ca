package crosstool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxql/ctxql/acp"
	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/lang"
	mcpserver "github.com/ctxql/ctxql/mcp"
	"github.com/ctxql/ctxql/resultdiff"
)

// doorsSeedEvery keeps one corpus file in so many as a seed of
// FuzzDoorsAgree: each input costs a git repository, so "go test" runs a
// sample of the corpus (TestToolsAgree and TestDoorsAgree run all of it)
// and the fuzzer grows it.
const doorsSeedEvery = 20

// FuzzDoorsAgree generates files (a name, a configuration and a text, as
// FuzzToolsAgree does) and runs each through every front door: the command
// line's check, fmt, eval and migrate and the language server must agree
// with the table as in TestToolsAgree, and the MCP server's tools and
// "ctxql diff" (the file new in a git work tree) as in TestDoorsAgree.
func FuzzDoorsAgree(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			f.Fatal("git is not installed")
		}
		f.Skip("git is not installed")
	}
	for i, e := range append(corpus(f), repros...) {
		n := slices.Index(fuzzNames, filepath.Base(e.name))
		c := slices.Index(fuzzConfigs, e.config)
		if i%doorsSeedEvery != 0 || n < 0 || c < 0 || e.data != "" {
			continue
		}
		f.Add(uint8(n), uint8(c), e.src)
	}
	c := startLSP(f)
	f.Fuzz(func(t *testing.T, nameIdx, cfgIdx uint8, src string) {
		e := entry{origin: "fuzz", name: fuzzNames[int(nameIdx)%len(fuzzNames)],
			config: fuzzConfigs[int(cfgIdx)%len(fuzzConfigs)], src: src}
		if _, err := config.Parse([]byte(e.config)); err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		git(t, root, "init", "-q")
		git(t, root, "commit", "-q", "--allow-empty", "-m", "base")
		p := place(t, root, "e", e)
		if p == nil {
			return
		}
		dir := filepath.Join(root, "e")
		agreeCheck(t, p.path, p.v)
		agreeMigrate(t, dir, p.path, p.v, e)
		formatted := agreeFmt(t, p.path, p.v)
		agreeEval(t, dir, p.path, p.v, e, formatted)
		if slices.Contains(lang.Queries(), p.v.lang) {
			agreeLSP(t, c, p.path, p.v, formatted)
		}
		rep, err := resultdiff.Run(context.Background(), resultdiff.Options{Dir: root})
		if err != nil {
			t.Fatalf("diff: %v", err)
		}
		changes := map[string][]resultdiff.Change{}
		for _, ch := range rep.Changes {
			changes[ch.Path] = append(changes[ch.Path], ch)
		}
		doors(t, mcpserver.New(&acp.Index{Root: root}, mcpserver.Options{}), root, p, changes, map[string]int{})
	})
}
