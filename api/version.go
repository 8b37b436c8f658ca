package api

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// VersionLine is what `ctxql version` prints: the version (version unless
// it is "devel", else the module version "go install …@vX.Y.Z" records,
// else "devel"), the commit (commit, else the one the build information
// records — "-dirty" marks a build of a modified tree — else "unknown")
// and the platform. The doors pass the values their link flags set.
func VersionLine(version, commit string) string {
	if bi, ok := readBuildInfo(); ok {
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
