package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// ctxqlBin is the ctxql binary the subprocess tests run, built once by
// TestMain ("" in -short mode).
var ctxqlBin string

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		if !testing.Short() {
			dir, err := os.MkdirTemp("", "ctxql-mcp-test")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			defer os.RemoveAll(dir)
			ctxqlBin = filepath.Join(dir, "ctxql")
			if out, err := exec.Command("go", "build", "-o", ctxqlBin, "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build ctxql: %v\n%s", err, out)
				return 2
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// needBinary skips a test in -short mode, where the binary is not built.
func needBinary(t *testing.T) string {
	t.Helper()
	if ctxqlBin == "" {
		t.Skip("needs the ctxql binary (not built in -short mode)")
	}
	return ctxqlBin
}

// rawServer is a `ctxql mcp` subprocess spoken to in raw JSON-RPC lines.
type rawServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	waited chan struct{}
	next   int
	// init is the result of initialize.
	init map[string]any
	// longest is the length of the longest line the server wrote.
	longest atomic.Int64
}

// startRaw starts `ctxql mcp --dir dir args...`, initialises the session
// and returns it. The process is killed at the end of the test.
func startRaw(t *testing.T, dir string, args ...string) *rawServer {
	t.Helper()
	s := startProcess(t, dir, args...)
	r := s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	if r["result"] == nil {
		t.Fatalf("initialize: %v\nstderr: %s", r, s.stderr)
	}
	s.init, _ = r["result"].(map[string]any)
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s
}

// startProcess starts `ctxql mcp --dir dir args...` and returns it
// without a session: the test speaks first. The process is killed at the
// end of the test.
func startProcess(t *testing.T, dir string, args ...string) *rawServer {
	t.Helper()
	bin := needBinary(t)
	cmd := exec.Command(bin, append([]string{"mcp", "--force", "--dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1735689600")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{t: t, cmd: cmd, in: in, lines: make(chan []byte, 64), stderr: &bytes.Buffer{}, waited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			l, err := br.ReadBytes('\n')
			if n := int64(len(l)); n > s.longest.Load() {
				s.longest.Store(n)
			}
			if len(l) > 0 {
				s.lines <- l
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	go func() {
		cmd.Wait()
		close(s.waited)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-s.waited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-s.waited
		}
	})
	return s
}

// send writes one line.
func (s *rawServer) send(line []byte) {
	s.t.Helper()
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		s.t.Fatalf("write to server: %v (stderr: %s)", err, s.stderr)
	}
}

// recv reads the next line, which must be a JSON object.
func (s *rawServer) recv(timeout time.Duration) map[string]any {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("server closed its output (exited: %v)\nstderr: %s", s.exited(), s.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			s.t.Fatalf("server wrote a line that is not a JSON object: %v\n%.300q", err, l)
		}
		return m
	case <-time.After(timeout):
		s.t.Fatalf("no answer within %s (exited: %v)\nstderr: %s", timeout, s.exited(), s.stderr)
	}
	return nil
}

func (s *rawServer) exited() bool {
	select {
	case <-s.waited:
		return true
	default:
		return false
	}
}

// call sends a request and returns its response, skipping other messages.
func (s *rawServer) call(method string, params any) map[string]any {
	s.t.Helper()
	return s.callWithin(method, params, 60*time.Second)
}

func (s *rawServer) callWithin(method string, params any, timeout time.Duration) map[string]any {
	s.t.Helper()
	s.next++
	id := s.next
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(b)
	deadline := time.Now().Add(timeout)
	for {
		m := s.recv(time.Until(deadline))
		if n, ok := m["id"].(float64); ok && int(n) == id {
			return m
		}
	}
}

// tool calls a tool and returns the text of its result and whether it is
// an error result.
func (s *rawServer) tool(name string, args any) (string, bool) {
	s.t.Helper()
	return s.toolWithin(name, args, 60*time.Second)
}

func (s *rawServer) toolWithin(name string, args any, timeout time.Duration) (string, bool) {
	s.t.Helper()
	r := s.callWithin("tools/call", map[string]any{"name": name, "arguments": args}, timeout)
	res, ok := r["result"].(map[string]any)
	if !ok {
		s.t.Fatalf("tools/call %s: no result: %v", name, r)
	}
	var text strings.Builder
	if cs, ok := res["content"].([]any); ok {
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok {
				fmt.Fprint(&text, m["text"])
			}
		}
	}
	isErr, _ := res["isError"].(bool)
	return text.String(), isErr
}

// read reads a resource and returns the response.
func (s *rawServer) read(uri string) map[string]any {
	s.t.Helper()
	return s.call("resources/read", map[string]any{"uri": uri})
}

// alive checks that the server answers a ping.
func (s *rawServer) alive() {
	s.t.Helper()
	r := s.callWithin("ping", map[string]any{}, 30*time.Second)
	if _, ok := r["result"]; !ok {
		s.t.Fatalf("ping not answered with a result: %v", r)
	}
}
