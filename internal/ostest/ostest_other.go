//go:build !unix && !windows

package ostest

import (
	"os"
	"time"
)

func mkfifo(string) error { return ErrUnsupported }

func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }

func cpuTime() (time.Duration, error) { return 0, ErrUnsupported }
