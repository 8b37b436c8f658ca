//go:build !unix && !windows

package atomicfile

import (
	"io/fs"
	"os"
)

// writable has only the mode to go by here.
func writable(string) bool { return true }

// keepOwner does nothing: there are no owners to keep.
func keepOwner(*os.File, fs.FileInfo) {}
