package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutsideRoot is wrapped by errors for paths that leave the project
// directory.
var ErrOutsideRoot = errors.New("path outside the project directory")

// Bounds on a path given to Confine, checked before any other work: no
// file in a project needs more, and the work of confinement grows with them.
const (
	// MaxPathBytes is the longest path accepted, Linux's PATH_MAX.
	MaxPathBytes = 4096
	// MaxPathSegments is the most slash-separated segments a path may have.
	MaxPathSegments = 256
)

// ErrPathTooLong is wrapped by errors for paths over MaxPathBytes or
// MaxPathSegments.
var ErrPathTooLong = errors.New("path too long")

// Confine is ConfineContext without a context.
func Confine(root, p string) (rel, abs string, err error) {
	return ConfineContext(context.Background(), root, p)
}

// ConfineContext checks that p, a slash-separated path relative to root,
// stays inside root: it must be at most MaxPathBytes long with at most
// MaxPathSegments segments, relative, free of NUL bytes and ".." segments
// after cleaning, and must not reach outside root through symbolic links
// (each link met on the way down from root is resolved with
// filepath.EvalSymlinks and checked for containment; the walk stops at the
// first segment that does not exist). The work is linear in the length of
// p, and it stops with ctx's error when ctx ends. It returns the cleaned
// relative path, the key the cache uses, and the absolute path on disk.
func ConfineContext(ctx context.Context, root, p string) (rel, abs string, err error) {
	if p == "" {
		return "", "", fmt.Errorf("empty path: %w", ErrOutsideRoot)
	}
	if len(p) > MaxPathBytes {
		return "", "", fmt.Errorf("path of %d bytes is longer than %d bytes: %w", len(p), MaxPathBytes, ErrPathTooLong)
	}
	if n := strings.Count(p, "/") + 1; n > MaxPathSegments {
		return "", "", fmt.Errorf("path of %d segments has more than %d: %w", n, MaxPathSegments, ErrPathTooLong)
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
	// Walk down from the root, resolving each link met.
	cur := rootReal
	for _, seg := range strings.Split(rel, "/") {
		if err := ctx.Err(); err != nil {
			return "", "", fmt.Errorf("path %q: %w", p, err)
		}
		next := filepath.Join(cur, seg)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			break // nothing below exists
		}
		if err != nil {
			// An unreadable directory: refuse rather than guess.
			return "", "", fmt.Errorf("path %q: %w: %w", p, ErrOutsideRoot, err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		real, err := filepath.EvalSymlinks(next)
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("path %q has a dangling symbolic link: %w", p, ErrOutsideRoot)
		}
		if err != nil {
			// A looping link.
			return "", "", fmt.Errorf("path %q: %w: %w", p, ErrOutsideRoot, err)
		}
		if !within(rootReal, real) {
			return "", "", fmt.Errorf("path %q resolves outside through a symbolic link: %w", p, ErrOutsideRoot)
		}
		cur = real
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
