//go:build !linux

package files

// adviseHuge does nothing outside Linux.
func adviseHuge([]byte) {}
