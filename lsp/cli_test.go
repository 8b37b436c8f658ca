package lsp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxql/ctxql/cli"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader in
// different goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func frames(bodies ...string) string {
	var b strings.Builder
	for _, body := range bodies {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return b.String()
}

// TestCLI runs "ctxql lsp" through cli.Main on buffers: stdout carries
// only framed protocol messages, the exit code follows shutdown/exit.
func TestCLI(t *testing.T) {
	session := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.pact","languageId":"pact","version":1,"text":".mt >> .x\n"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///a.pact"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	}
	for _, tc := range []struct {
		name     string
		messages []string
		code     int
	}{
		{"shutdown-then-exit", session, 0},
		{"exit-without-shutdown", append(append([]string{}, session[:4]...), session[5]), 1},
		{"stream-closed", session[:4], 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Like a real client, keep the input open until the requests
			// sent so far are answered, then send the rest and close it.
			var stdout, stderr lockedBuffer
			in, w := io.Pipe()
			go func() {
				w.Write([]byte(frames(tc.messages[:min(4, len(tc.messages))]...)))
				deadline := time.Now().Add(10 * time.Second)
				for !strings.Contains(stdout.String(), `"id":2,`) && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				if len(tc.messages) > 4 {
					w.Write([]byte(frames(tc.messages[4:]...)))
				}
				w.Close()
			}()
			env := cli.Env{Stdin: in, Stdout: &stdout, Stderr: &stderr}
			code := cli.Main(context.Background(), []string{"lsp"}, env)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			rest := stdout.String()
			frame := regexp.MustCompile(`^Content-Length: (\d+)\r\n\r\n`)
			n := 0
			for rest != "" {
				m := frame.FindStringSubmatch(rest)
				if m == nil {
					t.Fatalf("stdout is not framed protocol at %q", rest[:min(len(rest), 80)])
				}
				var size int
				fmt.Sscan(m[1], &size)
				rest = rest[len(m[0])+size:]
				n++
			}
			if n < 2 { // initialize result, symbols (diagnostics and configuration may race the end)
				t.Errorf("%d messages on stdout:\n%s", n, stdout.String())
			}
			if !strings.Contains(stdout.String(), `"id":2,"result":[{`) {
				t.Errorf("no symbols answer:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
			if strings.Contains(stderr.String(), "Error:") {
				t.Errorf("cobra error on stderr:\n%s", stderr.String())
			}
		})
	}
}
