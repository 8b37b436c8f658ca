//go:build !unix

package acp

// lockFile has no cross-process lock outside Unix: updates are serialised
// within the process only.
func lockFile(path string) (unlock func(), err error) { return func() {}, nil }
