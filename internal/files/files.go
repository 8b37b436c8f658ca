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
	max     int64    // 0: no limit
	limitOf string   // how to raise the limit, for error messages
}

// New returns an unconfined reader of regular files of at most maxBytes
// (0: no limit). raise says how a user raises the limit ("--max-data-bytes"),
// and appears in the error for a file over it.
func New(maxBytes int64, raise string) *Reader {
	return &Reader{max: maxBytes, limitOf: raise}
}

// Confined returns a reader that opens only regular files inside dir, of at
// most maxBytes each (0: no limit). Relative names are taken from dir;
// absolute names must lie inside it; symbolic links are followed only while
// they stay inside it.
func Confined(dir string, maxBytes int64, raise string) (*Reader, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("confine to %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("confine to %s: %w", dir, err)
	}
	return &Reader{root: root, dir: abs, max: maxBytes, limitOf: raise}, nil
}

// Dir returns a confined reader's directory, or "" for an unconfined one.
func (r *Reader) Dir() string { return r.dir }

// MaxBytes returns the size limit (0: none).
func (r *Reader) MaxBytes() int64 { return r.max }

// Close releases a confined reader's directory handle.
func (r *Reader) Close() error {
	if r.root != nil {
		return r.root.Close()
	}
	return nil
}

// rel maps name to a name relative to the confined directory.
func (r *Reader) rel(name string) (string, error) {
	if !filepath.IsAbs(name) {
		return name, nil
	}
	real := name
	if p, err := filepath.EvalSymlinks(name); err == nil {
		real = p
	}
	rel, err := filepath.Rel(r.dir, real)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s: %w", name, ErrOutside)
	}
	return rel, nil
}

// wrapRootErr names escapes through links as ErrOutside.
func wrapRootErr(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		return fmt.Errorf("%s: %w", name, ErrOutside)
	}
	return err
}

// Stat returns the file information of name, following links (inside the
// directory, for a confined reader).
func (r *Reader) Stat(name string) (fs.FileInfo, error) {
	if r.root == nil {
		return os.Stat(name)
	}
	rel, err := r.rel(name)
	if err != nil {
		return nil, err
	}
	fi, err := r.root.Stat(rel)
	return fi, wrapRootErr(name, err)
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
		var rel string
		if rel, err = r.rel(name); err == nil {
			f, err = r.root.OpenFile(rel, flags, 0)
			err = wrapRootErr(name, err)
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
// past the limit while it is read is refused too.
func (r *Reader) ReadFile(name string) ([]byte, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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
	rel, err := r.rel(name)
	if err != nil {
		return nil, err
	}
	f, err := r.root.Open(rel)
	if err != nil {
		return nil, wrapRootErr(name, err)
	}
	defer f.Close()
	return f.ReadDir(-1)
}
