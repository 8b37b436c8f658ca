//go:build !unix

package datalog

import "time"

// processCPU is the CPU time this process has used; where the platform
// gives no portable way to read it, 0, and the benchmarks' CPU columns
// read as zero.
func processCPU() time.Duration { return 0 }
