// Package files opens the files ctxql reads — sources, sample data, caches —
// the one safe way: only regular files (never a FIFO, a device or a socket,
// which can hang or flood a reader), at most a configured size, and, for a
// confined reader, only inside one directory with every symbolic link
// resolved and checked (a link that leads out of the directory is refused).
//
// Every tool reads through a Reader: the command line with an unconfined one,
// the MCP server with one confined to the project directory.
package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular reports a path that names something other than a regular
// file (or, for ReadDir, a directory): a FIFO, a device, a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge reports a file over the reader's size limit.
var ErrTooLarge = errors.New("file too large")

// ErrOutside reports a path, or a symbolic link, that leads outside a
// confined reader's directory.
var ErrOutside = errors.New("path outside the allowed directory")

// A Reader opens files. The zero Reader opens any regular file of any size.
// A Reader is safe for concurrent use.
type Reader struct {
	root    *os.Root // nil: not confined
	dir     string   // the root's absolute path
	also    []area   // further directories a confined reader opens
	max     int64    // 0: no limit
	limitOf string   // how to raise the limit, for error messages
}

// area is one further directory of a confined reader.
type area struct {
	root *os.Root
	dir  string
}

// New returns an unconfined reader of regular files of at most maxBytes
// (0: no limit). raise says how a user raises the limit ("--max-data-bytes"),
// and appears in the error for a file over it.
func New(maxBytes int64, raise string) *Reader {
	return &Reader{max: maxBytes, limitOf: raise}
}

// Confined returns a reader that opens only regular files inside dir, of at
// most maxBytes each (0: no limit). Relative names are taken from dir;
// absolute names must lie inside it, or inside one of the directories
// also; symbolic links are followed only while they stay inside the
// directory they start in. Errors name a refused path relative to dir,
// never by its absolute name.
func Confined(dir string, maxBytes int64, raise string, also ...string) (*Reader, error) {
	abs, root, err := openArea(dir)
	if err != nil {
		return nil, err
	}
	r := &Reader{root: root, dir: abs, max: maxBytes, limitOf: raise}
	for _, d := range also {
		abs, root, err := openArea(d)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.also = append(r.also, area{root: root, dir: abs})
	}
	return r, nil
}

// openArea opens the directory dir, its links resolved, as a root.
func openArea(dir string) (string, *os.Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fmt.Errorf("confine to %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return "", nil, fmt.Errorf("confine to %s: %w", dir, err)
	}
	return abs, root, nil
}

// Dir returns a confined reader's directory, or "" for an unconfined one.
func (r *Reader) Dir() string { return r.dir }

// MaxBytes returns the size limit (0: none).
func (r *Reader) MaxBytes() int64 { return r.max }

// Close releases a confined reader's directory handle.
func (r *Reader) Close() error {
	var err error
	if r.root != nil {
		err = r.root.Close()
	}
	for _, a := range r.also {
		if e := a.root.Close(); err == nil {
			err = e
		}
	}
	return err
}

// rel maps name to the root it lies in and a name relative to it.
func (r *Reader) rel(name string) (*os.Root, string, error) {
	if !filepath.IsAbs(name) {
		return r.root, name, nil
	}
	real := name
	if p, err := filepath.EvalSymlinks(name); err == nil {
		real = p
	}
	if rel, ok := within(r.dir, real); ok {
		return r.root, rel, nil
	}
	for _, a := range r.also {
		if rel, ok := within(a.dir, real); ok {
			return a.root, rel, nil
		}
	}
	return nil, "", r.outside(name)
}

// within returns p relative to dir when it lies inside.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", false
	}
	return rel, true
}

// outside is the error of a path that leads outside the reader's
// directories. It names the path relative to the reader's directory, so
// that the error tells nothing about the file system beyond it that its
// caller did not say.
func (r *Reader) outside(name string) error {
	shown := name
	if filepath.IsAbs(name) {
		if rel, err := filepath.Rel(r.dir, filepath.Clean(name)); err == nil {
			shown = filepath.ToSlash(rel)
		} else {
			shown = filepath.Base(name)
		}
	}
	return fmt.Errorf("%s: %w", shown, ErrOutside)
}

// wrapRootErr names escapes through links as ErrOutside.
func (r *Reader) wrapRootErr(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		return r.outside(name)
	}
	return err
}

// Stat returns the file information of name, following links (inside the
// directory, for a confined reader).
func (r *Reader) Stat(name string) (fs.FileInfo, error) {
	if r.root == nil {
		return os.Stat(name)
	}
	root, rel, err := r.rel(name)
	if err != nil {
		return nil, err
	}
	fi, err := root.Stat(rel)
	return fi, r.wrapRootErr(name, err)
}

// Open opens name for reading. It refuses anything but a regular file, and a
// file over the size limit. The open itself never blocks: a FIFO is refused,
// not waited on (openFlags says how each platform makes sure of that).
func (r *Reader) Open(name string) (*os.File, error) {
	var f *os.File
	var err error
	flags := os.O_RDONLY | openFlags
	if r.root == nil {
		f, err = os.OpenFile(name, flags, 0)
	} else {
		var root *os.Root
		var rel string
		if root, rel, err = r.rel(name); err == nil {
			f, err = root.OpenFile(rel, flags, 0)
			err = r.wrapRootErr(name, err)
		}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, fmt.Errorf("%s: is a directory: %w", name, ErrNotRegular)
		}
		return nil, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	if r.max > 0 && fi.Size() > r.max {
		f.Close()
		return nil, r.tooLarge(name)
	}
	return f, nil
}

func (r *Reader) tooLarge(name string) error {
	if r.limitOf != "" {
		return fmt.Errorf("%s: %w: over %d bytes (raise with %s)", name, ErrTooLarge, r.max, r.limitOf)
	}
	return fmt.Errorf("%s: %w: over %d bytes", name, ErrTooLarge, r.max)
}

// ReadFile reads the whole of name under Open's rules; a file that grows
// past the limit while it is read is refused too. A large file is read in
// two halves at once when there is more than one processor: copying the
// bytes and first touching the new buffer's memory (its page faults) are
// most of the cost of a read from the page cache, and they split.
func (r *Reader) ReadFile(name string) ([]byte, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if b, ok, err := r.readHalves(name, f); ok {
		return b, err
	}
	return r.ReadAll(name, f)
}

// ReadAll reads rc to its end under the size limit; name is for errors.
func (r *Reader) ReadAll(name string, rd io.Reader) ([]byte, error) {
	var size int64
	if f, ok := rd.(*os.File); ok {
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if r.max > 0 {
		rd = io.LimitReader(rd, r.max+1)
	}
	b := make([]byte, 0, size+512)
	for {
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if r.max > 0 && int64(len(b)) > r.max {
			return nil, r.tooLarge(name)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// ReadDir lists a directory (inside the confined directory, for a confined
// reader).
func (r *Reader) ReadDir(name string) ([]fs.DirEntry, error) {
	if r.root == nil {
		return os.ReadDir(name)
	}
	root, rel, err := r.rel(name)
	if err != nil {
		return nil, err
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, r.wrapRootErr(name, err)
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// WalkDir walks the tree at name as filepath.WalkDir does: in lexical
// order, without following links to directories, fn returning
// filepath.SkipDir or filepath.SkipAll to prune. The paths fn receives
// start with name. A confined reader walks only inside its directories.
func (r *Reader) WalkDir(name string, fn fs.WalkDirFunc) error {
	if r.root == nil {
		return filepath.WalkDir(name, fn)
	}
	root, rel, err := r.rel(name)
	if err != nil {
		return fn(name, nil, err)
	}
	start := filepath.ToSlash(filepath.Clean(rel))
	return fs.WalkDir(root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		sub := strings.TrimPrefix(strings.TrimPrefix(p, start), "/")
		if start == "." {
			sub = p
		}
		full := name
		if sub != "" && sub != "." {
			full = filepath.Join(name, filepath.FromSlash(sub))
		}
		return fn(full, d, r.wrapRootErr(full, err))
	})
}
