//go:build !unix

package files

// openFlags adds nothing outside Unix, where an open does not wait for a
// peer. On Windows, opening a named pipe with no free instance fails at
// once, and devices (CON, NUL) open without reading, so Open's check of the
// file type refuses them before anything is read. Under js and wasip1 the
// host file system has no special files.
const openFlags = 0
