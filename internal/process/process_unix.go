//go:build unix

package process

import (
	"errors"
	"syscall"
)

// alive sends the null signal: it fails with ESRCH when no such process
// exists, and with EPERM for a process of another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
