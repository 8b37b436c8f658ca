package jql

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// valueReader reads the JSON text of a data file one value at a time,
// without decoding it: the documents of an array are handed on as their
// bytes, which the evaluator parses itself. It checks the structure it
// walks (brackets, commas, colons, strings); the bytes of a document's
// scalars are checked by the parse that follows.
type valueReader struct {
	br  *bufio.Reader
	off int64  // bytes consumed
	buf []byte // the last value read
}

// errf returns a DataError at the current offset.
func (r *valueReader) errf(format string, args ...any) error {
	return dataErr("invalid JSON after offset %d: %s", r.off, fmt.Sprintf(format, args...))
}

// readErr turns a read error into a DataError: the end of the input is
// an unexpected end.
func (r *valueReader) readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return r.errf("unexpected end of input")
	}
	return &DataError{Err: err}
}

// peek skips whitespace and returns the next byte without consuming it.
func (r *valueReader) peek() (byte, error) {
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			return 0, r.readErr(err)
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			r.off++
			continue
		}
		_ = r.br.UnreadByte()
		return c, nil
	}
}

// expect consumes byte c after any whitespace, or fails.
func (r *valueReader) expect(c byte) error {
	got, err := r.peek()
	if err != nil {
		return err
	}
	if got != c {
		return r.errf("found %q, want %q", got, c)
	}
	_, _ = r.br.ReadByte()
	r.off++
	return nil
}

// next consumes a comma before the next element of a list closed by
// end, and reports whether there is one.
func (r *valueReader) next(first bool, end byte) (bool, error) {
	c, err := r.peek()
	if err != nil {
		return false, err
	}
	if c == end {
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, r.errf("found %q, want ',' or %q", c, end)
	}
	_, _ = r.br.ReadByte()
	r.off++
	return true, nil
}

// value reads the next value's bytes, valid until the next call.
func (r *valueReader) value() ([]byte, error) {
	if _, err := r.peek(); err != nil {
		return nil, err
	}
	r.buf = r.buf[:0]
	depth := 0
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && depth == 0 && len(r.buf) > 0 {
				return r.buf, nil
			}
			return nil, r.readErr(err)
		}
		switch c {
		case '"':
			r.buf = append(r.buf, c)
			r.off++
			if err := r.str(); err != nil {
				return nil, err
			}
			if depth == 0 {
				return r.buf, nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				// The end of the enclosing list: a scalar ends here.
				_ = r.br.UnreadByte()
				if len(r.buf) == 0 {
					return nil, r.errf("found %q, want a value", c)
				}
				return r.buf, nil
			}
			depth--
			if depth == 0 {
				r.buf = append(r.buf, c)
				r.off++
				return r.buf, nil
			}
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				_ = r.br.UnreadByte()
				return r.buf, nil
			}
		}
		r.buf = append(r.buf, c)
		r.off++
	}
}

// str reads the rest of a string, its opening quote read.
func (r *valueReader) str() error {
	for {
		b, err := r.br.ReadSlice('"')
		r.buf = append(r.buf, b...)
		r.off += int64(len(b))
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return r.readErr(err)
		}
		// The quote ends the string unless an odd number of
		// backslashes precedes it.
		n := 0
		for i := len(r.buf) - 2; i >= 0 && r.buf[i] == '\\'; i-- {
			n++
		}
		if n%2 == 0 {
			return nil
		}
	}
}

// key reads an object member's name and its colon.
func (r *valueReader) key() (string, error) {
	c, err := r.peek()
	if err != nil {
		return "", err
	}
	if c != '"' {
		return "", r.errf("found %q, want a member name", c)
	}
	b, err := r.value()
	if err != nil {
		return "", err
	}
	var k string
	if err := json.Unmarshal(b, &k); err != nil {
		return "", r.errf("member name %s: %v", b, err)
	}
	return k, r.expect(':')
}
