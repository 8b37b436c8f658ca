//go:build windows

package ostest

import (
	"os"
	"time"

	"golang.org/x/sys/windows"
)

func mkfifo(string) error { return ErrUnsupported }

func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }

func cpuTime() (time.Duration, error) {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return 0, err
	}
	// Filetime durations count 100-nanosecond intervals.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100, nil
}
