// Package atomicfile rewrites existing files so that a reader, or a later
// run after a crash, sees either the old content or the new one, never a
// mixture: the new content goes to a temporary file next to the target and
// is renamed over it.
//
// A symbolic link is written through: its target is rewritten and the link
// stays a link. A file without write permission is refused, as gofmt
// refuses it, even when the process could replace it (the rename only needs
// a writable directory). Temporary files are named ".NAME.ctxql-PID-N.tmp";
// Write removes those left next to NAME by a process that no longer runs
// (one killed mid-write), so they do not accumulate.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/internal/process"
)

// ErrReadOnly reports a file without write permission.
var ErrReadOnly = errors.New("file is read-only")

// ErrNotRegular reports a target that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// tempPrefix is the start of the temporary names for the file base.
func tempPrefix(base string) string { return "." + base + ".ctxql-" }

// Write replaces the content of the existing file path with data, through
// a temporary file in the target's directory and a rename. A symbolic link
// is followed to its final target, which is rewritten; the target keeps its
// permission bits. A target without write permission is refused with
// ErrReadOnly, anything but a regular file with ErrNotRegular.
func Write(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if fi.Mode().Perm()&0o222 == 0 || !writable(target) {
		return fmt.Errorf("%s: %w (mode %04o): not rewritten", path, ErrReadOnly, fi.Mode().Perm())
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	CleanStale(target)
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	done := false
	defer func() {
		if !done {
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	keepOwner(tmp, fi)
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, target); err != nil {
		return err
	}
	done = true
	return nil
}

// CleanStale removes the temporary files that an earlier, killed process
// left next to path (for path's base name) and reports how many it removed.
// Files of a process that still runs are kept: it may be writing them.
func CleanStale(path string) int {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	prefix := tempPrefix(base)
	n := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() && e.Type()&fs.ModeType != 0 {
			continue
		}
		pid, ok := tempPID(rest)
		if !ok || process.Alive(pid) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// tempPID parses "PID-N.tmp" (older releases wrote "N" alone: those are
// stale too, reported as pid 0, which is never alive).
func tempPID(rest string) (int, bool) {
	p, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, rest != ""
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
