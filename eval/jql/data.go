package jql

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/jsonenc"
)

// Source provides the raw JSON documents of a domain. Scan calls fn once per
// document, in storage order; the bytes are only valid during the call. Scan
// may be called more than once (a cursor query scans twice).
type Source interface {
	Scan(ctx context.Context, domain string, fn func(raw []byte) error) error
}

// DataError reports data that cannot be read or decoded.
type DataError struct {
	Err error
}

// Error implements error.
func (e *DataError) Error() string { return "data: " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *DataError) Unwrap() error { return e.Err }

func dataErr(format string, args ...any) error {
	return &DataError{Err: fmt.Errorf(format, args...)}
}

// Memory is an in-memory Source: raw JSON documents per domain.
type Memory map[string][][]byte

// Scan implements Source.
func (m Memory) Scan(ctx context.Context, domain string, fn func(raw []byte) error) error {
	for i, d := range m[domain] {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// NewMemory builds a Memory from Go values (as produced by encoding/json or
// a YAML decoder), keyed by domain.
func NewMemory(docs map[string][]any) (Memory, error) {
	m := Memory{}
	for dom, list := range docs {
		for _, d := range list {
			b, err := jsonenc.Marshal(normalize(d))
			if err != nil {
				return nil, dataErr("%s: %w", dom, err)
			}
			m[dom] = append(m[dom], b)
		}
	}
	return m, nil
}

// normalize turns YAML-decoded maps with non-string keys into JSON-friendly ones.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalize(e)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = normalize(e)
		}
		return v
	}
	return v
}

// File is a Source reading a file or directory on each Scan, streaming:
//   - a JSON object {"sessions": [...], "activities": [...]};
//   - a JSON array, or JSON Lines, of one domain's documents (used for
//     whichever domain the query names);
//   - YAML of either shape (loaded whole);
//   - a directory holding sessions.jsonl and/or activities.jsonl (or .json).
type File struct {
	// Path is the file or directory.
	Path string
	// Files opens every file read; nil opens any regular file. A confined
	// reader keeps reads, links included, inside its directory.
	Files *files.Reader
}

// Scan implements Source.
func (f File) Scan(ctx context.Context, domain string, fn func(raw []byte) error) error {
	fr := f.Files
	if fr == nil {
		fr = files.New(0, "")
	}
	st, err := fr.Stat(f.Path)
	if err != nil {
		return &DataError{Err: err}
	}
	path := f.Path
	if st.IsDir() {
		if path, err = domainFile(fr, f.Path, domain); err != nil {
			return err
		}
		if path == "" {
			return nil // the domain is empty
		}
	}
	fh, err := fr.Open(path)
	if err != nil {
		return &DataError{Err: err}
	}
	defer fh.Close()
	return scanReader(ctx, path, fh, domain, fn)
}

func scanReader(ctx context.Context, name string, r io.Reader, domain string, fn func(raw []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(1 << 16)
	first := firstByte(head)
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml"):
		return scanYAML(ctx, br, domain, fn)
	case first == '[':
		return scanJSONStream(ctx, br, domain, fn, false)
	case first == '{' && isWrapped(head):
		return scanJSONStream(ctx, br, domain, fn, true)
	case first == '{' || first == 0:
		return scanLines(ctx, br, fn)
	}
	return scanYAML(ctx, br, domain, fn)
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// isWrapped reports whether a JSON object starts with a "sessions" or
// "activities" key holding an array (the combined form), as opposed to being
// the first line of JSON Lines.
func isWrapped(head []byte) bool {
	r := &valueReader{br: bufio.NewReader(bytes.NewReader(head))}
	if r.expect('{') != nil {
		return false
	}
	k, err := r.key()
	if err != nil || (k != "sessions" && k != "activities") {
		return false
	}
	c, err := r.peek()
	return err == nil && c == '['
}

func scanLines(ctx context.Context, br *bufio.Reader, fn func(raw []byte) error) error {
	var long []byte
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			n++
			if n%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			t := bytes.TrimSpace(line)
			if len(t) > 0 {
				if e := fn(t); e != nil {
					return e
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &DataError{Err: err}
		}
	}
}

func scanJSONStream(ctx context.Context, br *bufio.Reader, domain string, fn func(raw []byte) error, wrapped bool) error {
	r := &valueReader{br: br}
	readArray := func() error {
		if c, err := r.peek(); err != nil || c != '[' {
			if err == nil {
				err = r.errf("found %q", c)
			}
			return dataErr("expected an array of %s: %v", domain, err)
		}
		return r.elements(ctx, fn)
	}
	if !wrapped {
		return readArray()
	}
	if err := r.expect('{'); err != nil {
		return err
	}
	for n := 0; ; n++ {
		more, err := r.next(n == 0, '}')
		if err != nil {
			return err
		}
		if !more {
			break
		}
		k, err := r.key()
		if err != nil {
			return err
		}
		if k == domain {
			if err := readArray(); err != nil {
				return err
			}
			continue
		}
		if err := skipValue(ctx, r); err != nil {
			return err
		}
	}
	return r.expect('}')
}

// skipValue skips the value of another domain, looking at ctx every 1,024
// elements when it is an array (a domain's documents).
func skipValue(ctx context.Context, r *valueReader) error {
	if c, err := r.peek(); err != nil || c != '[' {
		if err != nil {
			return err
		}
		_, err := r.value()
		return err
	}
	return r.elements(ctx, func([]byte) error { return nil })
}

// elements reads an array, the reader at its opening bracket, calling fn
// with each element's bytes and looking at ctx every 1,024 elements.
func (r *valueReader) elements(ctx context.Context, fn func(raw []byte) error) error {
	if err := r.expect('['); err != nil {
		return err
	}
	for n := 0; ; n++ {
		more, err := r.next(n == 0, ']')
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		v, err := r.value()
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return r.expect(']')
}

func scanYAML(ctx context.Context, r io.Reader, domain string, fn func(raw []byte) error) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return &DataError{Err: err}
	}
	v, err := decodeYAML(ctx, string(b))
	if err != nil {
		return err
	}
	var list []any
	switch v := normalize(v).(type) {
	case []any:
		list = v
	case map[string]any:
		l, ok := v[domain].([]any)
		if !ok && v[domain] != nil {
			return dataErr("%s must be a list", domain)
		}
		list = l
	case nil:
	default:
		return &DataError{Err: errors.New("want a list of documents or a map of domains")}
	}
	// Every document is encoded before the first is passed on, as
	// NewMemory does, looking at ctx as in Memory.Scan.
	m := Memory{domain: make([][]byte, 0, len(list))}
	for i, d := range list {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		raw, err := jsonenc.Marshal(normalize(d))
		if err != nil {
			return dataErr("%s: %w", domain, err)
		}
		m[domain] = append(m[domain], raw)
	}
	return m.Scan(ctx, domain, fn)
}
