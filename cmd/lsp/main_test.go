package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bins are the two programs that serve the language server: this command
// and "ctxql lsp", built once.
var bins = sync.OnceValues(func() (map[string][]string, error) {
	dir, err := os.MkdirTemp("", "ctxql-lsp-cmd-")
	if err != nil {
		return nil, err
	}
	lsp, ctxql := filepath.Join(dir, "ctxql-lsp"), filepath.Join(dir, "ctxql")
	for out, pkg := range map[string]string{lsp: ".", ctxql: "../ctxql"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %v\n%s", pkg, err, b)
		}
	}
	return map[string][]string{"ctxql-lsp": {lsp}, "ctxql lsp": {ctxql, "lsp"}}, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if b, err := bins(); err == nil {
		os.RemoveAll(filepath.Dir(b["ctxql-lsp"][0]))
	}
	os.Exit(code)
}

// frame is one LSP message with its header.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestSignals starts each language server program, initializes it, opens a
// document, and sends SIGINT or SIGTERM: the server ends promptly with exit
// status 130 or 143 (never 0, which a client would read as a clean
// shutdown, nor 1) and says so on stderr.
func TestSignals(t *testing.T) {
	progs, err := bins()
	if err != nil {
		t.Fatal(err)
	}
	for name, argv := range progs {
		for _, sc := range []struct {
			sig  syscall.Signal
			code int
			name string
		}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
			t.Run(name+"/"+sc.name, func(t *testing.T) {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = t.TempDir()
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				initialized := make(chan struct{})
				go func() {
					// The answer to initialize is the first message with id 1.
					seen := []byte{}
					buf := make([]byte, 64<<10)
					for {
						n, err := out.Read(buf)
						if seen != nil {
							seen = append(seen, buf[:n]...)
							if bytes.Contains(seen, []byte(`"id":1,`)) {
								close(initialized)
								seen = nil
							}
						}
						if err != nil {
							return
						}
					}
				}()
				io.WriteString(in, frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`))
				select {
				case <-initialized:
				case <-time.After(30 * time.Second):
					t.Fatalf("no answer to initialize\n%s", stderr.String())
				}
				io.WriteString(in, frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
				io.WriteString(in, frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/q.pact","languageId":"pact","version":1,"text":".mt > .mc\n"}}}`))
				time.Sleep(200 * time.Millisecond)
				sent := time.Now()
				if err := cmd.Process.Signal(sc.sig); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("still running 10 s after %s", sc.name)
				}
				if code := cmd.ProcessState.ExitCode(); code != sc.code {
					t.Errorf("exit %d, want %d\n%s", code, sc.code, stderr.String())
				}
				if !strings.Contains(stderr.String(), "ctxql: interrupted ("+sc.name+")") {
					t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
				}
				t.Logf("ended %v after the signal", time.Since(sent))
			})
		}
	}
}
