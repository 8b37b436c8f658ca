// Package platformtest holds the tests of ctxql as it is shipped to the
// platforms other than the one it is developed on: the release archives
// scripts/release builds, and the Windows binary run under Wine (eval,
// check, fmt -w on a CRLF file and on a read-only one, the language server
// over stdio with drive-letter URIs, Ctrl-C ending it with exit 130, and
// the tests of the packages with a Windows implementation). Wine before 9.0
// lacks the bcryptprimitives.dll that Go programs load at start; the test
// then assembles a stand-in with the MinGW-w64 binutils. Without Wine the
// test skips with a message, and fails in CI. The package has no API; its
// tests are its content.
package platformtest
