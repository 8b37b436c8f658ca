package resultdiff

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxql/ctxql/internal/files"
)

// maxIndexBytes bounds the git index file read directly: a larger one is
// listed by git instead.
const maxIndexBytes = 1 << 30

// errIndexUnsupported reports an index this reader does not take apart
// (a split or sparse index, unmerged entries): the caller asks git for
// the listing instead.
var errIndexUnsupported = errors.New("index form not read directly")

// Index entry flags (git's index-format.txt).
const (
	indexExtended  = 0x4000 // flags: a second 16-bit flags word follows (version 3 and later)
	indexStageMask = 0x3000 // flags: the merge stage
	indexIntent    = 0x2000 // extended flags: added with "git add -N", not staged
)

// readIndex returns the entries of the git index file at name (versions
// 2, 3 and 4), in the index's order (sorted by path), for object names of
// hashLen bytes (20 for SHA-1, 32 for SHA-256). It refuses, with
// errIndexUnsupported, a split index, a sparse index and unmerged entries.
func readIndex(name string, hashLen int) ([]entry, error) {
	// A regular file of at most maxIndexBytes: a FIFO or a device in
	// place of .git/index is refused, never read.
	f, err := files.New(maxIndexBytes, "").Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into one string, which the entries' paths and object names
	// share.
	var sb strings.Builder
	if fi, err := f.Stat(); err == nil {
		sb.Grow(int(fi.Size()))
	}
	if _, err := io.Copy(&sb, f); err != nil {
		return nil, err
	}
	return parseIndex(sb.String(), hashLen)
}

// be32 and be16 read big-endian numbers at off.
func be32(b string, off int) uint32 {
	return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
}

func be16(b string, off int) uint16 { return uint16(b[off])<<8 | uint16(b[off+1]) }

// parseIndex is readIndex on the index file's content.
func parseIndex(b string, hashLen int) ([]entry, error) {
	bad := func(what string) error { return fmt.Errorf("git index: %s", what) }
	if len(b) < 12+hashLen || b[:4] != "DIRC" {
		return nil, bad("no index header")
	}
	version := be32(b, 4)
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("git index: version %d: %w", version, errIndexUnsupported)
	}
	n := int(be32(b, 8))
	end := len(b) - hashLen // the trailing checksum
	out := make([]entry, 0, min(n, end/62))
	off := 12
	var prev string // version 4: the previous entry's path
	for range n {
		// ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4
		// each), the object name, 16 bits of flags.
		fixed := 40 + hashLen + 2
		if off+fixed > end {
			return nil, bad("entry past the end")
		}
		mode := be32(b, off+24)
		oid := b[off+40 : off+40+hashLen]
		flags := be16(b, off+40+hashLen)
		p := off + fixed
		intent := false
		if flags&indexExtended != 0 {
			if version < 3 {
				return nil, bad("extended flags in a version 2 index")
			}
			p += 2
			if p > end {
				return nil, bad("entry past the end")
			}
			intent = be16(b, p-2)&indexIntent != 0
		}
		if flags&indexStageMask != 0 {
			return nil, fmt.Errorf("git index: unmerged entries: %w", errIndexUnsupported)
		}
		var path string
		if version == 4 {
			// A varint: how many bytes of the previous path to drop; then
			// the rest of the path, NUL-terminated; no padding.
			drop, k := indexVarint(b[p:end])
			if k == 0 || drop > uint64(len(prev)) {
				return nil, bad("bad path prefix")
			}
			p += k
			z := strings.IndexByte(b[p:end], 0)
			if z < 0 {
				return nil, bad("unterminated path")
			}
			path = prev[:len(prev)-int(drop)] + b[p:p+z]
			off = p + z + 1
		} else {
			z := strings.IndexByte(b[p:end], 0)
			if z < 0 {
				return nil, bad("unterminated path")
			}
			path = b[p : p+z]
			// The entry is padded with 1 to 8 NULs to a multiple of 8.
			off += (p - off + z + 8) &^ 7
		}
		prev = path
		if mode&0o170000 == 0o040000 {
			return nil, fmt.Errorf("git index: a sparse directory entry: %w", errIndexUnsupported)
		}
		out = append(out, entry{path: path, mode: mode, oid: oid, intent: intent})
	}
	// Extensions: a 4-byte signature and a 4-byte size each. A split
	// index keeps entries in another file; a sparse index folds
	// directories.
	for off+8 <= end {
		sig, size := b[off:off+4], int(be32(b, off+4))
		if sig == "link" || sig == "sdir" {
			return nil, fmt.Errorf("git index: extension %q: %w", sig, errIndexUnsupported)
		}
		if size < 0 || off+8+size > end {
			return nil, bad("extension past the end")
		}
		off += 8 + size
	}
	return out, nil
}

// indexVarint decodes git's offset varint (varint.c) at the start of b and
// returns it and the bytes it took (0: malformed).
func indexVarint(b string) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 0x7f)
	i := 1
	for c&0x80 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		c = b[i]
		i++
		v = (v+1)<<7 | uint64(c&0x7f)
	}
	return v, i
}
