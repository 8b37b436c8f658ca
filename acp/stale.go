package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxql/ctxql/internal/files"
)

// Staleness lists the reasons the cache looks out of date. An empty list
// means no sign of staleness was found; it is advice, never an error.
func (ix *Index) Staleness() []string {
	var warns []string
	gen, err := time.Parse(time.RFC3339, ix.Cache.GeneratedAt)
	if err != nil {
		warns = append(warns, fmt.Sprintf("cache generated_at %q is not an RFC 3339 time; cannot check staleness", ix.Cache.GeneratedAt))
	} else {
		n := 0
		first := ""
		for _, f := range ix.fileNames {
			_, abs, err := Confine(ix.Root, f)
			if err != nil {
				continue
			}
			st, err := os.Stat(abs)
			if err != nil || !st.ModTime().After(gen) {
				continue
			}
			if n == 0 {
				first = f
			}
			n++
		}
		if n == 1 {
			warns = append(warns, fmt.Sprintf("cache is stale: %s was modified after %s", first, ix.Cache.GeneratedAt))
		} else if n > 1 {
			warns = append(warns, fmt.Sprintf("cache is stale: %s and %d other files were modified after %s", first, n-1, ix.Cache.GeneratedAt))
		}
	}
	if want := ix.gitCommit(); want != "" {
		if head := GitHead(ix.Root); head != "" && !strings.HasPrefix(head, want) && !strings.HasPrefix(want, head) {
			warns = append(warns, fmt.Sprintf("cache is stale: built at commit %s, HEAD is %s", short(want), short(head)))
		}
	}
	return warns
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// gitCommit is the cache's git_commit: top level, else project.git_commit.
func (ix *Index) gitCommit() string {
	if ix.Cache.GitCommit != "" {
		return ix.Cache.GitCommit
	}
	var p struct {
		GitCommit string `json:"git_commit"`
	}
	if len(ix.Cache.Project) > 0 && json.Unmarshal(ix.Cache.Project, &p) == nil {
		return p.GitCommit
	}
	return ""
}

// GitHead returns the commit HEAD names in the repository holding dir, or ""
// when there is none. It reads .git/HEAD and the ref files itself and falls
// back to `git rev-parse HEAD`.
func GitHead(dir string) string {
	d, _ := filepath.Abs(dir)
	for {
		gd := filepath.Join(d, ".git")
		if st, err := os.Stat(gd); err == nil && st.IsDir() {
			if h := readHead(gd); h != "" {
				return h
			}
			break
		} else if err == nil {
			break // a worktree or submodule .git file: let git answer
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
	cmd := exec.Command("git", "rev-parse", "HEAD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gitFiles reads a repository's HEAD and refs: regular files only, of a
// bounded size (a FIFO or a device named HEAD must not hang the staleness
// check).
var gitFiles = files.New(64<<20, "")

func readHead(gitDir string) string {
	b, err := gitFiles.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok {
		return h
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return ""
	}
	if b, err := gitFiles.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	b, err = gitFiles.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == ref {
			return f[0]
		}
	}
	return ""
}
