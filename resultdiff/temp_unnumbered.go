package resultdiff

import (
	"io/fs"
	"time"
)

// unnumberedAge is how old a base-revision directory named the way earlier
// releases named it ("ctxql-diff-RANDOM", no process id) must be before it
// counts as left behind: no run compares two revisions for a day.
const unnumberedAge = 24 * time.Hour

// staleUnnumbered reports whether the directory e, named tempPrefix+rest,
// has the earlier releases' form (rest all digits, as os.MkdirTemp makes
// it) and was last modified more than unnumberedAge ago.
func staleUnnumbered(rest string, e fs.DirEntry) bool {
	if rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > unnumberedAge
}
