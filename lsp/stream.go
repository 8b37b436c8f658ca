package lsp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds the body of one message, so that a hostile Content-Length
// cannot make the server allocate without limit.
const maxFrame = 256 << 20

// stream is a jsonrpc2.Stream with LSP header framing that survives bad
// input: a body that is not a JSON-RPC message is answered with a parse error
// (id null) and reading continues with the next frame, where the library's
// own stream would fail the connection. A Content-Length larger than the
// bytes that follow ends the stream with io.ErrUnexpectedEOF when the peer
// closes its side, so the server exits instead of waiting forever. Every
// message read and written can be traced to a log writer.
type stream struct {
	rwc io.ReadWriteCloser
	r   *bufio.Reader
	wmu sync.Mutex
	log *logger

	ended   chan struct{} // closed when reading stops for good
	endOnce sync.Once
}

func newStream(rwc io.ReadWriteCloser, log *logger) *stream {
	return &stream{rwc: rwc, r: bufio.NewReaderSize(rwc, 64<<10), log: log, ended: make(chan struct{})}
}

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.readFrame()
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

// readFrame reads one "Content-Length" framed body. A frame whose header is
// unusable is skipped up to the next blank line and reported as an empty
// body, which DecodeMessage rejects.
func (s *stream) readFrame() ([]byte, int64, error) {
	length := -1
	var n int64
	sawHeader := false
	for {
		line, err := s.r.ReadString('\n')
		n += int64(len(line))
		if err != nil {
			if err == io.EOF && !sawHeader && line == "" {
				return nil, 0, io.EOF
			}
			return nil, 0, io.ErrUnexpectedEOF
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // tolerate stray blank lines between frames
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err == nil && v >= 0 {
				length = v
			}
		}
	}
	if length < 0 || length > maxFrame {
		s.log.printf("frame with missing or invalid Content-Length (%d)", length)
		return []byte{}, n, nil
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, 0, io.ErrUnexpectedEOF
	}
	return body, n + int64(length), nil
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
