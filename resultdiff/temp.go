package resultdiff

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxql/ctxql/internal/files"
	"github.com/ctxql/ctxql/internal/process"
)

// tempPrefix starts the name of the directory a run extracts the base
// revision into: "ctxql-diff-PID-RANDOM" in the system's temporary
// directory, so a later run can tell whether its process still runs.
const tempPrefix = "ctxql-diff-"

// TempDir makes an empty directory for the base revision, after removing
// those that runs which no longer exist left behind (a run killed, or
// interrupted while it could not clean up).
func TempDir() (string, error) {
	CleanStale(os.TempDir())
	return os.MkdirTemp("", fmt.Sprintf("%s%d-", tempPrefix, os.Getpid()))
}

// CleanStale removes from dir every ctxql-diff-PID-* directory whose
// process is gone, and every ctxql-diff-RANDOM directory (the name earlier
// releases used, without the process id) older than a day, and returns how
// many it removed. Directories of running processes, and names of any other
// form, are left alone.
func CleanStale(dir string) int {
	ents, err := files.New(0, "").ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		p, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(p)
		if (!ok || err != nil || pid <= 0 || process.Alive(pid)) && !staleUnnumbered(rest, e) {
			continue
		}
		if os.RemoveAll(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}
