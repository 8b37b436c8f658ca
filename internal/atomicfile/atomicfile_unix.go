//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// writable reports whether this process may write the file, by its owner,
// group and mode (and ACLs, where the system has them).
func writable(path string) bool {
	return syscall.Access(path, 2 /* W_OK */) == nil
}

// keepOwner gives the temporary file the owner and group of the file it
// replaces when it may (running as root over a user's file); an ordinary
// user cannot give a file away and keeps it anyway.
func keepOwner(tmp *os.File, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		_ = tmp.Chown(int(st.Uid), int(st.Gid))
	}
}
