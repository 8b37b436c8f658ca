//go:build unix || windows

package acp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxql/ctxql/internal/testdir"
)

// TestLockFileExcludes takes the lock twice through two opens, as two
// processes do: the second waits until the first lets go.
func TestLockFileExcludes(t *testing.T) {
	p := filepath.Join(testdir.New(t), "state.lock")
	unlock, err := lockFile(p)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func(), 1)
	go func() {
		u, err := lockFile(p)
		if err != nil {
			t.Error(err)
			u = func() {}
		}
		got <- u
	}()
	select {
	case u := <-got:
		u()
		t.Fatal("the second lock was granted while the first was held")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case u := <-got:
		u()
	case <-time.After(10 * time.Second):
		t.Fatal("the second lock was not granted after the first was released")
	}
}

func TestLockFileRefusesLinksAndDirectories(t *testing.T) {
	dir := testdir.New(t)
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	refused := func(p string) {
		t.Helper()
		if unlock, err := lockFile(p); err == nil {
			unlock()
			t.Errorf("lockFile(%s) succeeded, want an error", p)
		}
	}
	refused(dir)
	link := filepath.Join(dir, "state.lock")
	testdir.Symlink(t, target, link)
	refused(link)
}
