package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds the body of one message, so that a hostile Content-Length
// cannot make the server allocate without limit; maxHeaderLine bounds one
// header line.
const (
	maxFrame      = 256 << 20
	maxHeaderLine = 64 << 10
)

// findHeader returns the offset of the first "Content-Length: N" header
// line in b (the name in any case, the line ended by a raw line break), or
// -1. It finds a frame header where no frame should be: inside a body that
// falls short of its Content-Length, or in garbage between frames. The raw
// line break after the digits cannot occur in a JSON text (not outside
// strings, where the name is no token, and not inside them, where control
// characters must be escaped), so a body holding such a line is never a
// valid message.
func findHeader(b []byte) int {
	const name = "content-length:"
	from := 0
	for {
		i := bytes.IndexByte(b[from:], '\n')
		if i < 0 {
			return -1
		}
		end := from + i // the line break
		from = end + 1
		j := end
		if j > 0 && b[j-1] == '\r' {
			j--
		}
		for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t') {
			j--
		}
		digits := 0
		for j > 0 && b[j-1] >= '0' && b[j-1] <= '9' && digits < 20 {
			j--
			digits++
		}
		if digits == 0 {
			continue
		}
		for j > 0 && (b[j-1] == ' ' || b[j-1] == '\t') {
			j--
		}
		if j >= len(name) && bytes.EqualFold(b[j-len(name):j], []byte(name)) {
			return j - len(name)
		}
	}
}

// stream is a jsonrpc2.Stream with LSP header framing that survives bad
// input: a body that is not a JSON-RPC message is answered with a parse error
// (id null) and reading continues with the next frame, where the library's
// own stream would fail the connection. A frame whose Content-Length is
// larger than its body is cut where the next frame's "Content-Length:"
// header begins, answered with a parse error, and reading resynchronises
// on that header, whether or not the rest of the declared length ever
// arrives. A truncated frame at the end of the input ends the stream with
// io.ErrUnexpectedEOF. Every message read and written can be traced to a
// log writer.
type stream struct {
	rwc io.ReadWriteCloser
	r   *frameReader
	wmu sync.Mutex
	log *logger

	ended   chan struct{} // closed when reading stops for good
	endOnce sync.Once
}

func newStream(rwc io.ReadWriteCloser, log *logger) *stream {
	return &stream{rwc: rwc, r: &frameReader{src: rwc}, log: log, ended: make(chan struct{})}
}

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.r.next()
		if err != nil {
			s.endOnce.Do(func() { close(s.ended) })
			return nil, 0, err
		}
		s.log.trace("<-", body)
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		s.log.printf("malformed message: %v", err)
		resp := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(jsonrpc2.ParseError, "malformed message: "+err.Error()))
		if _, werr := s.Write(ctx, resp); werr != nil {
			return nil, 0, werr
		}
	}
}

// frameReader splits the input into frame bodies. It keeps the bytes read
// but not yet consumed in buf, so that it can step back to a header found
// inside a body.
type frameReader struct {
	src io.Reader
	buf []byte // unconsumed input
	eof bool   // src is exhausted
	err error  // src failed (other than io.EOF)
}

// fill reads more input; it returns false once nothing more will come.
func (r *frameReader) fill() bool {
	if r.eof || r.err != nil {
		return false
	}
	if cap(r.buf)-len(r.buf) < 32<<10 {
		nb := make([]byte, len(r.buf), 2*cap(r.buf)+64<<10)
		copy(nb, r.buf)
		r.buf = nb
	}
	n, err := r.src.Read(r.buf[len(r.buf):cap(r.buf)])
	r.buf = r.buf[:len(r.buf)+n]
	if err == io.EOF {
		r.eof = true
	} else if err != nil {
		r.err = err
	}
	return n > 0 || (!r.eof && r.err == nil)
}

// consume drops the first n bytes of buf.
func (r *frameReader) consume(n int) {
	rest := r.buf[n:]
	if len(rest) == 0 {
		r.buf = r.buf[:0]
		return
	}
	if n > 64<<10 && cap(r.buf) > 4*len(rest) {
		r.buf = append(make([]byte, 0, len(rest)+64<<10), rest...)
		return
	}
	r.buf = append(r.buf[:0], rest...)
}

// endErr is the error for input that ends in the middle of a frame.
func (r *frameReader) endErr(mid bool) error {
	if r.err != nil && !errors.Is(r.err, io.EOF) {
		return r.err
	}
	if mid {
		return io.ErrUnexpectedEOF
	}
	return io.EOF
}

// line returns the next header line without its line break and consumes
// it. A line over maxHeaderLine is dropped whole and reported as "".
func (r *frameReader) line() (string, error) {
	for {
		if i := bytes.IndexByte(r.buf, '\n'); i >= 0 {
			l := strings.TrimRight(string(r.buf[:i]), "\r")
			r.consume(i + 1)
			if len(l) > maxHeaderLine {
				return "\x00", nil
			}
			return l, nil
		}
		if len(r.buf) > maxHeaderLine {
			// Garbage without line breaks: skip to a header if one is there.
			if at := findHeader(r.buf); at >= 0 {
				r.consume(at)
				continue
			}
			r.consume(len(r.buf) - 64) // keep a tail that may start a header
			continue
		}
		if !r.fill() {
			return "", r.endErr(len(r.buf) > 0)
		}
	}
}

// next returns the next frame's body. A frame whose header is unusable
// (no valid Content-Length, or one over maxFrame) is reported as an empty
// body, which DecodeMessage rejects; a body cut short by the next frame's
// header is returned up to that header.
func (r *frameReader) next() ([]byte, int64, error) {
	length := -1
	sawHeader := false
	var n int64
	for {
		l, err := r.line()
		if err != nil {
			if errors.Is(err, io.EOF) && sawHeader {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		n += int64(len(l)) + 2
		if l == "" {
			if !sawHeader {
				continue // tolerate stray blank lines between frames
			}
			break
		}
		if sawHeader && length >= 0 && findHeader([]byte(l+"\n")) >= 0 {
			// A second Content-Length in one header block: the block
			// before it was garbage. Start over at this one.
			length = -1
		}
		sawHeader = true
		name, value, _ := strings.Cut(l, ":")
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			// Not the length: garbage, possibly ending in a length header.
			if at := findHeader([]byte(l + "\n")); at > 0 {
				name, value, _ = strings.Cut(l[at:], ":")
			}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err == nil && v >= 0 {
				length = v
			}
		}
	}
	if length < 0 || length > maxFrame {
		return []byte{}, n, nil
	}
	scanned := 0
	for {
		// A header that starts inside the body ends at most a line later.
		if at := findHeader(r.buf[scanned:min(len(r.buf), length+64)]); at >= 0 && scanned+at < length {
			// The next frame starts inside this one's declared body.
			cut := scanned + at
			body := bytes.Clone(r.buf[:cut])
			r.consume(cut)
			return body, n + int64(cut), nil
		}
		if len(r.buf) >= length {
			body := bytes.Clone(r.buf[:length])
			r.consume(length)
			return body, n + int64(length), nil
		}
		// Rescan the end of what was scanned: a header may straddle reads.
		scanned = max(0, len(r.buf)-64)
		if !r.fill() {
			return nil, 0, r.endErr(true)
		}
	}
}

// Write implements jsonrpc2.Stream.
func (s *stream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, fmt.Errorf("encode message: %w", err)
	}
	s.log.trace("->", body)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	buf := make([]byte, 0, len(body)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, body...)
	w, err := s.rwc.Write(buf)
	return int64(w), err
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error { return s.rwc.Close() }
