package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
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

// TestVersionFromCheckout builds ctxql in a git checkout of the module's
// files, as `go build` does for a developer, and runs `ctxql version`: it
// names the commit the build records (vcs.revision), with "-dirty" once a
// file of the checkout is modified (vcs.modified), and the version derived
// from it instead of "devel".
func TestVersionFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctxql")
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// The module's files as they are on disk, in a checkout of their own.
	co := t.TempDir()
	for _, f := range strings.Split(run(root, "git", "ls-files", "-z"), "\x00") {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(co, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(co, "git", "init", "-q")
	run(co, "git", "add", "-A")
	run(co, "git", "commit", "-q", "-m", "checkout")
	head := run(co, "git", "rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "ctxql")
	version := func() string {
		// -buildvcs=true: stamp the build even where GOFLAGS turns it off.
		run(co, "go", "build", "-buildvcs=true", "-trimpath", "-o", bin, "./cmd/ctxql")
		return run(co, bin, "version")
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH
	want := regexp.MustCompile(`^ctxql v0\.0\.0-\d{14}-` + head[:12] + ` \(commit ` + head + `, ` + platform + `\)$`)
	if got := version(); !want.MatchString(got) {
		t.Errorf("clean checkout: got %q, want %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(co, "README.md"), []byte("modified\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want = regexp.MustCompile(`^ctxql v0\.0\.0-\d{14}-` + head[:12] + `\+dirty \(commit ` + head + `-dirty, ` + platform + `\)$`)
	if got := version(); !want.MatchString(got) {
		t.Errorf("modified checkout: got %q, want %s", got, want)
	}
}
