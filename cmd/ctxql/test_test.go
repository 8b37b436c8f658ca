package main

import (
	"bufio"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lines collects a process's output lines and hands them out as they come.
type lines struct {
	ch chan string
}

func readLines(r io.Reader) *lines {
	l := &lines{ch: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.ch <- sc.Text()
		}
		close(l.ch)
	}()
	return l
}

// waitFor returns the lines read until one contains want, failing the test
// when none does within 20 seconds.
func (l *lines) waitFor(t *testing.T, want string) []string {
	t.Helper()
	var seen []string
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s, ok := <-l.ch:
			if !ok {
				t.Fatalf("output ended before %q; got:\n%s", want, strings.Join(seen, "\n"))
			}
			seen = append(seen, s)
			if strings.Contains(s, want) {
				return seen
			}
		case <-timeout:
			t.Fatalf("no %q within 20s; got:\n%s", want, strings.Join(seen, "\n"))
		}
	}
}

// TestTestWatch runs "ctxql test --watch" and changes, under the running
// process, first the query file (the case fails), then the test file (it
// passes again), then adds a new test file (its case runs too); an
// interrupt ends the watch with status 130.
func TestTestWatch(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "d.json"), `{"root": {"children": [{"id": "a", "nodeType": "mt"}, {"id": "b", "nodeType": "cb"}]}}`, 0o644)
	write(t, filepath.Join(dir, "q.pact"), ".mt\n", 0o644)
	write(t, filepath.Join(dir, "q.ctxqltest.yaml"), "data: d.json\nfile: q.pact\ntests:\n  - name: turns\n    want: [a]\n", 0o644)
	cmd := exec.Command(bin, "test", "--watch", ".")
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdout, stderr := readLines(out), readLines(errp)
	stdout.waitFor(t, "1 passed, 0 failed")
	stderr.waitFor(t, "watching for changes")

	write(t, filepath.Join(dir, "q.pact"), ".cb\n", 0o644)
	got := stdout.waitFor(t, "0 passed, 1 failed")
	if !strings.Contains(strings.Join(got, "\n"), "+ b") {
		t.Errorf("the failing run does not show the result added:\n%s", strings.Join(got, "\n"))
	}
	stderr.waitFor(t, "watching for changes")

	write(t, filepath.Join(dir, "q.ctxqltest.yaml"), "data: d.json\nfile: q.pact\ntests:\n  - name: blocks\n    want: [b]\n", 0o644)
	stdout.waitFor(t, "1 passed, 0 failed")
	stderr.waitFor(t, "watching for changes")

	write(t, filepath.Join(dir, "more.ctxqltest.yaml"), "data: d.json\nfile: q.pact\ntests:\n  - name: count\n    count: 1\n", 0o644)
	stdout.waitFor(t, "2 passed, 0 failed")
	stderr.waitFor(t, "watching for changes")

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit after an interrupt: %v, want status 130", err)
	}
}

// TestCheckAndEvalWatch runs "ctxql check --watch DIR" and "ctxql eval
// pact --watch": each runs again when a file it read changes under it, and
// check also when a new query file appears in the directory.
func TestCheckAndEvalWatch(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "d.json"), `{"root": {"children": [{"id": "a", "nodeType": "mt"}]}}`, 0o644)
	write(t, filepath.Join(dir, "q.pact"), ".mt\n", 0o644)
	start := func(args ...string) (*exec.Cmd, *lines, *lines) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, _ := cmd.StdoutPipe()
		errp, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, readLines(out), readLines(errp)
	}

	_, out, errs := start("check", "--watch", ".")
	errs.waitFor(t, "watching for changes")
	write(t, filepath.Join(dir, "q.pact"), ".mt[\n", 0o644)
	out.waitFor(t, "q.pact:1:5: error")
	errs.waitFor(t, "watching for changes")
	write(t, filepath.Join(dir, "new.pact"), ".block:summary\n", 0o644)
	out.waitFor(t, "PACT001")

	write(t, filepath.Join(dir, "q.pact"), ".mt\n", 0o644)
	_, eout, eerrs := start("eval", "pact", "--watch", "--data", "d.json", ".mt")
	eout.waitFor(t, `["a"]`)
	eerrs.waitFor(t, "watching for changes")
	write(t, filepath.Join(dir, "d.json"), `{"root": {"children": [{"id": "b", "nodeType": "mt"}]}}`, 0o644)
	eout.waitFor(t, `["b"]`)
}
