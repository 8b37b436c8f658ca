// Package ostest gives tests the operating-system objects and figures they
// use — FIFOs, a process's peak memory and CPU time — behind one API on
// every platform ctxql builds for, so that the tests compile everywhere and
// skip, with the reason, where the platform has no such thing.
package ostest

import (
	"errors"
	"os"
	"time"
)

// ErrUnsupported reports a platform without the object or figure asked for.
var ErrUnsupported = errors.New("not supported on this platform")

// Mkfifo makes a FIFO (named pipe) at path, or returns ErrUnsupported.
func Mkfifo(path string) error { return mkfifo(path) }

// PeakRSS returns the largest resident set size, in bytes, of the exited
// process ps describes, and false where the platform does not report it.
func PeakRSS(ps *os.ProcessState) (int64, bool) { return peakRSS(ps) }

// CPUTime returns the user and system CPU time this process has used so
// far, all threads together.
func CPUTime() (time.Duration, error) { return cpuTime() }
