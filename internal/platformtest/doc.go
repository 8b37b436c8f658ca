// Package platformtest holds the tests of ctxql as it is shipped to the
// platforms other than the one it is developed on: the release archives
// scripts/release builds, and the Windows binary run under Wine (eval,
// check, fmt -w on a CRLF file and the language server over stdio). The
// package has no API; its tests are its content.
package platformtest
