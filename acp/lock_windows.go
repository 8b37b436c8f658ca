//go:build windows

package acp

import (
	"os"

	"golang.org/x/sys/windows"

	"github.com/ctxql/ctxql/internal/files"
)

// lockFile takes an exclusive LockFileEx lock on the first byte of the file
// at path, creating it, and waits until it has it. Like the Unix flock it
// refuses a link there: the file is opened as the link itself
// (FILE_FLAG_OPEN_REPARSE_POINT) and anything but a plain file on disk is
// refused. The lock is the process's until unlock, or until it exits.
func lockFile(path string) (unlock func(), err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_ALWAYS, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil ||
		info.FileAttributes&(windows.FILE_ATTRIBUTE_REPARSE_POINT|windows.FILE_ATTRIBUTE_DIRECTORY) != 0 {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: files.ErrNotRegular}
	}
	if t, err := windows.GetFileType(h); err != nil || t != windows.FILE_TYPE_DISK {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: files.ErrNotRegular}
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "LockFileEx", Path: path, Err: err}
	}
	return func() {
		windows.UnlockFileEx(h, 0, 1, 0, ol)
		windows.CloseHandle(h)
	}, nil
}
