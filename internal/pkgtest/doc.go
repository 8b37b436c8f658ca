// Package pkgtest holds the differential test of ctxql's library: every
// query file under testdata with sample data evaluated, every formatter
// and check input formatted and checked, and the PACT inputs migrated,
// through the native api package, `ctxql worker`, the npm package
// @ctxql/ctxql (WebAssembly) in Node and in headless Chromium, and the
// Python package (its wheel, built around the same binary, installed into
// a fresh virtual environment) when its runner is present, with a few
// cases of data that cannot be decoded. Every runner must give the
// same results, diagnostics, formatted text and errors; the native
// results must also be what the command line prints. The tests of the
// npm package installed from its tarball run here too.
package pkgtest
