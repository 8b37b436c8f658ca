package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/acp"
)

// TestStalenessRunsNoProgram runs `ctxql acp query` as a subprocess on
// projects whose git metadata is hostile or unusual, with a `git` on PATH
// that records being run and a .git/config whose core.fsmonitor and hooks
// would run a program: the staleness check reads HEAD and refs as files and
// never starts git. A linked worktree (.git file, commondir) and packed
// refs still give HEAD's commit and the stale warning.
func TestStalenessRunsNoProgram(t *testing.T) {
	bin := ctxqlBinary(t)
	base := t.TempDir()
	marker := filepath.Join(base, "ran")
	fake := filepath.Join(base, "bin")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(fake, 0o755))
	script := "#!/bin/sh\necho \"$0 $*\" >> " + marker + "\necho 0123456789abcdef0123456789abcdef01234567\n"
	must(os.WriteFile(filepath.Join(fake, "git"), []byte(script), 0o755))
	must(os.WriteFile(filepath.Join(fake, "monitor"), []byte(script), 0o755))
	cache, err := os.ReadFile(fixture)
	must(err)
	const built = "1111111111111111111111111111111111111111"
	const head = "2222222222222222222222222222222222222222"
	cacheWith := strings.Replace(string(cache), `"generated_at"`, `"git_commit": "`+built+`", "generated_at"`, 1)
	if !strings.Contains(cacheWith, built) {
		t.Fatal("the fixture has no generated_at to insert git_commit before")
	}
	hostileConfig := "[core]\n\tfsmonitor = " + filepath.Join(fake, "monitor") + "\n\thooksPath = " + fake + "\n"
	project := func(name string, gitFiles map[string]string) string {
		dir := filepath.Join(base, name)
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(dir, acp.DefaultCacheName), []byte(cacheWith), 0o644))
		for p, content := range gitFiles {
			p = filepath.Join(dir, p)
			must(os.MkdirAll(filepath.Dir(p), 0o755))
			must(os.WriteFile(p, []byte(content), 0o644))
		}
		return dir
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		stale bool // HEAD is readable and differs from the cache's commit
	}{
		{"unreadable ref", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": hostileConfig}, false},
		{"loose ref", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": head + "\n", ".git/config": hostileConfig}, true},
		{"packed ref", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/packed-refs": "# pack-refs with: peeled\n" + head + " refs/heads/main\n", ".git/config": hostileConfig}, true},
		{"detached", map[string]string{".git/HEAD": head + "\n", ".git/config": hostileConfig}, true},
		{"garbage HEAD", map[string]string{".git/HEAD": "$(touch x)\n", ".git/config": hostileConfig}, false},
		{"worktree", map[string]string{
			".git":                                "gitdir: ../repo/.git/worktrees/wt\n",
			"../repo/.git/worktrees/wt/HEAD":      "ref: refs/heads/topic\n",
			"../repo/.git/worktrees/wt/commondir": "../..\n",
			"../repo/.git/refs/heads/topic":       head + "\n",
			"../repo/.git/config":                 hostileConfig,
		}, true},
		{"dangling .git file", map[string]string{".git": "gitdir: /nonexistent\n"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := project(strings.ReplaceAll(c.name, " ", "-"), c.files)
			cmd := exec.Command(bin, "acp", "query", "stats")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if b, err := os.ReadFile(marker); err == nil {
				t.Fatalf("a program was run: %s", b)
			}
			warned := strings.Contains(stderr.String(), "built at commit 111111111111, HEAD is 222222222222")
			if warned != c.stale {
				t.Errorf("stale warning %v, want %v; stderr:\n%s", warned, c.stale, stderr.String())
			}
		})
	}
}
