//go:build unix

package cli

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWorkerParentDies starts the worker from a shell, its input a pipe
// the test keeps open, and kills the shell: the worker notices that its
// parent is gone and exits.
func TestWorkerParentDies(t *testing.T) {
	bin := buildCtxql(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sh := exec.Command("sh", "-c", `"$0" worker <&3 >/dev/null & echo $!; wait`, bin)
	sh.ExtraFiles = []*os.File{r}
	stdout, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the worker has read its parent
	if !alive(pid) {
		t.Fatal("the worker exited while its parent lived")
	}
	sh.Process.Kill()
	sh.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the worker still runs 10 s after its parent died")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// alive reports whether the process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
