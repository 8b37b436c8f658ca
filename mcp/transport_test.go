package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpserver "github.com/ctxql/ctxql/mcp"
)

// TestCheck checks the message validator on each kind of input: what it
// accepts decodes to the right message, what it refuses gets the right
// code and id.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in   string
		code int64  // 0: accepted
		id   string // the raw id of a refusal ("" for null)
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}` + "\r\n", 0, ""},
		{`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"acp://file/é"}}`, 0, ""},
		{`nope`, -32700, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} x`, -32700, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}{}`, -32700, ""},
		{"\uFEFF{}", -32700, ""},
		{"{}\x00", -32700, ""},
		{`{"a":"` + "\xc3" + `"}`, -32700, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`, -32700, "1"},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, -32700, ""},
		{`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"jql_query","arguments":{"query":"\ud83d"}}}`, -32700, `"s"`},
		{`{"jsonrpc":"2.0","method":"x","params":{"id":3,"a":"\udc00"},"id":4}`, -32700, "4"},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"x","params":{"a":"\ud83d"}}`, -32700, ""},
		{`{"jsonrpc":"2.0","id":5,"method":"x","params":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, -32600, "5"},
		{`{"id" : "z" , "jsonrpc":"2.0","method":"x","params":{"a":"\ud800"}}`, -32700, `"z"`},
		{`null`, -32600, ""},
		{`"s"`, -32600, ""},
		{`true`, -32600, ""},
		{`[]`, -32600, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, ""},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, ""},
		{`{"jsonrpc":2,"id":1,"method":"ping"}`, -32600, "1"},
		{`{"jsonrpc":"2.0","id":"x","method":null}`, -32600, `"x"`},
		{`{"jsonrpc":"2.0","id":1}`, -32600, "1"},
		{`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, -32600, "1"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}`, -32600, "1"},
		{`{"jsonrpc":"2.0","result":{}}`, -32600, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, -32602, "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a\u0001"}}`, -32602, "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a` + "\U000E0001" + `"}}`, -32602, "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":5}}`, -32602, "1"},
		{strings.Repeat("[", 129) + strings.Repeat("]", 129), -32600, ""},
		{`{"a":"` + strings.Repeat("[", 1000) + `"}`, -32600, ""}, // brackets in a string do not nest
	} {
		msg, rj := mcpserver.Check([]byte(c.in))
		name := c.in
		if len(name) > 60 {
			name = name[:60]
		}
		if c.code == 0 {
			if rj != nil || msg == nil {
				t.Errorf("%q: refused with %d %s", name, rj.Code, rj.Message)
			}
			continue
		}
		if c.in == `{"a":"`+strings.Repeat("[", 1000)+`"}` {
			// Not nested: refused only because it is no JSON-RPC message.
			if rj == nil || strings.Contains(rj.Message, "nested") {
				t.Errorf("%q: %v", name, rj)
			}
			continue
		}
		if rj == nil {
			t.Errorf("%q: accepted", name)
			continue
		}
		if rj.Code != c.code || string(rj.ID) != c.id {
			t.Errorf("%q: code %d id %q (%s), want %d %q", name, rj.Code, rj.ID, rj.Message, c.code, c.id)
		}
		var resp map[string]any
		if err := json.Unmarshal(rj.Response(), &resp); err != nil || resp["jsonrpc"] != "2.0" {
			t.Errorf("%q: response %s is not a JSON-RPC message", name, rj.Response())
		}
	}
	if msg, rj := mcpserver.Check([]byte("  \r\n")); msg != nil || rj != nil {
		t.Errorf("a blank line: %v %v, want neither message nor answer", msg, rj)
	}
}

// connectPipes connects tr over pipes and returns the connection, the
// writer of its input and the reader of its output, all closed at the end
// of the test.
func connectPipes(t *testing.T, tr *mcpserver.Transport) (mcp.Connection, *io.PipeWriter, *io.PipeReader) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.Reader, tr.Writer = inR, outW
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close()
		conn.Close()
	})
	return conn, inW, outR
}

// TestTransportRepairsResponses checks that a response whose error data is
// not valid JSON (as the SDK's own resource-not-found error produces for
// some URIs) goes out as an internal error for its id instead of breaking
// the connection.
func TestTransportRepairsResponses(t *testing.T) {
	conn, _, outR := connectPipes(t, &mcpserver.Transport{})
	id, _ := jsonrpc.MakeID(float64(7))
	go conn.Write(context.Background(), &jsonrpc.Response{ID: id,
		Error: &jsonrpc.Error{Code: -32002, Message: "Resource not found", Data: json.RawMessage(`{"uri":"a\x01b"}`)}})
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    int
		Error struct{ Code int }
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.ID != 7 || resp.Error.Code != -32603 {
		t.Errorf("response %s, want an internal error for id 7 (%v)", line, err)
	}
}

// TestTransportDropsCancelledAnswers checks that the answer to a request
// the client has cancelled is not written, and that other answers are.
func TestTransportDropsCancelledAnswers(t *testing.T) {
	conn, inW, outR := connectPipes(t, &mcpserver.Transport{})
	ctx := context.Background()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":4,"method":"ping"}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`+"\n")
	for range 3 {
		if _, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	lines := make(chan string, 2)
	go func() {
		br := bufio.NewReader(outR)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()
	for _, id := range []float64{3, 4} {
		jid, _ := jsonrpc.MakeID(id)
		if err := conn.Write(ctx, &jsonrpc.Response{ID: jid, Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if l := <-lines; !strings.Contains(l, `"id":4`) {
		t.Errorf("first line written: %s, want the answer to 4 (the one to 3 dropped)", l)
	}
}

// TestTransportCapsWrites checks that a response over the write limit goes
// out as an error for its id naming the limit.
func TestTransportCapsWrites(t *testing.T) {
	conn, _, outR := connectPipes(t, &mcpserver.Transport{MaxWriteBytes: 200})
	id, _ := jsonrpc.MakeID(float64(7))
	go conn.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`"` + strings.Repeat("x", 1000) + `"`)})
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    int
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.ID != 7 || resp.Error.Code != -32603 ||
		!strings.Contains(resp.Error.Message, "larger than 200 bytes (raise with --max-output-bytes)") || len(line) > 200 {
		t.Errorf("response %s, want an error for id 7 naming the limit (%v)", line, err)
	}
}
