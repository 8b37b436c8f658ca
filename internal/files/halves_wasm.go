//go:build js || wasip1

package files

import "os"

// halvesMin is the size from which ReadFile reads a file in two halves
// where it does (halves.go).
const halvesMin = 4 << 20

// readHalves does nothing under WebAssembly, which runs one thread: ReadAll
// reads the file.
func (r *Reader) readHalves(string, *os.File) ([]byte, bool, error) { return nil, false, nil }
