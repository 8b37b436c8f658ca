//go:build windows

package atomicfile

import (
	"io/fs"
	"os"
)

// writable reports whether this process may write the file: the read-only
// attribute shows in the mode, the file's access control list only in an
// attempt to open it for writing, which changes nothing.
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// keepOwner does nothing: a new file on Windows gets its owner and access
// control list from the process and the directory, and only the read-only
// attribute is carried over, by the mode.
func keepOwner(*os.File, fs.FileInfo) {}
