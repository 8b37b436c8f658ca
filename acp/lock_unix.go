//go:build unix

package acp

import (
	"os"
	"syscall"

	"github.com/ctxql/ctxql/internal/files"
)

// lockFile takes an exclusive flock on the file at path, creating it; it
// refuses to follow a link there.
func lockFile(path string) (unlock func(), err error) {
	fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: files.ErrNotRegular}
	}
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return func() {
		syscall.Flock(fd, syscall.LOCK_UN)
		syscall.Close(fd)
	}, nil
}
