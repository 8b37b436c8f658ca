package acp

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot is wrapped by errors for paths that leave the project
// directory.
var ErrOutsideRoot = errors.New("path outside the project directory")

// Confine checks that p, a slash-separated path relative to root, stays
// inside root: it must be relative, free of NUL bytes and ".." segments
// after cleaning, and must not reach outside root through symbolic links
// (the longest existing prefix is resolved with filepath.EvalSymlinks and
// checked for containment). It returns the cleaned relative path, the key
// the cache uses, and the absolute path on disk.
func Confine(root, p string) (rel, abs string, err error) {
	if p == "" {
		return "", "", fmt.Errorf("empty path: %w", ErrOutsideRoot)
	}
	if strings.ContainsRune(p, 0) || strings.Contains(p, "\\") {
		return "", "", fmt.Errorf("invalid character in path %q: %w", p, ErrOutsideRoot)
	}
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", "", fmt.Errorf("absolute path %q: %w", p, ErrOutsideRoot)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", "", fmt.Errorf("path %q has a .. segment: %w", p, ErrOutsideRoot)
		}
	}
	rel = path.Clean(p)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return "", "", fmt.Errorf("path %q: %w", p, ErrOutsideRoot)
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("project root: %w", err)
	}
	rootReal, err := filepath.EvalSymlinks(rootAbs)
	if err != nil {
		return "", "", fmt.Errorf("project root: %w", err)
	}
	abs = filepath.Join(rootAbs, filepath.FromSlash(rel))
	if !within(rootAbs, abs) {
		return "", "", fmt.Errorf("path %q: %w", p, ErrOutsideRoot)
	}
	// Resolve the longest existing prefix and check it stays inside.
	probe := abs
	var tail []string
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			full := filepath.Join(append([]string{real}, tail...)...)
			if !within(rootReal, full) {
				return "", "", fmt.Errorf("path %q resolves outside through a symbolic link: %w", p, ErrOutsideRoot)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			// A dangling or looping link, or an unreadable directory:
			// refuse rather than guess.
			if _, lerr := os.Lstat(probe); lerr == nil {
				return "", "", fmt.Errorf("path %q: %w: %w", p, ErrOutsideRoot, err)
			}
		}
		if fi, lerr := os.Lstat(probe); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", "", fmt.Errorf("path %q has a dangling symbolic link: %w", p, ErrOutsideRoot)
		}
		parent := filepath.Dir(probe)
		if parent == probe || !within(rootAbs, parent) && parent != rootAbs {
			break
		}
		tail = append([]string{filepath.Base(probe)}, tail...)
		probe = parent
	}
	return rel, abs, nil
}

func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return r == "." || (r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r))
}
