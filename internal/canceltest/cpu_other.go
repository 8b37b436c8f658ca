//go:build !unix

package canceltest

import "time"

// CPU is the CPU time this process has used; where the platform gives no
// portable way to read it, 0 (and CPUAfterCancel skips its test).
func CPU() time.Duration { return 0 }

// cpuKnown reports whether CPU reads the process's CPU time.
const cpuKnown = false
