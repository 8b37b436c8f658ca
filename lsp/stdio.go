package lsp

import (
	"io"
)

// StdioConn joins a reader and a writer (a process's stdin and stdout) into
// the io.ReadWriteCloser Serve needs. Close closes whichever of them is an
// io.Closer.
func StdioConn(r io.Reader, w io.Writer) io.ReadWriteCloser { return stdio{r, w} }

type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	var err error
	if c, ok := s.Reader.(io.Closer); ok {
		err = c.Close()
	}
	if c, ok := s.Writer.(io.Closer); ok {
		if e := c.Close(); err == nil {
			err = e
		}
	}
	return err
}
