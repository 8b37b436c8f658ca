//go:build !unix && !windows

package acp

// lockFile has no cross-process lock where there are no other processes to
// share the file with (js and wasip1): updates are serialised within the
// process only.
func lockFile(path string) (unlock func(), err error) { return func() {}, nil }
