//go:build unix

package files

import "syscall"

// openFlags opens without waiting: opening a FIFO for reading blocks until a
// writer comes, unless O_NONBLOCK is set. The flag does not change how a
// regular file is read.
const openFlags = syscall.O_NONBLOCK
