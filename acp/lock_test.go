//go:build unix || windows

package acp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLockFileExcludes takes the lock twice through two opens, as two
// processes do: the second waits until the first lets go.
func TestLockFileExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.lock")
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
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "state.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	for _, p := range []string{link, dir} {
		if unlock, err := lockFile(p); err == nil {
			unlock()
			t.Errorf("lockFile(%s) succeeded, want an error", p)
		}
	}
}
