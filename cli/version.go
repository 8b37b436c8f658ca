package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Commit is the commit ctxql was built from, set at link time with
// -ldflags "-X" (scripts/release sets it and Version). Without it the
// commit comes from the build information the go command records.
var Commit = ""

// versionLine is what "ctxql version" prints: the version (Version, else
// the module version "go install …@vX.Y.Z" records, else "devel"), the
// commit ("unknown" when neither the link flags nor the build information
// has one; "-dirty" marks a build of a modified tree) and the platform.
func versionLine() string {
	version, commit := Version, Commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if version == "devel" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		if commit == "" {
			commit = vcsCommit(bi.Settings)
		}
	}
	if commit == "" {
		commit = "unknown"
	}
	return fmt.Sprintf("ctxql %s (commit %s, %s/%s)", version, commit, runtime.GOOS, runtime.GOARCH)
}

// vcsCommit is the revision the build settings record, or "".
func vcsCommit(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}
