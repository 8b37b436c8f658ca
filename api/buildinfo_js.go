package api

import "runtime/debug"

// readBuildInfo reports no build information in the WebAssembly build:
// its parser weighs 6 KB of the module gzipped, and scripts/npm-wasm sets
// the commit with the link flags instead, as Go would record it.
func readBuildInfo() (*debug.BuildInfo, bool) { return nil, false }
