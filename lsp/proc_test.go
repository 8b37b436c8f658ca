package lsp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildDir is the directory ctxqlBinary builds in, which TestMain removes.
var buildDir string

// TestMain runs the tests, then removes the binary ctxqlBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// ctxqlBinary builds cmd/ctxql once per test binary run.
var ctxqlBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "ctxql-lsp-test-")
	if err != nil {
		return "", err
	}
	buildDir = dir
	bin := filepath.Join(dir, "ctxql")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build ctxql: %v\n%s", err, out)
	}
	return bin, nil
})

// proc is a real "ctxql lsp" process driven over its stdin and stdout.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	msgs   chan map[string]any
	stderr *lockedBuffer
	exited chan error
	nextID int
	stash  map[float64]map[string]any // responses read while waiting for others
	// refreshes counts the workspace/diagnostic/refresh requests read
	// while waiting for a pull's answer (pullDiags).
	refreshes int
}

// startProc starts "ctxql lsp" in dir and reads its messages.
func startProc(t testing.TB, dir string) *proc {
	t.Helper()
	bin, err := ctxqlBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "lsp")
	cmd.Dir = dir
	p := &proc{t: t, cmd: cmd, msgs: make(chan map[string]any, 1024), stderr: &lockedBuffer{}, exited: make(chan error, 1), nextID: 100}
	cmd.Stderr = p.stderr
	if p.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(out)
		for {
			n := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					close(p.msgs)
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				close(p.msgs)
				return
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				m = map[string]any{"invalid": string(body)}
			}
			p.msgs <- m
		}
	}()
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		p.in.Close()
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// raw writes bytes to the server's input.
func (p *proc) raw(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, s); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// send writes one framed message.
func (p *proc) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	p.raw(frames(string(b)))
}

// notify sends a notification.
func (p *proc) notify(method string, params any) {
	p.t.Helper()
	p.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// request sends a request and returns its id.
func (p *proc) request(method string, params any) int {
	p.t.Helper()
	p.nextID++
	p.send(map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method, "params": params})
	return p.nextID
}

// await returns the next message for which match is true, answering the
// server's workspace/configuration requests with null; messages skipped on
// the way are handed to seen, when set. It fails the test after timeout.
func (p *proc) await(timeout time.Duration, match func(map[string]any) bool, seen func(map[string]any)) map[string]any {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("server closed its output; stderr:\n%s", p.stderr.String())
			}
			if m["method"] == "workspace/configuration" && m["id"] != nil {
				p.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
			}
			if match(m) {
				return m
			}
			if _, note := m["method"]; !note {
				if id, ok := m["id"].(float64); ok {
					if p.stash == nil {
						p.stash = map[float64]map[string]any{}
					}
					p.stash[id] = m
				}
			}
			if seen != nil {
				seen(m)
			}
		case <-deadline:
			p.t.Fatalf("no expected message within %v", timeout)
			return nil
		}
	}
}

// response waits for the answer to request id; answers to other requests
// read meanwhile are kept for their own call.
func (p *proc) response(id int, timeout time.Duration) map[string]any {
	p.t.Helper()
	if m, ok := p.stash[float64(id)]; ok {
		delete(p.stash, float64(id))
		return m
	}
	return p.await(timeout, func(m map[string]any) bool {
		_, note := m["method"]
		return !note && m["id"] == float64(id)
	}, nil)
}

// initialize performs the handshake with the given client capabilities.
func (p *proc) initialize(caps map[string]any) map[string]any {
	p.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	id := p.request("initialize", map[string]any{"processId": nil, "capabilities": caps})
	m := p.response(id, 20*time.Second)
	p.notify("initialized", map[string]any{})
	return m
}

func (p *proc) open(uri, text string) {
	p.t.Helper()
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "", "version": 1, "text": text}})
}

// isNote reports whether m is a notification of method (for uri, when not
// empty).
func isNote(m map[string]any, method, uri string) bool {
	if m["method"] != method || m["id"] != nil {
		return false
	}
	if uri == "" {
		return true
	}
	params, _ := m["params"].(map[string]any)
	return params["uri"] == uri
}

// fileURI is the file URI of an absolute path.
func fileURI(path string) string { return "file://" + filepath.ToSlash(path) }

// alive checks that the server still answers a request quickly.
func (p *proc) alive(uri string) {
	p.t.Helper()
	id := p.request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if m := p.response(id, 10*time.Second); m["error"] != nil {
		p.t.Errorf("documentSymbol: %v", m["error"])
	}
}

// vmHWM returns the process's peak resident set in bytes (Linux), or 0.
func (p *proc) vmHWM() int64 { return p.status("VmHWM") }

// vmRSS returns the process's resident set in bytes (Linux), or 0.
func (p *proc) vmRSS() int64 { return p.status("VmRSS") }

// status returns a size field of /proc/PID/status in bytes, or 0.
func (p *proc) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
