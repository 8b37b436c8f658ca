// Package process tells whether a process still runs, for the cleanup of
// temporary files and directories whose names carry the id of the process
// that made them: those of a process that no longer runs are stale.
//
// Each platform answers with its own means: a null signal on Unix, a process
// handle on Windows. Where no process of another program can be seen (js and
// wasip1), every process counts as running, so nothing is removed that may
// still be in use.
package process

import "os"

// Alive reports whether a process with the id pid runs. A process of
// another user counts; pid 0 and negative ids never do. The calling
// process is always alive.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	return alive(pid)
}
