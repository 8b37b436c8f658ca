package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/internal/files"
)

// walk expands the paths named on a command line into the files a command
// reads or rewrites. A link met in a directory walk is followed only when
// its target lies inside the named paths: one that leads outside them is
// skipped, with one line on stderr, so that "ctxql fmt -w ." never rewrites
// (and "ctxql check ." never reads) a file elsewhere. A link named on the
// command line is itself a named path and is followed.
type walk struct {
	cmd    string
	stderr io.Writer
	roots  []string        // the named paths, absolute, links resolved
	told   map[string]bool // links already reported
	dir    string          // the working directory, read once ("" when unknown)
}

// newWalk returns the walk of a command's path arguments ("-", standard
// input, is none).
func newWalk(cmd string, env Env, args []string) *walk {
	w := &walk{cmd: cmd, stderr: env.Stderr, told: map[string]bool{}}
	w.dir, _ = os.Getwd()
	for _, a := range args {
		if a == "-" {
			continue
		}
		if r, err := resolved(a); err == nil {
			w.roots = append(w.roots, r)
		}
	}
	return w
}

// abs is absPath against the working directory read once.
func (w *walk) abs(p string) string {
	if w.dir == "" || filepath.IsAbs(p) {
		return absPath(p)
	}
	return filepath.Join(w.dir, p)
}

// resolved returns p absolute, with every link on the way resolved.
func resolved(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(r)
}

// inside reports whether the resolved path p is one of the named paths or
// lies below one.
func (w *walk) inside(p string) bool {
	for _, r := range w.roots {
		if rel, err := filepath.Rel(r, p); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return true
		}
	}
	return false
}

// outside reports whether p, an entry met in a directory walk, is a link
// whose target resolves outside the named paths, and says so on stderr the
// first time. A link that does not resolve (dangling, a loop) is kept: reading
// it fails with its own message.
func (w *walk) outside(p string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	r, err := resolved(p)
	if err != nil || w.inside(r) {
		return false
	}
	if !w.told[p] {
		w.told[p] = true
		target, _ := os.Readlink(p)
		fmt.Fprintf(w.stderr, "%s: %s: skipped: a link to %s, outside the paths named on the command line (name the link itself to go through it)\n", w.cmd, p, target)
	}
	return true
}

// collect expands a path: a file as itself (whatever its name), a directory
// into the files below it that keep accepts, sorted. Directories .git and
// node_modules, the files and directories cfg excludes (cfg may be nil) and
// links leading outside the named paths are skipped.
func (w *walk) collect(root string, keep func(name string) bool, cfg *config.Config) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{root}, nil
	}
	var out []string
	err = files.New(0, "").WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		excluded := cfg != nil && p != root && cfg.Excluded(w.abs(p))
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || d.Name() == "node_modules" || excluded) {
				return filepath.SkipDir
			}
			return nil
		}
		if keep(p) && !excluded && !w.outside(p, d) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	if err != nil {
		return out, fmt.Errorf("walk %s: %w", root, err)
	}
	return out, nil
}
