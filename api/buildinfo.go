//go:build !js

package api

import "runtime/debug"

// readBuildInfo is debug.ReadBuildInfo.
func readBuildInfo() (*debug.BuildInfo, bool) { return debug.ReadBuildInfo() }
