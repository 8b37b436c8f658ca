//go:build unix

package canceltest

import (
	"syscall"
	"time"
)

// CPU is the CPU time this process has used, all its threads together
// (user and system).
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuKnown reports whether CPU reads the process's CPU time.
const cpuKnown = true
