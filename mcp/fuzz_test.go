package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
	mcpserver "github.com/ctxql/ctxql/mcp"
)

// fuzzRoot builds a project directory with a file, a directory, a link
// inside the project and links that escape it.
func fuzzRoot(f *testing.F) (root, realRoot string) {
	base := f.TempDir()
	root = filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "src", "auth"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "src", "auth", "jwt.ts"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	links := map[string]string{
		filepath.Join(root, "out"):         outside,
		filepath.Join(root, "src", "up"):   "../..",
		filepath.Join(root, "in"):          filepath.Join(root, "src"),
		filepath.Join(root, "abs"):         "/",
		filepath.Join(root, "loop"):        filepath.Join(root, "loop"),
		filepath.Join(root, "src", "dang"): filepath.Join(base, "missing"),
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			f.Skipf("symlinks unavailable: %v", err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	return root, real
}

// FuzzResourcePath fuzzes the acp://file/ resource path: whatever the URI,
// ResourcePath never panics, and a path it accepts is relative, free of
// ".." segments and, where it exists, resolves inside the project.
func FuzzResourcePath(f *testing.F) {
	root, realRoot := fuzzRoot(f)
	for _, s := range []string{
		"src/auth/jwt.ts", "src%2Fauth%2Fjwt.ts", "../etc/passwd", "%2e%2e/x", "/etc/passwd", "%2Fetc",
		"out/secret", "src/up/outside/secret", "in/auth/jwt.ts", "abs/etc/passwd", "loop/x", "src/dang/x",
		"./src//auth/./jwt.ts", "src/..", "..", ".", "", "a\x00b", "a\\..\\b", "%zz", "src/auth/jwt.ts?x=1#y",
		"in/../out/secret", "src/auth/../../out",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rel, err := mcpserver.ResourcePath(root, "acp://file/"+s, "acp://file/")
		if err != nil {
			return
		}
		if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
			t.Fatalf("%q: accepted non-relative path %q", s, rel)
		}
		for _, seg := range strings.Split(rel, "/") {
			if seg == ".." {
				t.Fatalf("%q: accepted %q with a .. segment", s, rel)
			}
		}
		// Resolve the longest existing prefix: it must stay inside.
		p := filepath.Join(root, filepath.FromSlash(rel))
		for {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				r, err := filepath.Rel(realRoot, real)
				if err != nil || r == ".." || strings.HasPrefix(r, "../") {
					t.Fatalf("%q: accepted %q which resolves to %q outside %q", s, rel, real, realRoot)
				}
				return
			}
			if p == root || len(p) <= len(root) {
				return
			}
			p = filepath.Dir(p)
		}
	})
}

// FuzzMCPReader writes each input as raw bytes to a running server's
// message reader (one server, over the validating transport, for the whole
// run), followed by a ping: the server never exits, every line it writes is
// a JSON object, and the ping is answered — whatever came before it.
func FuzzMCPReader(f *testing.F) {
	for _, s := range []string{
		"this is not json", "null", "42", "{}", "[]", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		"\uFEFF" + `{"jsonrpc":"2.0","id":5,"method":"ping"}`, `{"jsonrpc":"2.0","id":5,"method":"ping"}` + "\x00",
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":5,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
		`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"acp://file/a\u0001b"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"acp://x/\ud800"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"acp://symbol/` + "\U000E0001" + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"acp_query","arguments":{"type":"stats"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"acp_expand","arguments":{"text":"$DOM_AUTH","mode":"full"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":5}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"jql_schema","arguments":{"query":"{"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`, `{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":10,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":10,"method":"ping"}`,
		"\r\n\r\n", "\"", `{"jsonrpc":"2.0","id":"\u0000","method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	ix, err := acp.Load(fixture)
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcpserver.New(ix, mcpserver.Options{StatePath: filepath.Join(f.TempDir(), "state.json"),
		Budget: mcpserver.Budget{Timeout: 2 * time.Second, MaxOutputBytes: 1 << 20, MaxMemory: 256 << 20}})
	exited := make(chan error, 1)
	go func() {
		exited <- srv.Run(ctx, &mcpserver.Transport{Reader: inR, Writer: outW, MaxMessageBytes: 1 << 20})
	}()
	lines := make(chan []byte, 1024)
	go func() {
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				lines <- l
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	await := func(t testing.TB, id string) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("server closed its output (%v)", <-exited)
				}
				var m map[string]any
				if err := json.Unmarshal(l, &m); err != nil {
					t.Fatalf("server wrote a line that is not a JSON object: %v\n%q", err, l)
				}
				if m["id"] == id {
					if _, ok := m["result"]; !ok {
						t.Fatalf("ping %s answered without a result: %s", id, l)
					}
					return
				}
			case err := <-exited:
				t.Fatalf("server exited: %v", err)
			case <-timeout:
				t.Fatalf("ping %s not answered", id)
			}
		}
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`)
	await(f, "init")
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		id := fmt.Sprintf("fuzz-ping-%d", n)
		if _, err := inW.Write(append(data, '\n')); err != nil {
			t.Fatalf("write: %v", err)
		}
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%q,"method":"ping"}`+"\n", id)
		await(t, id)
	})
}
