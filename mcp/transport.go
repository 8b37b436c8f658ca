package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxql/ctxql/internal/budget"
	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Limits of the message reader.
const (
	// DefaultMaxMessageBytes is the largest message read.
	DefaultMaxMessageBytes = 16 << 20
	// MaxDepth is the deepest nesting of arrays and objects in a message.
	MaxDepth = 128
)

// Transport is an mcp.Transport over newline-delimited JSON-RPC that checks
// every incoming message before the SDK sees it. A message that is not a
// single well-formed JSON-RPC 2.0 request, notification or response — bad
// JSON, a byte order mark, a NUL, a batch, a non-object, a version other
// than "2.0", an id that is not a string or an exactly representable
// integer, nesting deeper than MaxDepth, a line over MaxMessageBytes — is
// answered with a JSON-RPC error (-32700 parse error, -32600 invalid
// request, -32602 invalid params) and the connection goes on. A line over
// the size limit is skipped, never buffered whole. Every outgoing message is
// checked too: one that cannot be encoded as valid JSON is replaced by an
// internal error response.
type Transport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxMessageBytes bounds one incoming line; 0 means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MaxWriteBytes bounds one outgoing line: a response over it is
	// replaced by an error response naming the limit, so that no client's
	// read buffer overflows. 0 means DefaultMaxWriteBytes.
	MaxWriteBytes int
	// DrainTimeout bounds how long the connection waits, at the end of its
	// input, for the answers to requests still running; 0 means
	// DefaultDrainTimeout.
	DrainTimeout time.Duration
}

// DefaultMaxWriteBytes is the default of Transport.MaxWriteBytes: the
// default output budget and room for the message around a result, well under
// the 10 MiB a line may have for the TypeScript SDK's stdio client.
const DefaultMaxWriteBytes = DefaultMaxOutputBytes + WriteSlack

// WriteSlack is the room left for the JSON-RPC envelope around a result
// that is within the output budget.
const WriteSlack = 4 << 10

// DefaultDrainTimeout is the default of Transport.DrainTimeout.
const DefaultDrainTimeout = time.Minute

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxMessageBytes
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	drain := t.DrainTimeout
	if drain <= 0 {
		drain = DefaultDrainTimeout
	}
	maxWrite := t.MaxWriteBytes
	if maxWrite <= 0 {
		maxWrite = DefaultMaxWriteBytes
	}
	c := &conn{w: t.Writer, r: t.Reader, lines: make(chan line), closed: make(chan struct{}), max: max, maxWrite: maxWrite, drainFor: drain}
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10))
	return c, nil
}

// line is one incoming line, or the error that ended the input.
type line struct {
	data     []byte
	tooLarge bool
	id       json.RawMessage // the id of a line too large to read
	err      error
}

type conn struct {
	r      io.ReadCloser
	w      io.WriteCloser
	wmu    sync.Mutex
	lines  chan line
	closed chan struct{}
	once   sync.Once
	max    int
	// maxWrite bounds an outgoing line.
	maxWrite int

	drainFor time.Duration
	pmu      sync.Mutex
	pending  map[jsonrpc.ID]bool // requests read and not yet answered
	// cancelled are the pending requests the client has cancelled: their
	// answers are dropped, as the protocol asks.
	cancelled map[jsonrpc.ID]bool
	// level is the logging level a logging/setLevel of the 2026-07-28
	// protocol set ("" before any).
	level mcp.LoggingLevel
}

// drain waits until every request read has been answered, the connection
// is closed, or the drain timeout has passed.
func (c *conn) drain() {
	deadline := time.Now().Add(c.drainFor)
	for time.Now().Before(deadline) {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.closed:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// readLoop splits the input into lines of at most c.max bytes; the rest of
// a longer line is read and dropped, its top-level id kept for the answer.
func (c *conn) readLoop(br *bufio.Reader) {
	for {
		var buf []byte
		tooLarge := false
		var ids idScanner
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			switch {
			case tooLarge:
				ids.Feed(chunk)
			case len(buf)+len(chunk) > c.max+2: // room for "\r\n"
				ids.Feed(buf)
				ids.Feed(chunk)
				tooLarge, buf = true, nil
			default:
				buf = append(buf, chunk...)
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(buf) > 0 || tooLarge {
			l := line{data: buf, tooLarge: tooLarge}
			if tooLarge {
				l.id = ids.ID()
			}
			select {
			case c.lines <- l:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- line{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// Read returns the next valid message, answering invalid ones itself.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			// Answer what is running before reporting the end of input.
			c.drain()
			return nil, l.err
		}
		var msg jsonrpc.Message
		var bad *Reject
		if l.tooLarge {
			bad = &Reject{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("message larger than %d bytes (raise with %s)", c.max, budget.FlagMaxMessageBytes), ID: l.id}
		} else {
			msg, bad = Check(l.data)
		}
		if bad != nil {
			if err := c.writeRaw(bad.Response()); err != nil {
				return nil, err
			}
			continue
		}
		if msg == nil {
			continue // a blank line
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.ID.IsValid() && req.Method == "notifications/cancelled" {
			c.cancel(req.Params)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.sessionControl(req)
			c.pmu.Lock()
			dup := c.pending[req.ID]
			if !dup {
				if c.pending == nil {
					c.pending = map[jsonrpc.ID]bool{}
				}
				c.pending[req.ID] = true
			}
			c.pmu.Unlock()
			if dup {
				// The SDK would drop it unanswered.
				id, _ := json.Marshal(req.ID.Raw())
				if err := c.writeRaw(invalidRequest(id, "id %s is already in use by a request in progress", id).Response()); err != nil {
					return nil, err
				}
				continue
			}
		}
		return msg, nil
	}
}

// cancel marks the request named by the params of a
// notifications/cancelled as cancelled, when it is still pending.
func (c *conn) cancel(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.pending[id] {
		if c.cancelled == nil {
			c.cancelled = map[jsonrpc.ID]bool{}
		}
		c.cancelled[id] = true
	}
}

// Write sends msg. The answer to a request the client has cancelled is
// dropped. A response that does not encode to valid JSON is replaced by an
// internal error for its id, and one larger than the write limit by an
// error naming the limit.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp {
		c.pmu.Lock()
		dropped := c.cancelled[resp.ID]
		delete(c.cancelled, resp.ID)
		delete(c.pending, resp.ID)
		c.pmu.Unlock()
		if dropped {
			return nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err == nil && !json.Valid(data) {
		err = errors.New("invalid JSON")
	}
	if err != nil {
		if !isResp {
			return fmt.Errorf("encode message: %w", err)
		}
		data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID,
			Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the response could not be encoded"}})
		if err != nil {
			return fmt.Errorf("encode message: %w", err)
		}
	}
	data = jsonenc.Unescape(data) // <, > and & as they are, as ctxql prints JSON
	if len(data)+1 > c.maxWrite {
		if !isResp {
			return fmt.Errorf("message of %d bytes not sent: %w", len(data), budget.OutputLimit("message", c.maxWrite))
		}
		data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID,
			Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the response of %d bytes is larger than %d bytes (raise with %s)", len(data), c.maxWrite, budget.FlagMaxOutputBytes)}})
		if err != nil {
			return fmt.Errorf("encode message: %w", err)
		}
	}
	return c.writeRaw(data)
}

func (c *conn) writeRaw(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// Close closes both streams; a pending Read returns.
func (c *conn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = errors.Join(c.r.Close(), c.w.Close())
	})
	return err
}

// SessionID implements mcp.Connection.
func (c *conn) SessionID() string { return "" }

// Reject is the error answer to an invalid incoming message.
type Reject struct {
	Code    int64
	Message string
	// ID is the raw id of the message when it had a valid one, else null.
	ID json.RawMessage
}

// Response is the JSON-RPC error response of r.
func (r *Reject) Response() []byte {
	id := r.ID
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{r.Code, r.Message}})
	return b
}

func parseError(format string, a ...any) *Reject {
	return &Reject{Code: jsonrpc.CodeParseError, Message: "parse error: " + fmt.Sprintf(format, a...)}
}

func invalidRequest(id json.RawMessage, format string, a ...any) *Reject {
	return &Reject{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, a...), ID: id}
}

// maxExactInt is the largest integer id accepted: the SDK carries numeric
// ids as float64.
const maxExactInt = 1 << 53

// Check validates one incoming line and decodes it. It returns the message,
// or the error to answer with, or neither for a blank line.
func Check(data []byte) (jsonrpc.Message, *Reject) {
	data = bytes.TrimRight(data, "\r\n")
	if len(bytes.TrimLeft(data, " \t")) == 0 {
		return nil, nil
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, parseError("byte order mark before the message")
	}
	if !utf8.Valid(data) {
		return nil, parseError("the message is not valid UTF-8")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, parseError("NUL byte at offset %d", i)
	}
	if d := nestingDepth(data, MaxDepth); d > MaxDepth {
		return nil, invalidRequest(recoverID(data), "nested deeper than %d levels", MaxDepth)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := dec.ReadValue()
	if err != nil {
		// A string the decoder refuses (a lone surrogate such as "\ud83d"
		// is valid JSON text) must not cost the client its answer.
		rj := parseError("%v", err)
		rj.ID = recoverID(data)
		return nil, rj
	}
	v = v.Clone() // valid only until the next read

	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, parseError("data after the message")
	}
	switch v.Kind() {
	case '{':
	case '[':
		return nil, invalidRequest(nil, "batches are not supported; send one message per line")
	default:
		return nil, invalidRequest(nil, "a message must be a JSON object, not %s", kindName(v.Kind()))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(v, &fields); err != nil {
		rj := parseError("%v", err)
		rj.ID = recoverID(data)
		return nil, rj
	}
	rawID, hasID := fields["id"]
	var id json.RawMessage
	if hasID {
		if !validID(rawID) {
			return nil, invalidRequest(nil, "id must be a string or an integer of at most 2^53 in magnitude, not %s", clip(rawID))
		}
		id = rawID
	}
	if ver, ok := fields["jsonrpc"]; !ok || string(ver) != `"2.0"` {
		return nil, invalidRequest(id, `"jsonrpc" must be "2.0"`)
	}
	rawMethod, isRequest := fields["method"]
	if isRequest {
		var method string
		if jsontext.Value(rawMethod).Kind() != '"' || json.Unmarshal(rawMethod, &method) != nil {
			return nil, invalidRequest(id, "method must be a string")
		}
		rj := checkParams(method, fields["params"], id)
		if p, ok := fields["params"]; ok && jsontext.Value(p).Kind() != '{' && jsontext.Value(p).Kind() != 'n' {
			rj = &Reject{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: params must be an object", ID: id}
		}
		if rj != nil {
			if !hasID {
				return nil, nil // a notification is never answered
			}
			return nil, rj
		}
	} else {
		_, hasResult := fields["result"]
		e, hasError := fields["error"]
		if !hasID || hasResult == hasError {
			return nil, invalidRequest(id, "a message needs a method, or an id and one of result or error")
		}
		if hasError {
			var we struct {
				Code    *int64  `json:"code"`
				Message *string `json:"message"`
			}
			if json.Unmarshal(e, &we) != nil || we.Code == nil || we.Message == nil {
				return nil, invalidRequest(id, "error must be an object with an integer code and a string message")
			}
		}
	}
	msg, err := jsonrpc.DecodeMessage(v)
	if err != nil {
		return nil, invalidRequest(id, "%v", err)
	}
	return msg, nil
}

// checkParams rejects parameters the SDK mishandles: a resource URI with a
// character Go would quote with an escape that is not valid JSON.
func checkParams(method string, params json.RawMessage, id json.RawMessage) *Reject {
	switch method {
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		var p struct {
			URI *string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil || p.URI == nil {
			return &Reject{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: uri must be a string", ID: id}
		}
		for _, r := range *p.URI {
			if !strconv.IsPrint(r) {
				return &Reject{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: uri contains the non-printable character %U", r), ID: id}
			}
		}
	}
	return nil
}

func validID(raw json.RawMessage) bool {
	switch jsontext.Value(raw).Kind() {
	case '"':
		return true
	case '0':
		for i, b := range raw {
			if !(b >= '0' && b <= '9' || b == '-' && i == 0) {
				return false // a fraction or an exponent
			}
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil && n <= maxExactInt && n >= -maxExactInt
	}
	return false
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	}
	return "an array"
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// nestingDepth returns the nesting depth of arrays and objects in the JSON
// text data, stopping once it exceeds max; strings are skipped.
func nestingDepth(data []byte, max int) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > max {
					return deepest
				}
			}
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// The _meta keys by which a request of the 2026-07-28 protocol (which has
// no initialize: a client calls server/discover, then sends its version,
// identity and capabilities with every request) identifies itself.
var protocolMetaKeys = []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel}

// sessionControl adapts the requests of the 2026-07-28 protocol to the
// session a connection keeps. The SDK answers ping and logging/setLevel
// -32601 in that protocol, although clients still send them (the Python
// SDK's default client does): their protocol keys are removed from their
// _meta, so the SDK answers them as it does in the earlier protocols (ping
// with {}, logging/setLevel by setting the session's level). The level a
// valid logging/setLevel sets is then added to the _meta of every later
// request that does not name its own, since the SDK logs a request of that
// protocol only at the level its _meta names.
func (c *conn) sessionControl(req *jsonrpc.Request) {
	if len(req.Params) == 0 {
		return
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil {
		return
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta[mcp.MetaKeyProtocolVersion] == nil {
		return
	}
	switch req.Method {
	case "ping", "logging/setLevel":
		if req.Method == "logging/setLevel" {
			var p struct {
				Level mcp.LoggingLevel `json:"level"`
			}
			if json.Unmarshal(req.Params, &p) == nil && loggingLevels[p.Level] {
				c.pmu.Lock()
				c.level = p.Level
				c.pmu.Unlock()
			}
		}
		for _, k := range protocolMetaKeys {
			delete(meta, k)
		}
	default:
		c.pmu.Lock()
		level := c.level
		c.pmu.Unlock()
		if _, ok := meta[mcp.MetaKeyLogLevel]; ok || level == "" {
			return
		}
		meta[mcp.MetaKeyLogLevel], _ = json.Marshal(level)
	}
	if len(meta) == 0 {
		delete(params, "_meta")
	} else if b, err := json.Marshal(meta); err == nil {
		params["_meta"] = b
	}
	if b, err := json.Marshal(params); err == nil {
		req.Params = b
	}
}
