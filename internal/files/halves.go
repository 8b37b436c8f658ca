//go:build !js && !wasip1

package files

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// halvesMin is the size from which ReadFile reads a file in two halves.
const halvesMin = 4 << 20

// readHalves reads f, at offset 0, in two halves on two goroutines when it
// is at least halvesMin bytes long and there is more than one processor,
// then whatever follows them (a file that grew) as ReadAll does, and
// returns true with the bytes, or an error. It returns false, with f at
// offset 0, when it did not read the file: too small, one processor, a
// half read short (a file that shrank), more bytes than the limit, or an
// error; ReadAll then reads it from the start.
func (r *Reader) readHalves(name string, f *os.File) ([]byte, bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() < halvesMin || runtime.GOMAXPROCS(0) < 2 {
		return nil, false, nil
	}
	size := fi.Size()
	if r.max > 0 && size > r.max {
		return nil, false, nil
	}
	b := make([]byte, size, size+512)
	adviseHuge(b)
	mid := size / 2
	done := make(chan error, 1)
	go func() {
		_, err := f.ReadAt(b[mid:], mid)
		done <- err
	}()
	// ReadAt reads every byte asked or says why not, and leaves the
	// file's offset alone.
	_, err = f.ReadAt(b[:mid], 0)
	if err2 := <-done; err == nil {
		err = err2
	}
	if err != nil {
		return nil, false, nil
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return nil, false, nil
	}
	// What follows (a file that grew), read as ReadAll reads.
	rest, err := r.ReadAll(name, struct{ io.Reader }{f})
	if err == nil && (r.max == 0 || size+int64(len(rest)) <= r.max) {
		return append(b, rest...), true, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, true, fmt.Errorf("read %s: %w", name, err)
	}
	return nil, false, nil
}
