package cli

import (
	"bytes"
	"context"
	"runtime"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"version"}, Env{Stdout: &out, Stderr: &out}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	// A test binary records neither a module version nor a commit.
	want := "ctxql devel (commit unknown, " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
