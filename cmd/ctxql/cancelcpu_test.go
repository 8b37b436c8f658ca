//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/canceltest"
)

// TestEvalInterruptStopsCPU runs "ctxql eval datalog" over a program that
// goes through the phases of a long evaluation (canceltest.HeavyProgram
// over a chain of 1,100 edges: loading, a closure of 600,000 tuples, a
// self-join, an aggregate, a negation, a lattice, the output) and
// interrupts it (SIGINT) at 20 points spread through the CPU time of a
// whole run: at each, the process must exit as interrupted (130), having
// used at most 100 ms of CPU time after the signal (its CPU time as
// /proc/PID/stat gives it when the signal is sent, to the total the
// kernel reports at its exit) — so that work the cancellation did not
// stop, in the evaluation or in a goroutine it left behind, is counted
// until the process ends.
func TestEvalInterruptStopsCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 21 evaluations of about a second of CPU time")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.json"), []byte(canceltest.ChainJSON(1100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.dl"), []byte(canceltest.HeavyProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"eval", "datalog", "--data", "data.json", "--rules", "p.dl", "--relations", "back,most,leaf"}
	start := func() (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stderr
	}
	total := func(cmd *exec.Cmd) time.Duration { return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() }

	cmd, stderr := start()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("uncancelled run: %v\n%s", err, stderr)
	}
	whole := total(cmd)
	const points, bound = 20, 100 * time.Millisecond
	// interrupt runs ctxql and sends it SIGINT once it has used at of
	// CPU time; it returns the CPU time it used after the signal, or
	// false when it had ended before.
	interrupt := func(at time.Duration) (time.Duration, bool) {
		cmd, stderr := start()
		for {
			c, ok := procCPU(cmd.Process.Pid)
			if !ok {
				cmd.Wait()
				return 0, false
			}
			if c >= at {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					cmd.Wait()
					return 0, false
				}
				cmd.Wait()
				if code := cmd.ProcessState.ExitCode(); code != 130 {
					if code == 0 {
						return 0, false // ended as the signal came
					}
					t.Errorf("interrupted at %v CPU: exit %d, want 130\n%s", at, code, stderr)
				}
				return total(cmd) - c, true
			}
			time.Sleep(time.Millisecond)
		}
	}
	var afters []time.Duration
	var log strings.Builder
	for k := 1; k <= points; k++ {
		at := whole * time.Duration(k) / (points + 1)
		after, ok := interrupt(at)
		if ok && after > bound {
			// Once more, so that a collection the signal happened to
			// land in is not taken for work that does not stop.
			if again, ok2 := interrupt(at); ok2 && again < after {
				after = again
			}
		}
		if !ok {
			log.WriteString("  at " + at.Round(time.Millisecond).String() + " CPU: the run had ended\n")
			continue
		}
		afters = append(afters, after)
		log.WriteString("  at " + at.Round(time.Millisecond).String() + " CPU: " + strconv.FormatFloat(float64(after)/1e6, 'f', 1, 64) + " ms CPU after SIGINT\n")
		if after > bound {
			t.Errorf("interrupted at %v CPU of a %v run: %v of CPU time after the signal, want at most %v", at, whole, after, bound)
		}
	}
	slices.Sort(afters)
	t.Logf("whole run %v CPU\n%s", whole, log.String())
	if len(afters) < points/2 {
		t.Fatalf("only %d of %d runs were still going when interrupted", len(afters), points)
	}
	t.Logf("%d interrupted: max %v, p50 %v of CPU time after the signal", len(afters), afters[len(afters)-1], afters[(len(afters)-1)/2])
}

// procCPU returns the CPU time process pid has used (user and system,
// all threads), from /proc/PID/stat, and false once it has exited.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name, which ends with the last ')':
	// state is the first, utime the 12th and stime the 13th.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 || f[0] == "Z" {
		return 0, false
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	// The kernel counts in clock ticks of 1/100 s (USER_HZ).
	return time.Duration(u+s) * 10 * time.Millisecond, true
}
