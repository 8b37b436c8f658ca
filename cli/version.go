package cli

import "github.com/ctxql/ctxql/api"

// Commit is the commit ctxql was built from, set at link time with
// -ldflags "-X" (scripts/release sets it and Version). Without it the
// commit comes from the build information the go command records.
var Commit = ""

// versionLine is what "ctxql version" prints (api.VersionLine with the
// link-time Version and Commit).
func versionLine() string { return api.VersionLine(Version, Commit) }
