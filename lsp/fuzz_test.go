package lsp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
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
