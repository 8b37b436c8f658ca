// Package testdir gives tests temporary directories and symbolic links
// that behave alike on every platform the tests run on, Windows under
// Wine included.
package testdir

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// New returns a new temporary directory, removed when the test ends. On
// Windows a directory that cannot be removed is logged, not a failure:
// Wine 8 lacks the call Go's os.RemoveAll makes there, and what the test
// checks is not the removal.
func New(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctxql-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			if runtime.GOOS == "windows" {
				t.Logf("temporary directory left behind: %v", err)
				return
			}
			t.Errorf("remove the temporary directory: %v", err)
		}
	})
	return dir
}

// Symlink makes link a symbolic link to target. On Windows, where making
// links needs a privilege (and under Wine links to existing files do not
// resolve), a link that cannot be made or followed skips the test;
// elsewhere it fails it.
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil && runtime.GOOS == "windows" {
		to := target
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(link), to)
		}
		if _, terr := os.Stat(to); terr == nil {
			_, err = os.Stat(link)
		}
	}
	if err == nil {
		return
	}
	if runtime.GOOS == "windows" {
		t.Skipf("symbolic links do not work here: %v", err)
	}
	t.Fatal(err)
}
