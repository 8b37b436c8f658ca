//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package files

import (
	"os"
	"syscall"
)

// mapFile maps size bytes of f, read-only, and reports whether it did.
// The pages are populated at once where the platform can (mapPopulate):
// one call maps the cached pages instead of a fault per page.
func mapFile(f *os.File, size int) ([]byte, bool) {
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
	if err != nil {
		return nil, false
	}
	return b, true
}

func unmap(b []byte) error { return syscall.Munmap(b) }
