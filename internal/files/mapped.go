package files

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrTruncated reports a mapped file that became shorter while it was
// read: the bytes past its new end are gone.
var ErrTruncated = errors.New("file truncated while it was read")

// mapMin is the size from which Map maps a file rather than reading it:
// below it, the mapping's set-up and tear-down cost more than a read.
const mapMin = 1 << 20

// A Mapped holds the contents of a file, mapped into memory outside the Go
// heap where the platform allows (so that the bytes neither grow the
// heap nor are copied), read into the heap otherwise. Its bytes are valid
// until Close, which unmaps them: nothing may keep them, or anything
// sliced from them, past Close.
//
// A mapped file truncated by another program while it is mapped faults
// when its lost bytes are read. A reader of Bytes turns that fault into
// an error by reading with debug.SetPanicOnFault(true) on each goroutine
// that reads, and by passing what it recovers to Fault.
type Mapped struct {
	b      []byte
	mapped bool // b is a mapping, which Close unmaps
}

// Bytes returns the file's contents; nil after Close.
func (m *Mapped) Bytes() []byte { return m.b }

// IsMapped reports whether the bytes are a mapping (false: read into the
// heap).
func (m *Mapped) IsMapped() bool { return m.mapped }

// Close releases the bytes: a mapping is unmapped. Closing twice does
// nothing.
func (m *Mapped) Close() error {
	b, mapped := m.b, m.mapped
	m.b, m.mapped = nil, false
	if !mapped {
		return nil
	}
	if err := unmap(b); err != nil {
		return fmt.Errorf("unmap: %w", err)
	}
	return nil
}

// Map returns the contents of name under Open's rules, mapped into memory
// when the platform can map it and it has at least mapMin bytes; read as
// ReadFile reads otherwise. The file is closed when Map returns; its
// contents stay until the Mapped's Close.
func (r *Reader) Map(name string) (*Mapped, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() >= mapMin && int64(int(fi.Size())) == fi.Size() {
		if b, ok := mapFile(f, int(fi.Size())); ok {
			return &Mapped{b: b, mapped: true}, nil
		}
	}
	if b, ok, err := r.readHalves(name, f); ok {
		if err != nil {
			return nil, err
		}
		return &Mapped{b: b}, nil
	}
	b, err := r.ReadAll(name, f)
	if err != nil {
		return nil, err
	}
	return &Mapped{b: b}, nil
}

// Fault returns ErrTruncated, wrapped, when v, recovered from a panic on
// a goroutine reading with debug.SetPanicOnFault(true), is a memory fault
// (a mapped file truncated under its reader); otherwise it panics again
// with v.
func Fault(v any) error {
	if re, ok := v.(runtime.Error); ok {
		if _, ok := v.(interface{ Addr() uintptr }); ok {
			return fmt.Errorf("%w (%v)", ErrTruncated, re)
		}
	}
	panic(v)
}
