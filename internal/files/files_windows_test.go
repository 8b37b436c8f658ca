//go:build windows

package files

import (
	"errors"
	"testing"

	"github.com/ctxql/ctxql/internal/testdir"
)

func TestRefusesDevices(t *testing.T) {
	r := New(0, "")
	for _, name := range []string{"NUL", `\\.\NUL`, testdir.New(t)} {
		if _, err := r.ReadFile(name); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%q): err = %v, want ErrNotRegular", name, err)
		}
	}
}
