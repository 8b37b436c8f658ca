package acp

import (
	"encoding/json"
	"fmt"
	"os"
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
// when there is none or it cannot be read. It reads .git/HEAD, the loose ref
// and packed-refs as files and runs no program: a project directory may be
// hostile, and git itself would honour its configuration (core.fsmonitor
// and the like run commands). A .git file (a worktree or a submodule) is
// followed to the directory it names, and a worktree's refs are looked up
// in the common directory too. Refs stored otherwise (reftable) are not
// read, so no staleness is reported from them.
func GitHead(dir string) string {
	d, _ := filepath.Abs(dir)
	for {
		gd := filepath.Join(d, ".git")
		if st, err := os.Stat(gd); err == nil {
			if !st.IsDir() {
				if gd = gitDirOf(d, gd); gd == "" {
					return ""
				}
			}
			return readHead(gd)
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

// gitDirOf reads a .git file ("gitdir: PATH", PATH relative to the
// directory holding it) and returns the directory it names, or "".
func gitDirOf(dir, file string) string {
	b, err := gitFiles.ReadFile(file)
	if err != nil {
		return ""
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	p = filepath.FromSlash(strings.TrimSpace(p))
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return ""
	}
	return p
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
		return commitID(h)
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return ""
	}
	dirs := []string{gitDir}
	// A linked worktree keeps its HEAD in its own directory and shares the
	// refs of the common directory, named by its commondir file.
	if b, err := gitFiles.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := filepath.FromSlash(strings.TrimSpace(string(b)))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dirs = append(dirs, c)
	}
	for _, d := range dirs {
		if b, err := gitFiles.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return commitID(strings.TrimSpace(string(b)))
		}
	}
	for _, d := range dirs {
		b, err := gitFiles.ReadFile(filepath.Join(d, "packed-refs"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[1] == ref {
				return commitID(f[0])
			}
		}
	}
	return ""
}

// commitID returns s when it is a full SHA-1 or SHA-256 object name in hex,
// else "".
func commitID(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return s
}
