package lsp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

type fuzzConn struct {
	io.Reader
	io.Writer
}

func (fuzzConn) Close() error { return nil }

// FuzzServe feeds arbitrary bytes to the server as its input stream: it must
// not panic and must return once the input ends.
func FuzzServe(f *testing.F) {
	frame := func(bodies ...string) []byte {
		var b bytes.Buffer
		for _, body := range bodies {
			fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}
		return b.Bytes()
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8"]}}}}`
	f.Add(frame(init, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.pact","version":1,"text":".mt >> é"}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.pact","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":99},"end":{"line":-1,"character":2}},"text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///a.pact"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`))
	f.Add(frame(init, `{"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///a.dl"}}}`))
	f.Add([]byte("Content-Length: 5\r\n\r\n{}"))
	f.Add([]byte("Content-Length: -1\r\n\r\n\r\n\r\nContent-Length: x\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		Serve(context.Background(), fuzzConn{bytes.NewReader(data), io.Discard}, Options{})
	})
}

// FuzzMessageReader sends arbitrary bytes between a valid initialize and a
// valid request: whatever the bytes, the server must not exit, and the
// request after them must be answered (it resynchronises on the request's
// "Content-Length:" header).
func FuzzMessageReader(f *testing.F) {
	f.Add([]byte("Content-Length: 5000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"textDocument/hover\"}"))
	f.Add([]byte("Content-Length: 5\r\n"))
	f.Add([]byte("Content-Length: 10\r\n\r\n{"))
	f.Add([]byte("Content-Le"))
	f.Add([]byte("garbage\r\n\r\n\x00\xff"))
	f.Add([]byte("Content-Length: 2\r\n\r\n{}Content-Length: 99999999999999999999\r\n\r\n"))
	f.Add([]byte("Content-Length: 57\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"shutdown\",\"params\":1}"))
	f.Add([]byte(`Content-Length: 120` + "\r\n\r\n" + `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.pact","version":1,"text":".mt"}}}`))
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	final := `{"jsonrpc":"2.0","id":"fuzz-final","method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///nothing.pact"}}}`
	f.Fuzz(func(t *testing.T, garbage []byte) {
		if bytes.Contains(bytes.ToLower(garbage), []byte("exit")) || bytes.Contains(garbage, []byte(`\u`)) {
			t.Skip("an exit notification ends the session legitimately")
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan int, 1)
		go func() {
			served <- Serve(context.Background(), fuzzPipes{inR, outW}, Options{})
			outW.Close()
		}()
		answered := make(chan bool, 1)
		go func() {
			found := false
			rd := bufio.NewReader(outR)
			for {
				n := -1
				for {
					line, err := rd.ReadString('\n')
					if err != nil {
						answered <- found
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
				if _, err := io.ReadFull(rd, body); err != nil {
					answered <- found
					return
				}
				if !found && bytes.Contains(body, []byte(`"id":"fuzz-final"`)) {
					found = true
					answered <- true
				}
			}
		}()
		var in bytes.Buffer
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(init), init)
		in.Write(garbage)
		fmt.Fprintf(&in, "\r\nContent-Length: %d\r\n\r\n%s", len(final), final)
		go func() { _, _ = inW.Write(in.Bytes()) }()
		select {
		case ok := <-answered:
			if !ok {
				t.Fatal("the server ended its output without answering the final request")
			}
		case code := <-served:
			t.Fatalf("the server exited (code %d) before answering the final request", code)
		case <-time.After(20 * time.Second):
			t.Fatal("the final request was not answered")
		}
		inW.Close()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Fatal("the server did not return after its input ended")
		}
	})
}

// fuzzPipes joins the server's input and output pipes.
type fuzzPipes struct {
	*io.PipeReader
	*io.PipeWriter
}

func (p fuzzPipes) Close() error {
	p.PipeReader.Close()
	return p.PipeWriter.Close()
}
