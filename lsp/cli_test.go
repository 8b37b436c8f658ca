package lsp_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/cli"
)

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
			var stdout, stderr bytes.Buffer
			env := cli.Env{Stdin: strings.NewReader(frames(tc.messages...)), Stdout: &stdout, Stderr: &stderr}
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
				t.Errorf("no symbols answer:\n%s", stdout.String())
			}
			if strings.Contains(stderr.String(), "Error:") {
				t.Errorf("cobra error on stderr:\n%s", stderr.String())
			}
		})
	}
}
