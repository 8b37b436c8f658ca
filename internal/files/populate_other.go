//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package files

// mapPopulate is no flag outside Linux: the pages are mapped as they are
// first read.
const mapPopulate = 0
